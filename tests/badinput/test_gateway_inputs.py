"""Bad gateway inputs: a garbage gateway.db and an out-of-range port give one line."""

from __future__ import annotations

import pytest

from gateway.routes import Route, RouteTable
from memory.errors import StoreError
from tests.helpers import child_env, hermes

pytestmark = pytest.mark.wire  # real servers and processes


@pytest.mark.parametrize("content", [b"\x7fELF" + bytes(range(256)) * 20, b"SQLite format 3\x00" +
                                     b"\xff" * 4000, b"not a database at all\n" * 300])
def test_garbage_gateway_db_is_a_store_error(content, tmp_path):
    path = tmp_path / "gateway.db"
    path.write_bytes(content)
    with pytest.raises(StoreError) as caught:
        RouteTable(path)
    assert "gateway.db is not a valid SQLite database" in caught.value.message
    assert "mv " in caught.value.hint


def test_route_table_round_trip_still_works(tmp_path):
    table = RouteTable(tmp_path / "gateway.db")
    table.put(Route("o", "n", session_id="s"))
    assert table.get("o", "n").session_id == "s"
    table.close()


def test_gateway_cli_garbage_db_and_bad_port(hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text("provider: anthropic\napi_key: k\n")
    env = child_env(hermes_home, HERMES_API_KEY="a-long-enough-secret-key")
    (hermes_home / "gateway.db").write_bytes(b"garbage" * 1000)
    result = hermes(["gateway", "--port", "0"], env, cwd=tmp_path, timeout=30)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr, result.stderr
    assert "gateway.db is not a valid SQLite database" in result.stderr
    for port in ("99999", "-1", "http"):
        result = hermes(["gateway", "--port", port], env, cwd=tmp_path, timeout=30)
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr and "--port" in result.stderr


def test_a_full_surrogate_pair_is_text_and_a_lone_half_is_refused():
    from gateway.wire import BadRequest, parse_json

    body = parse_json(b'{"messages": [{"role": "user", "content": "ok \\ud83d\\ude00"}]}')
    assert body["messages"][0]["content"] == "ok \U0001f600"
    with pytest.raises(BadRequest) as caught:
        parse_json(b'{"messages": [{"role": "user", "content": "ok \\ud83d"}]}')
    assert caught.value.param == "messages[0].content" and "lone UTF-16 surrogate" in caught.value.message
