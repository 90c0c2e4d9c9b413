"""An outside battery against this round's fixes for issue 52: spellings of `git push`
that the table in tests/permissions/test_fail_closed.py does not list (fast tier: the
parser and the rules; no shell runs). Held ones stay green; the ones this battery broke
and fixed (git's program-running config and env) failed before agent/permissions/shell.py
learned them; the ones still open are strict xfails with the reason."""

from __future__ import annotations

import pytest

from agent.permissions.rules import parse

PUSH = parse({"deny": ["terminal(git push*)"]}, "config.yaml")

HELD = [  # the brief's spellings and their cousins: each already denied
    "env -S 'git push'", "env -S'git push'", "busybox sh -c 'git push'", "busybox git push",
    "exec -a foo git push", "git${IFS}push", "$'\\x67it' push", "g\\it push", "{git,x} push",
    "command -p git push", "nohup git push", "nohup -- git push", "echo x | xargs -I{} sh -c 'git push'",
    "find . -maxdepth 0 -execdir git push \\;", "find . -exec sh -c 'git push' \\;",
    "sh -s <<'EOF'\ngit push\nEOF", "sh <<'EOF'\ngit push\nEOF", "gi''t push", "\\git push",
    "git pu''sh", "git p\\ush", "G=git; $G push", "$(echo git) push", "git $(echo push)",
    "git pu{s,}h", "git -C . push", "git --no-pager push", "env -i git push", "env -C / git push",
    "a=(git push); \"${a[@]}\"", "printf 'git push' | sh", "echo $(git push)", "cat <<EOF\n$(git push)\nEOF",
    "f() { git push; }; f", "setsid git push", "flock /tmp/l git push", "watch -n1 git push",
    "sudo git push", "runuser -u me git push", "git -c alias.x='!git push' x", "npx git push",
    "nsenter -t 1 git push", "unshare -r git push", "bwrap --dev-bind / / git push",
]
FIXED = [  # git runs these keys' values, or an alias they define (denied after this battery)
    "git -c core.sshCommand='git push #' fetch", "git -c core.pager='git push #' log",
    "git -c core.editor='git push #' commit", "git --config-env=core.pager=P log",
    "git config alias.y push && git y", "git config alias.y push; git y",
    "git config --global alias.y push; git y", "git config alias.y '!git push'; git y",
    "git config set alias.y push", "git -c include.path=/tmp/c y",
    "GIT_PAGER='git push #' git log", "GIT_SSH_COMMAND='git push #' git fetch",
    "PAGER='git push #' git log", "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.y GIT_CONFIG_VALUE_0=push git y",
    "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.y GIT_CONFIG_VALUE_0=push; git y",
    "export GIT_PAGER='git push #'; git log",
]
OPEN = [  # programs that run a string argument or their input as commands, not yet known
    "make -f /dev/stdin <<< $'a:\\n\\tgit push'", "sg grp 'git push'", "sg grp -c 'git push'",
    "parallel ::: 'git push'", "tmux new 'git push'", "at now <<< 'git push'",
    "gdb -batch -ex 'shell git push'", "vim -c '!git push'", "ex -c '!git push'",
    "nix-shell --run 'git push'", "crontab - <<< '* * * * * git push'",
]
STILL_ORDINARY = ["git config user.name me", "git config --get remote.origin.url", "git log --oneline",
                  "git -c user.name=x commit -m y", "git status", "LANG=C git status"]


def _denied(line: str, cwd) -> bool:
    rule = PUSH.verdict("terminal", {"command": line}, cwd)
    return rule is not None and rule.kind == "deny"


@pytest.mark.parametrize("line", HELD + FIXED)
def test_a_git_push_deny_holds(tmp_path, line):
    assert _denied(line, tmp_path), line


@pytest.mark.parametrize("line", STILL_ORDINARY)
def test_git_config_that_runs_nothing_stays_allowed(tmp_path, line):
    assert PUSH.verdict("terminal", {"command": line}, tmp_path) is None, line


@pytest.mark.parametrize("line", OPEN)
@pytest.mark.xfail(strict=True, reason="issue 52 open: a program that runs its string argument "
                   "(make -f, sg, parallel, tmux, at, gdb, vim -c, nix-shell --run, crontab) is not "
                   "in agent/permissions/shell_runs.py, so the deny never sees `git push`")
def test_programs_that_run_a_string_still_pass_the_deny(tmp_path, line):
    assert _denied(line, tmp_path), line
