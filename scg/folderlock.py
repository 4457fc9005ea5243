"""The lock of a build folder: one command at a time writes into it.

``dcsflow build`` (for the whole build) and ``dcsflow import`` and ``dcsflow report`` (while they
write) hold an exclusive, non-blocking :func:`fcntl.flock` on the build folder itself (a descriptor
of the directory, opened read-only): nothing a user can delete inside the folder while it is held
(the file :data:`LOCK_FILE`, every other file and subfolder) releases it, so a second writer fails
at once with one line naming the folder and the holder's process id. The holder writes its process
id and command into :data:`LOCK_FILE` for that message only (a deleted lock file costs the message
its pid, never the lock). The kernel releases the lock when the holder's process ends in any way
(also SIGKILL), so a killed build never leaves a stale lock: the file stays, the lock does not.
Readers (``rekey``, ``codegen``, ``specialize``, ``check``) do not lock. The lock file is not an
output: ``build.json`` never lists it and the build-folder reader ignores it.
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

__all__ = ["LOCK_FILE", "FolderInUse", "is_lock_file", "locked_folder", "check_not_in_use"]

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


def _holder(folder: Path) -> tuple[str, str]:
    """The holder's pid and command as its lock file says (``""`` and ``build`` when it says nothing
    readable: deleted, replaced, a link)."""
    try:
        fd = os.open(folder / LOCK_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return "", "build"
    try:
        m = _CONTENT.match(os.pread(fd, 64, 0).decode("ascii"))
    except (OSError, ValueError):
        m = None
    finally:
        os.close(fd)
    return (m.group(1) or "", m.group(2) or "build") if m else ("", "build")


def _open_folder(folder: Path) -> int:
    """A read-only descriptor of the directory ``folder`` (the object the lock is held on).

    Raises:
        BuildFolderError: not a directory, or it cannot be opened.
    """
    try:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as e:
        raise BuildFolderError(f"{folder}: cannot open the build folder to lock it ({e.strerror or e})") from None


def _take(fd: int, folder: Path) -> None:
    """Take the exclusive lock on the directory descriptor ``fd`` without waiting.

    Raises:
        FolderInUse: another process holds it. BuildFolderError: the lock cannot be taken otherwise.
    """
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise BuildFolderError(f"{folder}: cannot lock the build folder ({e.strerror or e})") from None
        pid, cmd = _holder(folder)
        raise FolderInUse(f"build folder {folder} is in use by another dcsflow {cmd}"
                          + (f" (pid {pid})" if pid else "")) from None


def check_not_in_use(folder) -> None:
    """Refuse the build folder ``folder`` while another process holds its lock (the lock is taken and
    released at once; a folder that does not exist is not in use).

    Raises:
        FolderInUse: another process holds it (one line naming the folder and the holder's pid).
    """
    if fcntl is None or not Path(folder).is_dir():
        return
    try:
        fd = _open_folder(Path(folder))
    except BuildFolderError:
        return                   # its real use reports why it cannot be used
    try:
        _take(fd, Path(folder))
    finally:
        os.close(fd)             # also releases the lock


@contextmanager
def locked_folder(folder, command: str = "build") -> Iterator[None]:
    """Hold the lock of the build folder ``folder`` (which must exist) for the ``with`` block;
    ``command`` (lower-case letters) names the holder in a second writer's message.

    The lock is an exclusive :func:`fcntl.flock` on a descriptor of the folder itself (module
    docstring), so deleting files inside the folder never releases it.

    Raises:
        FolderInUse: another process holds it: ``build folder X is in use by another dcsflow
            build (pid N)``.
        BuildFolderError: the folder cannot be opened or locked, or the lock file cannot be created
            (e.g. a read-only folder, or a link where the lock file should be: never followed).
    """
    if fcntl is None:
        yield
        return
    folder_path = Path(folder)
    dfd = _open_folder(folder_path)
    try:
        _take(dfd, folder_path)
        path = folder_path / LOCK_FILE
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o644)
        except OSError as e:
            why = "a link, not a file" if e.errno == errno.ELOOP else (e.strerror or str(e))
            raise BuildFolderError(f"{path}: cannot create the build folder's lock file ({why})") from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n{command}\n".encode("ascii"), 0)
        except OSError:
            pass                 # the pid is only for the message: the lock is held all the same
        finally:
            os.close(fd)
        yield
    finally:
        os.close(dfd)            # releases the lock
