"""The one reader of the designs' vector files: known-answer records in text form, read as untrusted input.

Every design's vector reader (π-Cipher records, NIST CAVP ``.rsp`` files of AES, CMAC, GCM, SHA-3
and KMAC, Lake Keyak, the BMW-512 KAT file) reads its file through :func:`read_text` and converts its
fields with :func:`decimal` and :func:`hex_bytes`:

- the file is a regular file of at most ``limit`` bytes (:func:`dcsflow.fileio.read_input_bytes`:
  a FIFO or device is refused, never waited on), optionally of a known SHA-256;
- its text is UTF-8, checked as a whole: the first byte that is not names its line and column;
  lines end at ``\\n`` only (a ``\\r`` before it is dropped), so line numbers are those of an editor;
- a number is ASCII digits, and its digits are counted against the field's declared largest value
  before it is converted (a 5,000-digit count is refused in one line, never handed to ``int``);
- hex data is ASCII hex digits in pairs, its length checked against the field's largest size first;
- every message is ``file:line: reason`` (or ``file: reason``) naming the field by the reader's
  own name for it: never the line's text, a value, or a field name taken from the file, since a
  malformed line may be a key with a typo, a key-like field or a program.

Each reader raises its design's own error class (``error``, constructed with the message alone).
Standard library only (the core layer).
"""

from __future__ import annotations

import hashlib
import os
import re

from .fileio import TEXT_LIMIT, read_input_bytes

__all__ = ["read_text", "decode_text", "text_lines", "decimal", "hex_bytes", "MAX_COUNT"]

#: the largest record number or count a vector file may give (``COUNT = n``, ``[vector #n]``)
MAX_COUNT = 10 ** 9

_HEX = re.compile(r"[0-9A-Fa-f]*")


def decode_text(data: bytes, name: str, error: type[Exception]) -> str:
    """``data`` as UTF-8 text with ``\\r\\n`` line ends made ``\\n``.

    Raises:
        error: ``name:LINE: not UTF-8 text (column C)`` at the first byte that is not UTF-8.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise error(f"{name}:{line}: not UTF-8 text (column {column})") from None
    return text.replace("\r\n", "\n")


def read_text(path: str | os.PathLike, error: type[Exception], what: str = "vector file", limit: int = TEXT_LIMIT,
              sha256: str | None = None) -> str:
    """The text of the vector file ``path`` (module docstring): a regular file of at most ``limit``
    bytes, UTF-8 (:func:`decode_text`), with the SHA-256 ``sha256`` (hex) when given.

    Raises:
        error: one line naming the file: missing, unreadable, not a regular file, too large, a
            SHA-256 that differs, not UTF-8 (with the line and column of the first bad byte).
    """
    p = os.fspath(path)
    try:
        data = read_input_bytes(p, limit, what)
    except FileNotFoundError:
        raise error(f"{p}: no such {what}") from None
    except OSError as e:               # also dcsflow.fileio.InputError: not a regular file, too large
        reason = e.strerror or str(e)
        raise error(reason if reason.startswith(p) else f"{p}: {reason}") from None
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256.lower():
        raise error(f"{p}: SHA-256 differs from the one recorded for it ({sha256[:16]}...): changed or replaced")
    return decode_text(data, p, error)


def text_lines(text: str) -> list[str]:
    """The lines of ``text`` split at ``\\n`` only (as :func:`decode_text` numbers them)."""
    return text.split("\n")


def decimal(value: str, where: str, field: str, error: type[Exception], maximum: int = MAX_COUNT) -> int:
    """The decimal number ``value`` of field ``field`` (ASCII digits; leading zeros allowed), at
    most ``maximum``: its digits are counted before it is converted. ``where`` is ``file:line``.

    Raises:
        error: ``where: field is not a decimal number`` / ``... is larger than MAXIMUM`` (the value
            itself is never quoted).
    """
    if not value or not value.isascii() or not value.isdigit():
        raise error(f"{where}: {field} is not a decimal number")
    digits = value.lstrip("0") or "0"
    if len(digits) > len(str(maximum)) or int(digits) > maximum:
        raise error(f"{where}: {field} is larger than {maximum}")
    return int(digits)


def hex_bytes(value: str, where: str, field: str, error: type[Exception], max_bytes: int = TEXT_LIMIT) -> bytes:
    """The bytes written as hex digits ``value`` of field ``field`` (ASCII, two digits per byte,
    may be empty), at most ``max_bytes`` of them: the length is checked before the conversion.

    Raises:
        error: ``where: field is longer than N bytes`` / ``... is not a hex byte string``.
    """
    if len(value) > 2 * max_bytes:
        raise error(f"{where}: {field} is longer than {max_bytes} bytes")
    if len(value) % 2 or not value.isascii() or not _HEX.fullmatch(value):
        raise error(f"{where}: {field} is not a hex byte string")
    return bytes.fromhex(value)
