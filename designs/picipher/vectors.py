"""Reader for the official π16-Cipher test-vector files (CAESAR / SUPERCOP record format).

Record format (``shared/vectors/picipher/PI16CIPHER.md``)::

    # comment lines
    [msg_len = 0]                 section markers (ignored)
    [vector #1 (1)]               starts a record
    KEY (12) = 2DAF0E1D...        field NAME (byte count) = hex (empty when the count is 0)
    NPUB (4) = ...                PMN
    NSEC (16) = ...               SMN (absent, or count 0, when there is none)
    MSG (0) =
    AD (0) =
    CIPHER (32) = ...             [C0 if NSEC] || C || tag

Official files are checked against ``SHA256SUMS`` (upstream hashes) before use.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import ChecksumError, VectorFileError
from .model import KEY_BYTES, PMN_BYTES, SMN_BYTES, TAG_BYTES

#: File names of the official vectors by key size in bits (byte copies of ``shared/vectors/picipher``).
OFFICIAL_FILES = {96: "pi16cipher096v2_4.test-vectors", 128: "pi16cipher128v2_4.test-vectors"}
#: Folder of the official vectors in this design's package (with SHA256SUMS and SOURCES.md).
VECTOR_DIR = Path(__file__).resolve().parent / "testvectors"

_FIELD = re.compile(r"^([A-Z]+) \((\d+)\) =[ \t]*([0-9A-Fa-f]*)[ \t]*$")
_VECTOR = re.compile(r"^\[vector #(\d+) \((\d+)\)\]$")
_SECTION = re.compile(r"^\[(msg_len|ad_len) = \d+\]$")
_REQUIRED = ("KEY", "NPUB", "MSG", "AD", "CIPHER")
_KNOWN = set(_REQUIRED) | {"NSEC"}


@dataclass(frozen=True)
class Vector:
    """One official test vector.

    Attributes:
        number: the record's number (``[vector #N ...]``).
        key: 12 or 16 bytes; pmn: 4 bytes; smn: 16 bytes or None; msg, ad: bytes.
        cipher: the CIPHER field: [C0 (16 B) if smn] ‖ C ‖ tag (16 B).
        line: line number of the record header in its file (1-based).
    """

    number: int
    key: bytes
    pmn: bytes
    smn: bytes | None
    msg: bytes
    ad: bytes
    cipher: bytes
    line: int

    @property
    def key_bits(self) -> int:
        """Key size in bits (96 or 128)."""
        return 8 * len(self.key)

    @property
    def tag(self) -> bytes:
        """The 16-byte tag (last bytes of CIPHER)."""
        return self.cipher[-TAG_BYTES:]

    @property
    def ciphertext(self) -> bytes:
        """C: the message ciphertext, without C0 and tag."""
        start = SMN_BYTES if self.smn is not None else 0
        return self.cipher[start:-TAG_BYTES]


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 digest of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_sums(sums: str | Path) -> dict[str, str]:
    """Parse a ``sha256sum`` listing: {file name: hex digest}.

    Raises:
        VectorFileError: a malformed line (file name and line number in the message).
    """
    out = {}
    for n, line in enumerate(Path(sums).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        m = re.match(r"^([0-9a-fA-F]{64}) [ *](.+)$", line)
        if not m:
            raise VectorFileError(f"{sums}:{n}: not a sha256sum line: {line!r}")
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


def read_vectors(path: str | Path, check: bool | None = None) -> list[Vector]:
    """Read a vector file in the official record format.

    Args:
        path: the file.
        check: verify the SHA-256 against ``SHA256SUMS`` beside the file first. ``None`` (default):
            verify when such a SHA256SUMS exists and lists this file name.
    Returns:
        the records, in file order.
    Raises:
        VectorFileError: unreadable or malformed file (``file:line: what``).
        ChecksumError: the checksum does not match.
    """
    path = Path(path)
    if not path.is_file():
        raise VectorFileError(f"{path}: vector file not found")
    sums = path.parent / "SHA256SUMS"
    if check is None:
        check = sums.is_file() and path.name in read_sums(sums)
    if check:
        verify_checksum(path, sums)
    try:
        text = path.read_text(encoding="ascii")
    except (UnicodeDecodeError, OSError) as e:
        raise VectorFileError(f"{path}: cannot read as ASCII text: {e}") from None
    return parse_vectors(text, str(path))


def parse_vectors(text: str, name: str = "<text>") -> list[Vector]:
    """Parse the record format from a string; ``name`` is used in error messages.

    Raises:
        VectorFileError: ``name:line: what`` for the first malformed line or incomplete record.
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
        if len(key) not in KEY_BYTES:
            raise VectorFileError(f"{where}: KEY must be 12 or 16 bytes, got {len(key)}")
        if len(pmn) != PMN_BYTES:
            raise VectorFileError(f"{where}: NPUB must be {PMN_BYTES} bytes, got {len(pmn)}")
        if smn is not None and len(smn) != SMN_BYTES:
            raise VectorFileError(f"{where}: NSEC must be 0 or {SMN_BYTES} bytes, got {len(smn)}")
        want = len(f["MSG"]) + TAG_BYTES + (SMN_BYTES if smn else 0)
        if len(f["CIPHER"]) != want:
            raise VectorFileError(f"{where}: CIPHER must be {want} bytes, got {len(f['CIPHER'])}")
        out.append(Vector(cur["num"], key, pmn, smn, f["MSG"], f["AD"], f["CIPHER"], cur["line"]))

    lines = text.splitlines()
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#") or _SECTION.match(line):
            continue
        m = _VECTOR.match(line)
        if m:
            _finish(n - 1)
            cur = {"num": int(m[1]), "line": n, "f": {}}
            continue
        m = _FIELD.match(line)
        if not m:
            raise VectorFileError(f"{name}:{n}: not a vector record line: {raw!r}")
        if cur is None:
            raise VectorFileError(f"{name}:{n}: field outside a [vector #N (M)] record")
        fname, count, hexs = m[1], int(m[2]), m[3]
        if fname not in _KNOWN:
            raise VectorFileError(f"{name}:{n}: unknown field {fname}")
        if fname in cur["f"]:
            raise VectorFileError(f"{name}:{n}: field {fname} given twice")
        if len(hexs) != 2 * count:
            raise VectorFileError(f"{name}:{n}: {fname} declares {count} bytes but has "
                                  f"{len(hexs)} hex digits (expected {2 * count})")
        cur["f"][fname] = bytes.fromhex(hexs)
    _finish(len(lines))
    return out


def official_file(key_bits: int) -> Path:
    """Path of the official vector file for a key size (96 or 128), shipped in :data:`VECTOR_DIR`.

    Raises:
        ValueError: key_bits not 96/128. VectorFileError: the file is missing from the package
            (the message names the path).
    """
    if key_bits not in OFFICIAL_FILES:
        raise ValueError("key_bits must be 96 or 128")
    p = VECTOR_DIR / OFFICIAL_FILES[key_bits]
    if not p.is_file():
        raise VectorFileError(f"official vectors missing from the package: {p} (reinstall dcsflow)")
    return p


def load_official(key_bits: int) -> list[Vector]:
    """Read the official vectors of a key size after checking their SHA-256 (always checked).

    Raises:
        ChecksumError, VectorFileError.
    """
    p = official_file(key_bits)
    return read_vectors(p, check=True)
