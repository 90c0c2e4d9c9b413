"""A fetched body as text: the hand-made article page as Markdown without its chrome,
text and JSON as they are, PDF text, refusals (fast tier: no sockets)."""

from __future__ import annotations

from pathlib import Path

import pytest

# urllib3 (imported by trafilatura) binds ::1 once at import to probe for IPv6: imported
# here at collection, so the fast tier's socket guard judges the tests, not that probe
import trafilatura  # noqa: F401

from agent.errors import ToolError
from agent.tools.web.extract import readable
from agent.tools.web.fetch import Fetched

ARTICLE = (Path(__file__).parent / "article.html").read_bytes()
MARKERS = ("SCRIPT-MARKER", "STYLE-MARKER", "NAV-MARKER", "COOKIE-MARKER", "COMMENT-MARKER",
           "RELATED-MARKER", "FOOTER-MARKER", "<p", "<div", "</")


def test_an_article_page_becomes_markdown_of_its_main_content_only():
    kind, title, text = readable(Fetched(ARTICLE, "text/html", "https://blog.example.org/lock"))
    assert kind == "HTML page as Markdown"
    assert title == "Pinning dependencies with lock files | The Example Dev Blog"
    assert text.startswith("# Pinning dependencies with lock files")
    assert "## Refreshing the lock" in text
    assert "A lock file records the exact version of every package" in text
    assert "[locking guide](https://docs.example.org/locking)" in text
    assert "```\n$ uv lock --upgrade-package requests\nResolved 42 packages" in text  # <pre> fenced
    assert "- update one package per change when the update is risky;" in text
    assert "the next person who installs your project gets the build you saw pass." in text
    for marker in MARKERS:
        assert marker not in text, marker


def test_a_tiny_page_keeps_its_text_and_never_its_scripts():
    page = b"<html><head><script>SCRIPT-MARKER</script><style>p{}</style></head><body>" \
           b"<p>Only a line.</p></body></html>"
    _, _, text = readable(Fetched(page, "text/html", "http://x.example/"))
    assert text == "Only a line."
    assert readable(Fetched(b"<html><body></body></html>", "text/html", "http://x/"))[2] == ""


def test_the_charset_comes_from_the_header_or_the_meta_tag():
    body = "<html><head><meta charset='iso-8859-1'></head><body><p>Gr\u00fc\u00dfe</p></body></html>"
    _, _, text = readable(Fetched(body.encode("latin-1"), "text/html", "http://x.example/"))
    assert "Gr\u00fc\u00dfe" in text
    _, _, text = readable(Fetched("na\u00efve".encode("cp1252"), "text/plain", "http://x/", charset="cp1252"))
    assert text == "na\u00efve"


def test_text_and_json_come_as_they_are():
    json_body = b'{"name": "hermes", "tags": ["a", "b"]}\n'
    assert readable(Fetched(json_body, "application/json", "http://x/"))[2] == json_body.decode()
    assert readable(Fetched(json_body, "application/vnd.api+json", "http://x/"))[0] == "JSON"
    assert readable(Fetched(b"# Title\n\n<b>kept</b>\n", "text/markdown", "http://x/"))[2] == "# Title\n\n<b>kept</b>\n"


def _pdf(text: str) -> bytes:
    """A one-page PDF with `text` in Helvetica (offsets computed, as a real writer does)."""
    stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = b"%PDF-1.4\n", []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (n, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    return out + b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)


def test_a_pdf_becomes_its_text_and_a_broken_one_is_one_clear_error():
    kind, _, text = readable(Fetched(_pdf("Quarterly report: revenue up"), "application/pdf", "http://x/r.pdf"))
    assert kind == "PDF as text"
    assert text == "--- page 1 ---\nQuarterly report: revenue up"
    with pytest.raises(ToolError) as caught:
        readable(Fetched(b"%PDF-1.4\ngarbage", "application/pdf", "http://x/r.pdf", truncated=True))
    assert "the PDF could not be read (the download stopped at the size cap" in caught.value.message


def test_binary_kinds_are_refused_by_name():
    with pytest.raises(ToolError) as caught:
        readable(Fetched(b"\x89PNG\r\n", "image/png", "http://x/a.png"))
    assert caught.value.message == ("http://x/a.png is image/png (6 bytes), which web_fetch does "
                                    "not read: it reads HTML, text, JSON and PDF")
