"""Atomic file output: never leave a partly written file looking valid, never destroy a user's file.

Every output of the flow is written to a temporary file in the destination folder and renamed over
the destination only once complete (``os.replace`` is atomic on POSIX); on any error, including an
interrupt (``KeyboardInterrupt``, or ``SystemExit`` raised by a signal handler), the temporary file is
removed. :func:`write_files_atomic` writes several files as a group: all temporaries first, the
renames last, so a failure while writing leaves every destination as it was.

The destination is checked first (:func:`check_output_file`): a folder, a device, FIFO or socket,
a file where a folder is expected, or a file that is also an input of the command is refused with
an :class:`OutputError` — an ``OSError`` whose message is one line naming the path and the reason,
and which the command lines print as ``error: ...`` (``user_error = True``). A destination that is a
symbolic link is replaced by the new file: the rename replaces the link itself, its target is left as
it was, so an output never writes through a link to a file elsewhere (a user's file planted as
``report.html`` in a build folder stays unchanged). Text is written as UTF-8, names that are not
UTF-8 (surrogate escapes, as the file system gives them) pass through as their original bytes.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterable, Iterator, Mapping


class OutputError(OSError):
    """An output path cannot be written: the message names the path and the reason (one line).

    ``filename`` is the output path the user gave; ``strerror`` the reason (e.g. "is a folder",
    "Permission denied"). A user error (``user_error = True``): the command lines print it as
    ``error: ...`` with exit status 1.
    """

    user_error = True

    def __init__(self, path, reason: str, err: int = errno.EIO):
        super().__init__(err, reason, str(path))

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """True if paths ``a`` and ``b`` name the same file: the same inode when both exist (hard and
    symbolic links, ``..``), else the same resolved path."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _first_existing_parent(path: Path) -> tuple[Path, list[Path]]:
    """The nearest existing ancestor of ``path`` and the missing folders below it (outermost first)."""
    missing = []
    p = path.parent
    while not os.path.lexists(p) and p != p.parent:
        missing.append(p)
        p = p.parent
    return p, list(reversed(missing))


