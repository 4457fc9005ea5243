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

Input is read by :func:`read_input_bytes`, :func:`read_input_text` and :func:`load_json_file`
(streams: :func:`open_input`): only regular files are opened — a FIFO is opened without blocking
(``O_NONBLOCK``) and refused like a device, socket or folder, so that no reader hangs on a FIFO or
spins on ``/dev/zero`` — and no more than a size limit per kind of file is read
(:data:`JSON_LIMIT`, :data:`NETLIST_LIMIT`, :data:`BITSTREAM_LIMIT`, :data:`TEXT_LIMIT`); JSON
nested deeper than :data:`JSON_MAX_DEPTH` is refused before it is parsed. Each refusal is an
:class:`InputError`: one line naming the path and the reason, printed as ``error: ...``.
"""

from __future__ import annotations

import array
import errno
import fcntl
import itertools
import json
import os
import re
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, BinaryIO, Iterable, Iterator, Mapping


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


class InputError(OSError):
    """An input file is refused: not a regular file, larger than its limit, JSON nested too deeply.

    ``filename`` is the path as given, ``strerror`` the reason (e.g. "it is a FIFO, not a regular
    file"). An ``OSError``, so that a reader's handling of an unreadable file applies to it too; a
    user error (``user_error = True``): the command lines print it as one line ``error: ...`` with
    exit status 1.
    """

    user_error = True

    def __init__(self, path, reason: str, err: int = errno.EINVAL):
        super().__init__(err, reason, str(path))

    def __str__(self) -> str:
        return f"cannot read {self.filename}: {self.strerror}"


#: largest JSON record a reader reads (bytes): build records, manifests, reports, frame maps,
#: stage records. 64 MiB: the largest record of a bundled build is a few MiB.
JSON_LIMIT = 64 << 20
#: largest netlist (Yosys JSON, AIGER, BLIF, frame file ``.frm``) a reader reads (bytes): 256 MiB.
NETLIST_LIMIT = 256 << 20
#: largest bitstream (``.bit``/``.bin``) a reader reads (bytes): 256 MiB; a complete 7-series
#: bitstream is at most about 60 MB (the largest parts), a partial one smaller.
BITSTREAM_LIMIT = 256 << 20
#: largest other text input the flow reads itself (bytes): a project's ``dcsflow.toml``, parameter
#: files, HDL sources read for their parameter marks, vector files. 64 MiB.
TEXT_LIMIT = 64 << 20
#: deepest nesting of arrays and objects :func:`load_json_file` reads: 200 levels. The flow's files
#: nest fewer than 10 levels; deeper input is refused before parsing (Python's parser would run
#: out of stack).
JSON_MAX_DEPTH = 200

_KINDS = ((stat.S_ISDIR, "a folder", errno.EISDIR), (stat.S_ISFIFO, "a FIFO", errno.EINVAL),
          (stat.S_ISCHR, "a character device", errno.EINVAL), (stat.S_ISBLK, "a block device", errno.EINVAL),
          (stat.S_ISSOCK, "a socket", errno.EINVAL))


def _not_regular(path, mode: int, what: str | None) -> InputError:
    for test, kind, err in _KINDS:
        if test(mode):
            break
    else:
        kind, err = "not a regular file", errno.EINVAL
    name = f" ({what})" if what else ""
    return InputError(path, f"it is {kind}, not a regular file{name}", err)


def _too_large(path, limit: int, what: str | None) -> InputError:
    name = f" ({what})" if what else ""
    return InputError(path, f"larger than the limit of {_size(limit)}{name}", errno.EFBIG)


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 and not n & ((1 << 20) - 1) else f"{n} bytes"


def open_input(path: str | os.PathLike, limit: int | None = None, what: str | None = None) -> BinaryIO:
    """Open the input file ``path`` for reading (binary), refusing anything that is not a regular
    file: it is opened with ``O_NONBLOCK`` (a FIFO never blocks the open), then checked with
    ``fstat`` (also through a symbolic link: a link to ``/dev/zero`` is a device).

    Args:
        path: the file.
        limit: refuse a file larger than this many bytes (its size when opened; a reader that must
            not read more than ``limit`` reads at most ``limit + 1`` bytes, :func:`read_input_bytes`).
        what: the kind of file, for the messages (e.g. ``"build manifest"``).
    Returns:
        the open file (blocking mode restored); the caller closes it.
    Raises:
        InputError: a folder, FIFO, device or socket; larger than ``limit``.
        OSError: the file cannot be opened (``FileNotFoundError``, ``PermissionError``, ...).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        if e.errno == errno.ENXIO:        # a socket (or a device without its driver) cannot be opened
            try:
                st = os.stat(path)
            except OSError:
                raise e from None
            raise _not_regular(path, st.st_mode, what) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode, what)
        if limit is not None and st.st_size > limit:
            raise _too_large(path, limit, what)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return open(fd, "rb")          # (not os.fdopen, which the writers use)
    except BaseException:
        os.close(fd)
        raise


