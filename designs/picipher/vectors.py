"""Reader for the official π-Cipher test-vector files (CAESAR / SUPERCOP record format), π16, π32
and π64.

Record format (``shared/vectors/picipher/PI16CIPHER.md``)::

    # comment lines
    [msg_len = 0]                 section markers (ignored)
    [vector #1 (1)]               starts a record
    KEY (12) = 2DAF0E1D...        field NAME (byte count) = hex (empty when the count is 0)
    NPUB (4) = ...                PMN (4 bytes for π16, 16 for π32/π64)
    NSEC (16) = ...               SMN, one block (16/32/64 bytes); absent, or count 0, when there is none
    MSG (0) =
    AD (0) =
    CIPHER (32) = ...             [C0 if NSEC] || C || tag (tag 16/32/64 bytes)

The word size of a record follows from its sizes: a 4-byte NPUB is π16 (the only variant with a
32-bit PMN); otherwise the SMN, or without one CIPHER minus MSG (the tag), is 32 bytes for π32 and
64 for π64 (one block = one tag = 8 words of ω bits). Official files are checked against
``SHA256SUMS`` before use (upstream hashes for π16; for the π32/π64 files, which keep the sections
with an empty AD or an empty message, the hashes of those files as copied, ``testvectors/SOURCES.md``).

Files are read as untrusted input by the one vector-file reader (:mod:`dcsflow.vectorfile`: size
limit, UTF-8 checked, counts bounded by each field's largest size before conversion); a message
names the file, the line and the reason, never the line's text.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from dcsflow.fileio import TEXT_LIMIT, open_input
from dcsflow.vectorfile import MAX_COUNT, decimal, read_text, text_lines

from .errors import ChecksumError, VectorFileError
from .model import KEY_SIZES, PMN_SIZES, WORD_BITS, cipher

#: File names of the official π16 vectors by key size in bits (byte copies of ``shared/vectors/picipher``).
OFFICIAL_FILES = {96: "pi16cipher096v2_4.test-vectors", 128: "pi16cipher128v2_4.test-vectors"}
#: File names of the official vectors of every word size: (word bits, key bits) → file name.
OFFICIAL = {(16, 96): OFFICIAL_FILES[96], (16, 128): OFFICIAL_FILES[128],
            (32, 128): "pi32cipher128v2_16.noad-or-nomsg.test-vectors",
            (32, 256): "pi32cipher256v2_16.noad-or-nomsg.test-vectors",
            (64, 128): "pi64cipher128v2_16.noad-or-nomsg.test-vectors",
            (64, 256): "pi64cipher256v2_16.noad-or-nomsg.test-vectors"}
#: Folder of the official vectors in this design's package (with SHA256SUMS and SOURCES.md).
VECTOR_DIR = Path(__file__).resolve().parent / "testvectors"

_FIELD = re.compile(r"([A-Z]+) \(([0-9]+)\) =[ \t]*([0-9A-Fa-f]*)[ \t]*")
_VECTOR = re.compile(r"\[vector #([0-9]+) \(([0-9]+)\)\]")
_SECTION = re.compile(r"\[(msg_len|ad_len) = [0-9]+\]")
_REQUIRED = ("KEY", "NPUB", "MSG", "AD", "CIPHER")
_KNOWN = set(_REQUIRED) | {"NSEC"}
#: the largest byte count each field may declare: the largest key, PMN and SMN of any word size;
#: messages, associated data and ciphertexts as large as a vector file
_MAX_BYTES = {"KEY": 32, "NPUB": 16, "NSEC": 64, "MSG": TEXT_LIMIT, "AD": TEXT_LIMIT, "CIPHER": TEXT_LIMIT}


@dataclass(frozen=True)
class Vector:
    """One official test vector.

    Attributes:
        number: the record's number (``[vector #N ...]``).
        key: π16 12 or 16 bytes, π32/π64 16 or 32 bytes; pmn: 4 (π16) or 16 bytes; smn: one block
            (16/32/64 bytes) or None; msg, ad: bytes.
        cipher: the CIPHER field: [C0 (one block) if smn] ‖ C ‖ tag (16/32/64 bytes).
        line: line number of the record header in its file (1-based).
        word_bits: ω of the record's cipher, 16, 32 or 64.
    """

    number: int
    key: bytes
    pmn: bytes
    smn: bytes | None
    msg: bytes
    ad: bytes
    cipher: bytes
    line: int
    word_bits: int = 16

    @property
    def key_bits(self) -> int:
        """Key size in bits (96 or 128 for π16, 128 or 256 for π32/π64)."""
        return 8 * len(self.key)

    @property
    def tag_bytes(self) -> int:
        """Tag size in bytes: 8 words of ω bits (16, 32 or 64)."""
        return self.word_bits

    @property
    def tag(self) -> bytes:
        """The tag (last :attr:`tag_bytes` bytes of CIPHER)."""
        return self.cipher[-self.tag_bytes:]

    @property
    def ciphertext(self) -> bytes:
        """C: the message ciphertext, without C0 and tag."""
        start = self.tag_bytes if self.smn is not None else 0
        return self.cipher[start:-self.tag_bytes]


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 digest of a file."""
    h = hashlib.sha256()
    with open_input(path, TEXT_LIMIT) as f:        # a regular file (never waits on a FIFO)
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_sums(sums: str | Path) -> dict[str, str]:
    """Parse a ``sha256sum`` listing: {file name: hex digest}.

    Raises:
        VectorFileError: a malformed line (file name and line number in the message).
    """
    out = {}
    for n, line in enumerate(text_lines(read_text(sums, VectorFileError, "checksum list")), start=1):
        if not line.strip():
            continue
        m = re.fullmatch(r"([0-9a-fA-F]{64}) [ *](.+)", line)
        if not m:
            raise VectorFileError(f"{sums}:{n}: not a sha256sum line (64 hex digits, a space, a file name)")
        out[Path(m[2]).name] = m[1].lower()
    return out


