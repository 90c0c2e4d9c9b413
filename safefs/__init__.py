"""Opening files beneath a root with no escape (links inside followed, links out refused).

A leaf package (standard library only), so every layer can use it: the file tools,
checkpoints, `@file` mentions, chat uploads, context files and skills.
"""

from safefs.beneath import Escape, fd_path, open_beneath, resolver, use
from safefs.files import (
    Entry,
    NotRegular,
    create_new,
    open_dir,
    open_regular,
    read_bytes,
    stat_beneath,
    unlink,
    walk,
    write_atomic,
)

__all__ = ["Entry", "Escape", "NotRegular", "create_new", "fd_path", "open_beneath", "open_dir",
           "open_regular", "read_bytes", "resolver", "stat_beneath", "unlink", "use", "walk",
           "write_atomic"]