def read_input_bytes(path: str | os.PathLike, limit: int, what: str | None = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (:func:`open_input`; at
    most ``limit + 1`` bytes are read, so a file that grows while read is refused too).

    Raises:
        InputError: not a regular file; larger than ``limit`` bytes (the message names the limit).
        OSError: cannot be opened or read.
    """
    with open_input(path, limit, what) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise _too_large(path, limit, what)
    return data


def read_input_text(path: str | os.PathLike, limit: int = TEXT_LIMIT, what: str | None = None,
                    encoding: str = "utf-8", errors: str = "strict") -> str:
    """The text of the regular file ``path`` (:func:`read_input_bytes` decoded with ``encoding``;
    universal newlines as ``Path.read_text``).

    Raises:
        InputError: not a regular file, larger than ``limit`` bytes.
        OSError: cannot be opened or read.
        UnicodeDecodeError: not ``encoding`` (with ``errors="strict"``).
    """
    text = read_input_bytes(path, limit, what).decode(encoding, errors)
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


_KEEP_JSON_TOKENS = bytes(sorted(set(range(256)) - set(b'[]{}"')))
_PLAIN_STRING = re.compile(rb'"[^"]*"')
_DEPTH_STEP = bytes(1 if c in b"[{" else 255 for c in range(256))
#: rounds of :func:`json_depth_exceeds`'s quick pass (each removes at least one level)
_QUICK_ROUNDS = 8


def json_depth_exceeds(data: bytes | str, max_depth: int = JSON_MAX_DEPTH) -> bool:
    """Whether the JSON text ``data`` nests arrays and objects deeper than ``max_depth`` levels
    (brackets inside strings do not count). Time linear in ``len(data)``, by C-speed byte
    operations: escaped quotes and backslashes are removed, then everything but brackets and
    quotes; a quick pass removes, a few rounds long, empty strings and empty containers (adjacent
    pairs, which never pair a bracket inside a string with one outside): when nothing is left, the
    nesting is at most two levels per round. Otherwise the strings are removed and the nesting
    followed bracket by bracket. Malformed text is left to the parser."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if len(data) <= max_depth or len(data) < 1 << 16 and data.count(b"[") + data.count(b"{") <= max_depth:
        return False
    if b'\\"' in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    tokens = data.translate(None, _KEEP_JSON_TOKENS)
    rest = tokens
    for _ in range(min(_QUICK_ROUNDS, max_depth // 2)):
        shorter = rest.replace(b'""', b"").replace(b"[]", b"").replace(b"{}", b"")
        if not shorter:
            return False
        if len(shorter) == len(rest):
            break
        rest = shorter
    del rest
    steps = array.array("b")
    steps.frombytes(_PLAIN_STRING.sub(b"", tokens).translate(_DEPTH_STEP))
    return max(itertools.accumulate(steps), default=0) > max_depth


def loads_json(data: bytes | str, path: str | os.PathLike, max_depth: int = JSON_MAX_DEPTH,
               what: str | None = None) -> Any:
    """``json.loads(data)`` after refusing nesting deeper than ``max_depth`` (:func:`json_depth_exceeds`);
    ``path`` (and ``what``, the kind of input) name the input in the message.

    Raises:
        InputError: nested deeper than ``max_depth`` levels.
        ValueError: not JSON (``json.JSONDecodeError``), not UTF-8.
    """
    if json_depth_exceeds(data, max_depth):
        raise _too_deep(path, max_depth, what)
    try:
        return json.loads(data)
    except RecursionError:        # pragma: no cover - the depth check comes first
        raise _too_deep(path, max_depth, what) from None


def _too_deep(path, max_depth: int, what: str | None) -> InputError:
    name = f" ({what})" if what else ""
    return InputError(path, f"input nested too deeply: JSON deeper than {max_depth} levels{name}")


def load_json_file(path: str | os.PathLike, limit: int = JSON_LIMIT, max_depth: int = JSON_MAX_DEPTH,
                   what: str | None = None) -> Any:
    """The JSON value in the regular file ``path`` (UTF-8, or UTF-16/32 as ``json.loads`` detects),
    read by :func:`read_input_bytes` and parsed by :func:`loads_json`.

    Args:
        path: the file; limit: largest size read (bytes, default :data:`JSON_LIMIT`; netlists:
            :data:`NETLIST_LIMIT`); max_depth: deepest nesting (default :data:`JSON_MAX_DEPTH`);
        what: the kind of file, for the messages.
    Raises:
        InputError: not a regular file, larger than ``limit``, nested deeper than ``max_depth``.
        OSError: cannot be opened or read (``FileNotFoundError`` when missing).
        ValueError: not JSON or not UTF-8 (``json.JSONDecodeError``, ``UnicodeDecodeError``).
    """
    return loads_json(read_input_bytes(path, limit, what), path, max_depth, what)


def package_folder(package: str, *parts: str, error: type[Exception], need: str) -> Path:
    """The folder ``parts`` inside the installed Python package ``package``, e.g. the NIST CAVP
    files that the PyPI package ``cryptography_vectors`` ships (``hashes``, ``ciphers/AES/ECB``,
    ``CMAC``; the test extra installs it). Only the package's location is looked up: the folder
    need not exist.

    Raises:
        ``error`` (one line: ``need`` come from the package, and how to install it): the package
        is not installed.
    """
    import importlib

    try:
        mod = importlib.import_module(package)
    except ImportError:
        raise error(f"{need} come from the Python package {package}: pip install 'dcsflow[test]'") from None
    return Path(mod.__file__).resolve().parent.joinpath(*parts)


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


def _make_parents(folder: Path, made: list[Path]) -> None:
    """Create ``folder`` and its missing ancestors; append each one created to ``made`` (outermost
    first) as soon as it exists, so that a failure later can remove them (:func:`_remove_made`)."""
    todo = []
    p = folder
    while not os.path.lexists(p) and p != p.parent:
        todo.append(p)
        p = p.parent
    for d in reversed(todo):
        try:
            d.mkdir()
        except FileExistsError:
            continue                       # made meanwhile by someone else: not ours to remove
        made.append(d)


def _remove_made(made: list[Path]) -> None:
    """Remove the folders of ``made`` that are still empty, innermost first (a failed write leaves
    no folder it created behind; one that meanwhile holds a file stays)."""
    for d in reversed(made):
        try:
            d.rmdir()
        except OSError:
            pass


def _temp_beside(dest: Path, shown: Path, private: bool, made: list[Path] | None = None) -> tuple[int, str]:
    """A temporary file beside ``dest`` (its folders created; those created listed in ``made``)."""
    made = [] if made is None else made
    try:
        _make_parents(dest.parent, made)
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
                inputs: Iterable[str | os.PathLike] = (), commit: bool = False) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on normal exit rename it to ``path``, on error (or an
    interrupt) delete it.

    Args:
        path: destination file (checked first, :func:`check_output_file`).
        mode: ``"w"`` (text, UTF-8; surrogate escapes as their original bytes) or ``"wb"``.
        private: create the file with owner-only permissions (0600), for key-dependent outputs.
        inputs: files the command reads: ``path`` may not be one of them.
        commit: the file is the command's result (:func:`dcsflow.interrupts.committed`, said just
            before the rename): a signal either comes before it (the command is interrupted, the
            destination left as it was) or is ignored (the command finishes, the file in place).
    Raises:
        OutputError: the destination is refused, or creating, writing or renaming the file failed
            (the message names ``path`` and the reason; nothing is left behind, not even a folder
            it created for the file).
    """
    if mode not in ("w", "wb"):
        raise ValueError("atomic_open mode must be 'w' or 'wb'")
    shown = Path(path)
    dest = check_output_file(shown, inputs)
    made: list[Path] = []
    try:
        fd, tmp = _temp_beside(dest, shown, private, made)
    except BaseException:
        _remove_made(made)
        raise
    try:
        try:
            f = os.fdopen(fd, mode, **({"encoding": "utf-8", "errors": "surrogateescape"} if mode == "w" else {}))
        except BaseException:
            os.close(fd)
            raise
        with f:
            yield f
        if commit:
            from . import interrupts

            interrupts.committed()
            try:
                os.replace(tmp, dest)
            except BaseException:
                interrupts.committed(False)
                raise
        else:
            os.replace(tmp, dest)
    except OSError as e:
        _unlink_quietly(tmp)
        _remove_made(made)
        if isinstance(e, OutputError):
            raise
        raise OutputError(shown, _reason(e), e.errno or errno.EIO) from None
    except BaseException:
        _unlink_quietly(tmp)
        _remove_made(made)
        raise


def write_text_atomic(path: str | os.PathLike, text: str, private: bool = False,
                      inputs: Iterable[str | os.PathLike] = ()) -> None:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_open`). Raises OutputError."""
    with atomic_open(path, "w", private=private, inputs=inputs) as f:
        f.write(text)


def write_bytes_atomic(path: str | os.PathLike, data: bytes, private: bool = False,
                       inputs: Iterable[str | os.PathLike] = (), commit: bool = False) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_open`). Raises OutputError."""
    with atomic_open(path, "wb", private=private, inputs=inputs, commit=commit) as f:
        f.write(data)


def write_files_atomic(files: Mapping[str | os.PathLike, str | bytes], private: bool = False,
                       inputs: Iterable[str | os.PathLike] = ()) -> list[Path]:
    """Write several files as a group: every destination is checked and every temporary written
    before the first rename, so a refused path, a full disk or an interrupt while writing leaves all
    destinations as they were, and no folder the group created (the renames that follow are atomic
    one by one). Text is written as UTF-8 (surrogate escapes as their original bytes). Returns the
    destination paths (as given).

    Raises:
        OutputError: a destination refused (:func:`check_output_file`) or not writable.
    """
    inputs = list(inputs)
    plan = [(Path(p), check_output_file(p, inputs), content) for p, content in files.items()]
    done: list[tuple[str, Path, Path]] = []
    made: list[Path] = []
    try:
        for shown, dest, content in plan:
            fd, tmp = _temp_beside(dest, shown, private, made)
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
        if not any(not tmp for tmp, _, _ in done):     # nothing renamed yet: the folders are ours alone
            _remove_made(made)
        raise
    return [shown for shown, _, _ in plan]