def verify_checksum(path: str | Path, sums: str | Path | None = None) -> str:
    """Check a vector file against ``SHA256SUMS`` (default: the one beside the file).

    Returns:
        the file's hex SHA-256.
    Raises:
        ChecksumError: the file is not listed, or its digest differs.
        VectorFileError: SHA256SUMS is malformed.
    """
    path = Path(path)
    sums = Path(sums) if sums is not None else path.parent / "SHA256SUMS"
    listed = read_sums(sums)
    if path.name not in listed:
        raise ChecksumError(f"{path}: not listed in {sums}")
    digest = sha256_file(path)
    if digest != listed[path.name]:
        raise ChecksumError(f"{path}: SHA-256 {digest} differs from {listed[path.name]} in {sums} "
                            "(file damaged or replaced)")
    return digest


def read_vectors(path: str | Path, check: bool | None = None, word_bits: int | None = None) -> list[Vector]:
    """Read a vector file in the official record format.

    Args:
        path: the file.
        check: verify the SHA-256 against ``SHA256SUMS`` beside the file first. ``None`` (default):
            verify when such a SHA256SUMS exists and lists this file name.
        word_bits: the word size every record must have (16, 32, 64), or None for any.
    Returns:
        the records, in file order.
    Raises:
        VectorFileError: unreadable or malformed file (``file:line: what``).
        ChecksumError: the checksum does not match.
    """
    path = Path(path)
    if not os.path.lexists(path):
        raise VectorFileError(f"{path}: vector file not found")
    sums = path.parent / "SHA256SUMS"
    if check is None:
        check = sums.is_file() and path.name in read_sums(sums)
    if check:
        verify_checksum(path, sums)
    return parse_vectors(read_text(path, VectorFileError), str(path), word_bits)


def _word_bits(f: dict) -> int | None:
    """The word size a record's field sizes imply (module docstring), None if they fit none."""
    if len(f["NPUB"]) == PMN_SIZES[16]:
        return 16
    smn = f.get("NSEC")
    n = len(smn) if smn else len(f["CIPHER"]) - len(f["MSG"])
    return n if n in WORD_BITS else None