def check_output_file(path: str | os.PathLike, inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """Check that ``path`` can be (re)written as a regular file; return the path to write (``path``
    itself: a symbolic link there is replaced by the new file, its target is never written).

    Refused (:class:`OutputError`): ``path`` is a folder, a device, FIFO or socket (also through a
    symbolic link); an ancestor is a file, not a folder; ``path`` names the same file as one of ``inputs`` (also through links
    or ``..``). Missing parent folders are fine (created on writing).
    """
    p = Path(path)
    for i in inputs:
        if same_file(p, i):
            raise OutputError(p, f"it is also an input of this command ({i})", errno.EINVAL)
    real = p
    try:
        st = os.stat(real)           # a link to a folder or a device is refused like one
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        st = None
    except OSError as e:
        raise OutputError(p, _reason(e), e.errno or errno.EIO) from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise OutputError(p, "it is a folder", errno.EISDIR)
        if not stat.S_ISREG(st.st_mode):
            raise OutputError(p, "it is not a regular file (a device, FIFO or socket)", errno.EINVAL)
    parent, _ = _first_existing_parent(real)
    if not parent.is_dir():
        raise OutputError(p, f"{parent} is a file, not a folder", errno.ENOTDIR)
    return real


def check_output_dir(path: str | os.PathLike, inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """Check that ``path`` is, or can be created as, a folder for output files; return it.

    Refused (:class:`OutputError`): ``path`` or an ancestor is a file, or ``path`` is one of
    ``inputs`` (a folder that is also an input).
    """
    p = Path(path)
    for i in inputs:
        if same_file(p, i):
            raise OutputError(p, f"it is also an input of this command ({i})", errno.EINVAL)
    if os.path.lexists(p):
        if not p.is_dir():
            raise OutputError(p, "it is a file, not a folder", errno.ENOTDIR)
        return p
    parent, _ = _first_existing_parent(p / "x")
    if not parent.is_dir():
        raise OutputError(p, f"{parent} is a file, not a folder", errno.ENOTDIR)
    return p


def make_output_dir(path: str | os.PathLike, inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """:func:`check_output_dir`, then create the folder (and its parents). Raises OutputError."""
    p = check_output_dir(path, inputs)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(p, _reason(e), e.errno or errno.EIO) from None
    return p


def _temp_beside(dest: Path, shown: Path, private: bool) -> tuple[int, str]:
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    except OSError as e:
        raise OutputError(shown, _reason(e), e.errno or errno.EIO) from None
    try:
        os.fchmod(fd, 0o600 if private else 0o644)
    except OSError:
        os.close(fd)
        os.unlink(tmp)
        raise
    return fd, tmp


def _unlink_quietly(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


@contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", private: bool = False,
                inputs: Iterable[str | os.PathLike] = ()) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on normal exit rename it to ``path``, on error (or an
    interrupt) delete it.

    Args:
        path: destination file (checked first, :func:`check_output_file`).
        mode: ``"w"`` (text, UTF-8; surrogate escapes as their original bytes) or ``"wb"``.
        private: create the file with owner-only permissions (0600), for key-dependent outputs.
        inputs: files the command reads: ``path`` may not be one of them.
    Raises:
        OutputError: the destination is refused, or creating, writing or renaming the file failed
            (the message names ``path`` and the reason; nothing is left behind).
    """
    if mode not in ("w", "wb"):
        raise ValueError("atomic_open mode must be 'w' or 'wb'")
    shown = Path(path)
    dest = check_output_file(shown, inputs)
    fd, tmp = _temp_beside(dest, shown, private)
    try:
        try:
            f = os.fdopen(fd, mode, **({"encoding": "utf-8", "errors": "surrogateescape"} if mode == "w" else {}))
        except BaseException:
            os.close(fd)
            raise
        with f:
            yield f
        os.replace(tmp, dest)
    except OSError as e:
        _unlink_quietly(tmp)
        if isinstance(e, OutputError):
            raise
        raise OutputError(shown, _reason(e), e.errno or errno.EIO) from None
    except BaseException:
        _unlink_quietly(tmp)
        raise


def write_text_atomic(path: str | os.PathLike, text: str, private: bool = False,
                      inputs: Iterable[str | os.PathLike] = ()) -> None:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_open`). Raises OutputError."""
    with atomic_open(path, "w", private=private, inputs=inputs) as f:
        f.write(text)


def write_bytes_atomic(path: str | os.PathLike, data: bytes, private: bool = False,
                       inputs: Iterable[str | os.PathLike] = ()) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_open`). Raises OutputError."""
    with atomic_open(path, "wb", private=private, inputs=inputs) as f:
        f.write(data)


def write_files_atomic(files: Mapping[str | os.PathLike, str | bytes], private: bool = False,
                       inputs: Iterable[str | os.PathLike] = ()) -> list[Path]:
    """Write several files as a group: every destination is checked and every temporary written
    before the first rename, so a refused path, a full disk or an interrupt while writing leaves all
    destinations as they were (the renames that follow are atomic one by one). Text is written as
    UTF-8 (surrogate escapes as their original bytes). Returns the destination paths (as given).

    Raises:
        OutputError: a destination refused (:func:`check_output_file`) or not writable.
    """
    inputs = list(inputs)
    plan = [(Path(p), check_output_file(p, inputs), content) for p, content in files.items()]
    done: list[tuple[str, Path, Path]] = []
    try:
        for shown, dest, content in plan:
            fd, tmp = _temp_beside(dest, shown, private)
            done.append((tmp, dest, shown))
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(content.encode("utf-8", "surrogateescape") if isinstance(content, str) else content)
            except OSError as e:
                raise OutputError(shown, _reason(e), e.errno or errno.EIO) from None
        for k, (tmp, dest, shown) in enumerate(done):
            try:
                os.replace(tmp, dest)
            except OSError as e:
                raise OutputError(shown, _reason(e), e.errno or errno.EIO) from None
            done[k] = ("", dest, shown)
    except BaseException:
        for tmp, _, _ in done:
            if tmp:
                _unlink_quietly(tmp)
        raise
    return [shown for shown, _, _ in plan]
