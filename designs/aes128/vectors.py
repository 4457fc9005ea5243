"""NIST CAVP AES-128 ECB known-answer vectors, read from the ``cryptography_vectors`` package.

Source: the AESAVS KAT response files ``ECBGFSbox128.rsp``, ``ECBKeySbox128.rsp``,
``ECBVarKey128.rsp``, ``ECBVarTxt128.rsp`` (NIST CAVS 11.1, "AES Known Answer Test (KAT)
Vectors", aesavs.pdf appendices B-E) as shipped by the PyPI package ``cryptography_vectors`` under
``cryptography_vectors/ciphers/AES/ECB/``. Nothing is retyped: the files are parsed at run time.

Response-file format: ``[ENCRYPT]`` / ``[DECRYPT]`` sections; records of ``COUNT = n``,
``KEY = hex``, ``PLAINTEXT = hex``, ``CIPHERTEXT = hex``; ``#`` comments. A file is read as untrusted
input by the one vector-file reader (:mod:`dcsflow.vectorfile`): a message names the file, the line
and the reason, never the line's text (a malformed ``KEY`` line is a key).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from dcsflow.fileio import package_folder
from dcsflow.vectorfile import decimal, hex_bytes, read_text, text_lines

from .errors import VectorFileError

#: the four KAT files, in the order they are run
KAT_FILES = ("ECBGFSbox128.rsp", "ECBKeySbox128.rsp", "ECBVarKey128.rsp", "ECBVarTxt128.rsp")

_LINE = re.compile(r"(COUNT|KEY|PLAINTEXT|CIPHERTEXT)[ \t]*=[ \t]*([0-9A-Fa-f]*)")


@dataclass(frozen=True)
class Vector:
    """One known-answer vector: ``source`` = "<file>:<section>:<COUNT>", 16-byte key/plaintext/ciphertext."""

    source: str
    key: bytes
    plaintext: bytes
    ciphertext: bytes


def kat_dir() -> Path:
    """Folder of the AES ECB response files inside the installed ``cryptography_vectors``.

    Raises:
        VectorFileError: the package is not installed.
    """
    return package_folder("cryptography_vectors", "ciphers", "AES", "ECB", error=VectorFileError,
                          need="the NIST CAVP AES vectors")


def read_rsp(path: str | Path, section: str = "ENCRYPT") -> list[Vector]:
    """Records of one CAVP response file in ``[section]`` (ENCRYPT or DECRYPT).

    Raises:
        VectorFileError: unreadable file (not a regular file, too large, not UTF-8), a line that is
            not a record line, a field that is not 16 bytes of hex, a COUNT that is not a number up
            to 10^9, an incomplete record (one line ``file:line: reason``).
    """
    path = Path(path)
    lines = text_lines(read_text(path, VectorFileError))
    out: list[Vector] = []
    cur: dict = {}
    sec = None

    def flush(lineno: int) -> None:
        if not cur:
            return
        if set(cur) != {"COUNT", "KEY", "PLAINTEXT", "CIPHERTEXT"}:
            raise VectorFileError(f"{path}:{lineno}: incomplete record (have {', '.join(sorted(cur))})")
        if sec == section:
            out.append(Vector(f"{path.name}:{sec}:{cur['COUNT']}",
                              cur["KEY"], cur["PLAINTEXT"], cur["CIPHERTEXT"]))
        cur.clear()

    for n, line in enumerate(lines, 1):
        t = line.strip(" \t\r")
        if not t or t.startswith("#"):
            if not t:
                flush(n)
            continue
        if t.startswith("[") and t.endswith("]"):
            flush(n)
            sec = t[1:-1]
            continue
        m = _LINE.fullmatch(t)
        if not m:
            raise VectorFileError(f"{path}:{n}: not a record line (COUNT, KEY, PLAINTEXT or CIPHERTEXT = hex)")
        k, v = m.groups()
        if k == "COUNT":
            flush(n)
            cur[k] = decimal(v, f"{path}:{n}", "COUNT", VectorFileError)
        else:
            if len(v) != 32:
                raise VectorFileError(f"{path}:{n}: {k} must be 32 hex digits, got {len(v)}")
            cur[k] = hex_bytes(v, f"{path}:{n}", k, VectorFileError, 16)
    flush(len(lines))
    return out


def load_kat(files=KAT_FILES, section: str = "ENCRYPT") -> list[Vector]:
    """All records of the KAT files (default: the four AES-128 ECB KAT files, 284 encryption vectors)."""
    d = kat_dir()
    out: list[Vector] = []
    for f in files:
        out += read_rsp(d / f, section)
    return out
