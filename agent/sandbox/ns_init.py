"""PID 1 of a session's namespaces (run as a script by agent/sandbox/session.py; no imports
of hermes). The starting process forks PID 1 and reports its host pid; PID 1 mounts its
own /proc, brings up loopback for `network: off`, lets the kernel reap orphans, says
"ready" and becomes `cat` reading stdin: end of file (the session ended, or hermes
died) ends it, and with it every process of the namespace."""

import ctypes
import fcntl
import os
import signal
import socket
import struct
import sys


def main() -> None:
    pid = os.fork()
    if pid:
        os.write(1, b"pid %d\n" % pid)
        os._exit(0)
    lib = ctypes.CDLL(None, use_errno=True)
    if lib.mount(b"proc", b"/proc", b"proc", 2 | 4 | 8, None) != 0:
        os.write(1, b"error mount /proc: %s\n" % os.strerror(ctypes.get_errno()).encode())
        os._exit(3)
    if sys.argv[1] == "off":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        fcntl.ioctl(s, 0x8914, struct.pack("16sh22x", b"lo", 1 | 0x40))  # SIOCSIFFLAGS up, running
        s.close()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    os.write(1, b"ready\n")
    null = os.open("/dev/null", os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    # `cat` reads the pipe until hermes closes it; ignored signals stay ignored across
    # exec (SIGCHLD ignored: the kernel reaps orphans), and it is ~1 MB, not a Python
    os.execvp("cat", ["hermes-session-init"])


if __name__ == "__main__":
    main()