def parse_vectors(text: str, name: str = "<text>", word_bits: int | None = None) -> list[Vector]:
    """Parse the record format from a string; ``name`` is used in error messages.

    Args:
        word_bits: the word size every record must have (16, 32, 64), or None for any.
    Raises:
        VectorFileError: ``name:line: what`` for the first malformed line or incomplete record
            (sizes that fit no word size, or not ``word_bits``).
    """
    out: list[Vector] = []
    cur: dict | None = None

    def _finish(end_line: int):
        if cur is None:
            return
        missing = [f for f in _REQUIRED if f not in cur["f"]]
        if missing:
            raise VectorFileError(f"{name}:{cur['line']}: vector #{cur['num']} lacks field(s) "
                                  f"{', '.join(missing)} (record ends at line {end_line})")
        f = cur["f"]
        key, pmn, smn = f["KEY"], f["NPUB"], f.get("NSEC") or None
        where = f"{name}:{cur['line']}: vector #{cur['num']}"
        w = word_bits or _word_bits(f)
        if w is None:
            raise VectorFileError(f"{where}: field sizes fit no π-Cipher word size (NPUB {len(pmn)}, "
                                  f"NSEC {len(smn or b'')}, CIPHER {len(f['CIPHER'])} bytes for MSG "
                                  f"{len(f['MSG'])} bytes)")
        c = cipher(w)
        keys = " or ".join(map(str, KEY_SIZES[w]))
        if len(key) not in c.key_bytes:
            raise VectorFileError(f"{where}: KEY must be {keys} bytes for {c.name}, got {len(key)}")
        if len(pmn) != c.pmn_bytes:
            raise VectorFileError(f"{where}: NPUB must be {c.pmn_bytes} bytes for {c.name}, got {len(pmn)}")
        if smn is not None and len(smn) != c.smn_bytes:
            raise VectorFileError(f"{where}: NSEC must be 0 or {c.smn_bytes} bytes for {c.name}, got {len(smn)}")
        want = len(f["MSG"]) + c.tag_bytes + (c.smn_bytes if smn else 0)
        if len(f["CIPHER"]) != want:
            raise VectorFileError(f"{where}: CIPHER must be {want} bytes, got {len(f['CIPHER'])}")
        out.append(Vector(cur["num"], key, pmn, smn, f["MSG"], f["AD"], f["CIPHER"], cur["line"], w))

    lines = text_lines(text)
    for n, raw in enumerate(lines, start=1):
        line = raw.strip(" \t\r")
        if not line or line.startswith("#") or _SECTION.fullmatch(line):
            continue
        m = _VECTOR.fullmatch(line)
        if m:
            _finish(n - 1)
            num = decimal(m[1], f"{name}:{n}", "the vector number", VectorFileError, MAX_COUNT)
            decimal(m[2], f"{name}:{n}", "the vector's count", VectorFileError, MAX_COUNT)
            cur = {"num": num, "line": n, "f": {}}
            continue
        m = _FIELD.fullmatch(line)
        if not m:
            # not quoted: a record line holds a key, and a malformed one may be a key with a typo
            raise VectorFileError(f"{name}:{n}: not a vector record line (expected '[vector #N (M)]' or "
                                  "'FIELD (BYTES) = HEX')")
        if cur is None:
            raise VectorFileError(f"{name}:{n}: field outside a [vector #N (M)] record")
        fname, hexs = m[1], m[3]
        if fname not in _KNOWN:
            # not named: an unknown name may be a key with a typo
            raise VectorFileError(f"{name}:{n}: unknown field (known: {', '.join(sorted(_KNOWN))})")
        count = decimal(m[2], f"{name}:{n}", f"the byte count of {fname}", VectorFileError, _MAX_BYTES[fname])
        if fname in cur["f"]:
            raise VectorFileError(f"{name}:{n}: field {fname} given twice")
        if len(hexs) != 2 * count:
            raise VectorFileError(f"{name}:{n}: {fname} declares {count} bytes but has "
                                  f"{len(hexs)} hex digits (expected {2 * count})")
        cur["f"][fname] = bytes.fromhex(hexs)
    _finish(len(lines))
    return out


def official_file(key_bits: int, word_bits: int = 16) -> Path:
    """Path of the official vector file for a word size and key size, shipped in :data:`VECTOR_DIR`
    (π16: key 96 or 128 bits; π32/π64: 128 or 256).

    Raises:
        ValueError: no official file of that word/key size. VectorFileError: the file is missing
            from the package (the message names the path).
    """
    if (word_bits, key_bits) not in OFFICIAL:
        sizes = " or ".join(str(k) for w, k in OFFICIAL if w == word_bits) or "none"
        raise ValueError(f"no official π{word_bits}-Cipher vectors for a {key_bits}-bit key "
                         f"(key bits: {sizes})")
    p = VECTOR_DIR / OFFICIAL[(word_bits, key_bits)]
    if not p.is_file():
        raise VectorFileError(f"official vectors missing from the package: {p} (reinstall dcsflow)")
    return p


def load_official(key_bits: int, word_bits: int = 16) -> list[Vector]:
    """Read the official vectors of a word size and key size after checking their SHA-256 (always
    checked).

    Raises:
        ChecksumError, VectorFileError; ValueError (as :func:`official_file`).
    """
    p = official_file(key_bits, word_bits)
    return read_vectors(p, check=True, word_bits=word_bits)
