"""A terminal deny holds wherever hermes cannot show the line does not run the denied
program (the reported spellings and an audit's of "55 spellings held"); ordinary lines stay
allowed (fast tier: the parser, the rules and the gate; no shell runs)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent.permissions.rules import parse

PUSH = parse({"deny": ["terminal(git push*)"]}, "config.yaml")
ALLOW = parse({"allow": ["terminal(git status*)", "terminal(ls*)", "terminal(pytest*)", "terminal(git add*)",
                         "terminal(wc*)", "terminal(grep*)", "terminal(tail*)"],
               "deny": ["terminal(git push*)"]}, "config.yaml")

FINDING_6 = [  # each ran `git push` under --yolo past the deny
    "bash -o errexit -c 'git push'", "bash -O extglob -c 'git push'",
    "bash +o errexit -c 'git push'", "bash --rcfile /tmp/rc -c 'git push'",
    "bash -c -- 'git push'", "bash <(echo git push)", "bash /dev/stdin <<< 'git push'",
    "bash /dev/stdin <<'EOF'\ngit push\nEOF", "rbash -c 'git push'", "time -p git push",
    "coproc P { git push; }", "trap 'git push' EXIT", "x='a[$(git push)]'; : $((x))",
    "x='a[$(git push)]'; [[ x -eq 0 ]]", "shopt -s expand_aliases\nalias p='git push'\np",
    "nice --adjustment 5 git push", "stdbuf --output L git push", "ionice --class 2 git push",
    "timeout 1e3 git push", "timeout inf git push", "/usr/lib/git-core/git-push origin main",
]
AUDIT = [  # the outside audit's ten of 68
    "time -p git push origin main", "script -qc 'git push' /dev/null",
    "script --command='git push' /dev/null", "strace git push", "strace -f -o /tmp/t git push",
    "chroot / git push", "chroot --userspec=me:me / git push",
    "source /dev/stdin <<< 'git push'", ". /dev/stdin <<< 'git push'",
    "echo 'git push' | script -q /dev/null",
]
MORE = [  # the same holes, spelled otherwise
    "uv run git push", "docker exec box git push", "bash5.2 -c 'git push'", "zsh -f -c 'git push'",
    "PS4='$(git push)' bash -xc :", "read 'a[$(git push)]' <<< 1", "i=$((n)); : $((i))",
    "sudo -s <<< 'git push'", "su <<< 'git push'", "bash -s <<< 'git push'",
    "fish -C 'git push' -c true", "trap -- 'git push' INT TERM", "git-push origin",
    "uv run bash -c 'git push'", "docker exec box sh -c 'git push'", "ssh localhost 'git push'",
    "ssh -p 22 host git push", "docker exec -i box bash -s <<< 'git push'",
    "python3 -c \"import os; os.system('git push')\"", "perl -e 'system q(git push)'",
    "awk 'BEGIN{system(\"git push\")}'", "git -c alias.p=push p origin",
]
ORDINARY = ["git status", "ls -la", "pytest -q", "git log --grep push", "echo 'git push'",
            'git commit -m "explain git push"', "for ((i=0; i<3; i++)); do echo $i; done",
            "bash scripts/check.sh", "bash -e -o pipefail -c 'make test'", "timeout 60 pytest -q",
            "nice -n 5 make", "[[ $? -eq 0 ]] && echo ok", "echo ${HOME:-x} ${#A[@]}",
            "git stash push -m wip", "grep -rn push src | head", "which bash", "ls /bin/sh",
            "git add . && git status", "ssh -T git@github.com", "ps aux | grep bash",
            "python -c 'print(1)'", "git -c user.name=x commit -m y"]


@pytest.mark.parametrize("line", FINDING_6 + AUDIT + MORE)
def test_a_deny_holds_where_the_line_may_run_the_program(ctx, line):
    rule = PUSH.verdict("terminal", {"command": line}, ctx.cwd)
    assert rule is not None and rule.kind == "deny", line


@pytest.mark.parametrize("line", ORDINARY)
def test_a_deny_leaves_ordinary_lines_alone(ctx, line):
    assert PUSH.verdict("terminal", {"command": line}, ctx.cwd) is None, line


@pytest.mark.parametrize("line", ["git status", "ls -la", "pytest -q", "git status --short | wc -l",
                                  "ls -la | grep py", "pytest -q tests/x.py 2>&1 | tail -20",
                                  "git status && ls src", "git status && git add ."])
def test_allow_rules_still_cover_the_common_case(ctx, line):
    assert ALLOW.allows("terminal", {"command": line}, ctx.cwd), line


def test_the_refusal_says_why_a_line_that_hides_the_program_is_refused(call, ctx):
    c = replace(ctx, permissions=PUSH, yolo=True)
    tail = call("terminal", c, command="uv run git push")
    assert not tail.ok and "`git push` is among the arguments of `uv`" in tail.content
    hidden = call("terminal", c, command="bash /dev/stdin <<< 'git push'")
    assert not hidden.ok and "cannot tell what this command runs" in hidden.content
    assert "reads its commands from its input" in hidden.content
    arith = call("terminal", c, command="n=$(cat f); : $((n))")
    assert not arith.ok and "arithmetic on `n`" in arith.content
    subscript = call("terminal", c, command="x='a[$(git push)]'; : $((x))")
    assert not subscript.ok and "subscript runs a command substitution" in subscript.content


def test_an_ask_asks_for_such_a_line_outside_yolo(call, ctx):
    asked: list[str] = []
    rules = parse({"ask": ["terminal(git push*)"]}, "config.yaml")
    c = replace(ctx, permissions=rules, approve=lambda what, why: asked.append(what) or False)
    result = call("terminal", c, command="timeout 1e3 git push")
    assert not result.ok and "declined" in result.content and asked
