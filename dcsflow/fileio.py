"""Atomic file output: never leave a partly written file looking valid.

Every output of the flow is written to a temporary file in the destination folder and renamed over
the destination only once complete (``os.replace`` is atomic on POSIX).
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator


@contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", private: bool = False) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on normal exit rename it to ``path``, on error delete it.

    Args:
        path: destination file.
        mode: ``"w"`` (text, UTF-8) or ``"wb"``.
        private: create the file with owner-only permissions (0600), for key-dependent outputs.
    """
    if mode not in ("w", "wb"):
        raise ValueError("atomic_open mode must be 'w' or 'wb'")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o600 if private else 0o644)
        with os.fdopen(fd, mode, **({"encoding": "utf-8"} if mode == "w" else {})) as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_text_atomic(path: str | os.PathLike, text: str, private: bool = False) -> None:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_open`)."""
    with atomic_open(path, "w", private=private) as f:
        f.write(text)


def write_bytes_atomic(path: str | os.PathLike, data: bytes, private: bool = False) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_open`)."""
    with atomic_open(path, "wb", private=private) as f:
        f.write(data)
