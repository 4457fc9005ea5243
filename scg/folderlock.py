"""The lock of a build folder: one command at a time writes into it.

``dcsflow build`` (for the whole build) and ``dcsflow import`` and ``dcsflow report`` (while they
write) hold an exclusive, non-blocking :func:`fcntl.flock` on the file :data:`LOCK_FILE` in the
build folder. A second writer fails at once with one line naming the folder and the holder's
process id (written into the lock file by the holder). The kernel releases the lock when the
holder's process ends in any way (also SIGKILL), so a killed build never leaves a stale lock: the
file stays, the lock does not. Readers (``rekey``, ``codegen``, ``specialize``, ``check``) do not
lock. The lock file is not an output: ``build.json`` never lists it and the build-folder reader
ignores it.
"""

from __future__ import annotations

import errno
import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .errors import BuildFolderError

try:
    import fcntl
except ImportError:          # not a POSIX system: no lock (the flow and the runtime target Linux)
    fcntl = None

__all__ = ["LOCK_FILE", "FolderInUse", "is_lock_file", "locked_folder"]

#: name of the lock file in a build folder
LOCK_FILE = ".lock"

_CONTENT = re.compile(r"\A(?:(\d+)\n(?:([a-z]+)\n)?)?\Z")


class FolderInUse(BuildFolderError):
    """Another dcsflow command holds the build folder's lock (one line: folder, command, pid)."""


def is_lock_file(path) -> bool:
    """True when ``path`` looks like a lock file this module wrote: a small regular file (not a
    link) that is empty or holds a process id and a command name."""
    p = Path(path)
    try:
        if p.is_symlink() or not p.is_file() or p.stat().st_size > 64:
            return False
        return _CONTENT.match(p.read_text(encoding="ascii")) is not None
    except (OSError, ValueError):
        return False


def _holder(fd: int) -> tuple[str, str]:
    try:
        m = _CONTENT.match(os.pread(fd, 64, 0).decode("ascii"))
    except (OSError, ValueError):
        m = None
    return (m.group(1) or "", m.group(2) or "build") if m else ("", "build")


@contextmanager
def locked_folder(folder, command: str = "build") -> Iterator[None]:
    """Hold the lock of the build folder ``folder`` (which must exist) for the ``with`` block;
    ``command`` (lower-case letters) names the holder in a second writer's message.

    Raises:
        FolderInUse: another process holds it: ``build folder X is in use by another dcsflow
            build (pid N)``.
        BuildFolderError: the lock file cannot be created (e.g. a read-only folder, or a link
            where the lock file should be: never followed).
    """
    if fcntl is None:
        yield
        return
    path = Path(folder) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as e:
        why = "a link, not a file" if e.errno == errno.ELOOP else (e.strerror or str(e))
        raise BuildFolderError(f"{path}: cannot create the build folder's lock file ({why})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise BuildFolderError(f"{path}: cannot lock the build folder ({e.strerror or e})") from None
            pid, cmd = _holder(fd)
            raise FolderInUse(f"build folder {folder} is in use by another dcsflow {cmd}"
                              + (f" (pid {pid})" if pid else "")) from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n{command}\n".encode("ascii"), 0)
        except OSError:
            pass                 # the pid is only for the message: the lock is held all the same
        yield
    finally:
        os.close(fd)
