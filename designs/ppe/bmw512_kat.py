"""Reader for the BMW-512 known-answer file ``vectors/ShortMsgKAT_BMW512.txt`` (NIST SHA-3 KAT format).

Format (one record per message, blank lines between records, ``#`` comment lines)::

    Len = 8                      message length in bits (this file: byte-aligned only)
    Msg = CC                     the message in hex; for Len = 0 it is "00" and means the empty message
    MD = 0309CD7A...             the 64-byte digest in hex

The packaged file is a byte copy of ``shared/vectors/bmw/ShortMsgKAT_BMW512.txt`` (``vectors/SOURCES.md``)
and is checked against ``vectors/SHA256SUMS`` before use. A file is read as untrusted input by the
one vector-file reader (:mod:`dcsflow.vectorfile`: size limit, UTF-8 checked, ``Len`` bounded before
conversion); a message names the file, the line and the reason, never the line's text. Standard
library only.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from dcsflow.fileio import TEXT_LIMIT, read_input_bytes
from dcsflow.vectorfile import decimal, read_text, text_lines

#: Folder of the packaged vectors (with SHA256SUMS and SOURCES.md).
VECTOR_DIR = Path(__file__).resolve().parent / "vectors"
#: File name of the packaged KAT file.
KAT_FILE = "ShortMsgKAT_BMW512.txt"
#: Digest size in bytes.
MD_BYTES = 64

_LINE = re.compile(r"(Len|Msg|MD)[ \t]*=[ \t]*([0-9A-Fa-f]+)")
#: the largest ``Len`` (bits) a record may give: as many bits as a KAT file holds
_MAX_BITS = 8 * TEXT_LIMIT
_ORDER = ("Len", "Msg", "MD")


class KatFormatError(ValueError):
    """The KAT file is malformed; the message names the file, the line number and what is wrong.
    ``user_error``: the command lines print it as one line ``error: ...``."""

    user_error = True


class ChecksumError(ValueError):
    """A packaged vector file does not match its SHA256SUMS entry (or has none). ``user_error``: one
    line ``error: ...``."""

    user_error = True


@dataclass(frozen=True)
class KatRecord:
    """One known answer.

    Attributes:
        bits: message length in bits (a multiple of 8). msg: the message (bits // 8 bytes).
        md: the expected digest, 64 bytes. line: line number of ``Len =`` in its file (1-based).
    """

    bits: int
    msg: bytes
    md: bytes
    line: int


def parse_kat(text: str, name: str = "<text>") -> list[KatRecord]:
    """Parse KAT text into records, checking every line.

    Args:
        text: the file's content. name: the file name used in error messages.
    Returns:
        the records in file order.
    Raises:
        KatFormatError: an unknown line, a field out of order (each record is Len, Msg, MD), a record
        cut short, Len not a multiple of 8, Msg of the wrong length (Len = 0 needs Msg = 00), MD not
        64 bytes, a duplicate Len, or no record at all.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_kat() takes the file's text (str), got {type(text).__name__}")
    records: list[KatRecord] = []
    seen: dict[int, int] = {}
    fields: dict[str, str] = {}
    start = 0
    for n, raw in enumerate(text_lines(text), start=1):
        line = raw.strip(" \t\r")
        if not line or line.startswith("#"):
            continue
        m = _LINE.fullmatch(line)
        if m is None:
            raise KatFormatError(f"{name}:{n}: not a 'Len = <decimal>', 'Msg = <hex>' or 'MD = <hex>' line")
        key, value = m.groups()
        want = _ORDER[len(fields)]
        if key != want:
            raise KatFormatError(f"{name}:{n}: expected '{want} =' (records are Len, Msg, MD), got '{key} ='")
        if key == "Len":
            start = n
        fields[key] = value
        if key == "MD":
            records.append(_record(fields, start, n, name, seen))
            fields = {}
    if fields:
        raise KatFormatError(f"{name}:{start}: record cut short: has {', '.join(fields)} but no "
                             f"{_ORDER[len(fields)]}")
    if not records:
        raise KatFormatError(f"{name}: no records (Len = / Msg = / MD = lines)")
    return records


def _record(fields, start, n, name, seen) -> KatRecord:
    if not fields["Len"].isdigit():
        raise KatFormatError(f"{name}:{start}: Len must be a decimal number of bits")
    bits = decimal(fields["Len"], f"{name}:{start}", "Len", KatFormatError, _MAX_BITS)
    if bits % 8:
        raise KatFormatError(f"{name}:{start}: Len = {bits} is not a whole number of bytes")
    if bits in seen:
        raise KatFormatError(f"{name}:{start}: Len = {bits} again (first at line {seen[bits]})")
    seen[bits] = start
    msg_hex = fields["Msg"]
    if len(msg_hex) % 2:
        raise KatFormatError(f"{name}:{start + 1}: Msg has an odd number of hex digits")
    msg = bytes.fromhex(msg_hex)
    if bits == 0:
        if msg != b"\x00":
            raise KatFormatError(f"{name}:{start + 1}: Len = 0 needs 'Msg = 00' (the empty message)")
        msg = b""
    elif len(msg) != bits // 8:
        raise KatFormatError(f"{name}:{start + 1}: Len = {bits} needs {bits // 8} bytes of Msg, "
                             f"got {len(msg)}")
    if len(fields["MD"]) != 2 * MD_BYTES:
        raise KatFormatError(f"{name}:{n}: MD must be {MD_BYTES} bytes ({2 * MD_BYTES} hex digits), "
                             f"got {len(fields['MD'])} hex digits")
    return KatRecord(bits, msg, bytes.fromhex(fields["MD"]), start)


def sha256_file(path: str | Path) -> str:
    """SHA-256 of a file, lowercase hex."""
    return hashlib.sha256(read_input_bytes(path, TEXT_LIMIT, "KAT file")).hexdigest()


def check_sha256(path: str | Path) -> None:
    """Check a file against the ``SHA256SUMS`` beside it.

    Raises:
        ChecksumError: no SHA256SUMS, no entry for the file, or a different hash.
    """
    path = Path(path)
    sums = path.parent / "SHA256SUMS"
    if not sums.is_file():
        raise ChecksumError(f"{sums} is missing: cannot check {path.name}")
    want = None
    for line in text_lines(read_text(sums, ChecksumError, "checksum list")):
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("*") == path.name:
            want = parts[0].lower()
    if want is None:
        raise ChecksumError(f"{sums} has no entry for {path.name}")
    got = sha256_file(path)
    if got != want:
        raise ChecksumError(f"{path} has SHA-256 {got}, but {sums} says {want}: the file was changed")


def kat_path() -> Path:
    """The packaged KAT file, after checking it against ``vectors/SHA256SUMS``.

    Raises:
        FileNotFoundError: the file is missing. ChecksumError: its hash is wrong.
    """
    path = VECTOR_DIR / KAT_FILE
    if not path.is_file():
        raise FileNotFoundError(f"BMW-512 KAT file missing: {path}")
    check_sha256(path)
    return path


def load_kat(path: str | Path | None = None) -> list[KatRecord]:
    """Read and parse a KAT file (default: the packaged, SHA-256-checked one).

    Raises:
        KatFormatError, ChecksumError, FileNotFoundError: see :func:`parse_kat`, :func:`kat_path`.
    """
    p = kat_path() if path is None else Path(path)
    return parse_kat(read_text(p, KatFormatError, "KAT file"), str(p))
