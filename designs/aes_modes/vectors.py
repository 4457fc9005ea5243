"""NIST known answers of AES-128-CMAC and AES-128-GCM, read at run time from ``cryptography_vectors``.

Sources (the PyPI package ``cryptography_vectors``, test extra; paths relative to its folder,
:data:`CMAC_FILE`, :data:`GCM_ENCRYPT_FILE`, :data:`GCM_DECRYPT_FILE`). Nothing is retyped here:
the files are parsed when needed.

- ``CMAC/nist-800-38b-aes128.txt``: the AES-128 examples of NIST SP 800-38B Appendix D.1
  (4 records: messages of 0, 16, 40 and 64 bytes, one key). Fields ``COUNT``, ``KEY``,
  ``MESSAGE`` (hex, may be empty), ``OUTPUT`` (the tag, hex). The reader also takes the field names
  of the CAVP ``CMACGenAES128.rsp`` files (``Count``, ``Klen``, ``Mlen``, ``Tlen`` in bytes,
  ``Key``, ``Msg`` — ``Msg = 00`` with ``Mlen = 0`` —, ``Mac``).
- ``ciphers/AES/GCM/gcmEncryptExtIV128.rsp`` and ``gcmDecrypt128.rsp``: the CAVS 14.0 GCM
  response files (gcmvs.pdf) for 128-bit keys, 7875 records each. Section headers
  ``[Keylen = 128]``, ``[IVlen = n]``, ``[PTlen = n]``, ``[AADlen = n]``, ``[Taglen = n]`` (bits)
  precede records of ``Count``, ``Key``, ``IV``, ``PT``, ``AAD``, ``CT``, ``Tag`` (hex, may be
  empty); a decryption record has either ``PT`` (the tag verifies) or a bare line ``FAIL`` (it
  does not). Every field's length is checked against its section header.

Only records the core takes are kept (:data:`KEEP`): a 128-bit key, for GCM a 96-bit IV, and a
full 128-bit tag. The others are counted per reason in :attr:`VectorSet.skipped` (for the two GCM
files: 5250 records with an IV of 8 or 1024 bits and 2250 with a tag shorter than 128 bits each;
375 records kept of each).

Files are read as untrusted input by the one vector-file reader (:mod:`dcsflow.vectorfile`: size
limit, UTF-8 checked, numbers bounded before conversion). Malformed input raises
:class:`~dcsflow.designs.aes_modes.errors.VectorFileError` with one line ``file:line: reason`` that
never quotes the line, a value or a field name taken from the file.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from dcsflow.fileio import TEXT_LIMIT, package_folder
from dcsflow.vectorfile import decimal, hex_bytes, read_text as read_vector_text, text_lines

from .errors import VectorFileError

#: the CMAC examples (SP 800-38B Appendix D.1), relative to the cryptography_vectors folder
CMAC_FILE = "CMAC/nist-800-38b-aes128.txt"
#: GCM authenticated encryption, 128-bit keys (CAVS 14.0)
GCM_ENCRYPT_FILE = "ciphers/AES/GCM/gcmEncryptExtIV128.rsp"
#: GCM authenticated decryption with tag check, 128-bit keys (CAVS 14.0)
GCM_DECRYPT_FILE = "ciphers/AES/GCM/gcmDecrypt128.rsp"
#: what the core takes, in bits: key, GCM IV, tag
KEEP = {"key": 128, "iv": 96, "tag": 128}

_LINE = re.compile(r"([A-Za-z]+)[ \t]*=[ \t]*([!-~]*)")
_HEADER = re.compile(r"\[[ \t]*([A-Za-z]+)[ \t]*=[ \t]*([!-~]+?)[ \t]*\]")
#: the largest value of each decimal field: a count, byte lengths (Klen, Mlen, Tlen) and the bit
#: lengths of the GCM section headers, each at most what a vector file can hold
_MAX = {"count": 10 ** 9, "klen": TEXT_LIMIT, "mlen": TEXT_LIMIT, "tlen": TEXT_LIMIT, "bits": 8 * TEXT_LIMIT}

#: CMAC field spellings -> canonical name (the SP 800-38B examples file and the CAVP CMACGen files)
_CMAC_FIELDS = {"COUNT": "count", "Count": "count", "KEY": "key", "Key": "key", "MESSAGE": "msg",
                "Msg": "msg", "OUTPUT": "tag", "Mac": "tag", "Klen": "klen", "Mlen": "mlen",
                "Tlen": "tlen"}
_GCM_FIELDS = {"Count": "count", "Key": "key", "IV": "iv", "PT": "pt", "AAD": "aad", "CT": "ct",
               "Tag": "tag"}
#: canonical name -> how messages spell it
_SPELLING = {"count": "Count", "key": "Key", "iv": "IV", "pt": "PT", "aad": "AAD", "ct": "CT", "tag": "Tag",
             "msg": "message", "klen": "Klen", "mlen": "Mlen", "tlen": "Tlen"}
#: GCM section header -> the field whose length (bits) it gives
_GCM_HEADERS = {"Keylen": "key", "IVlen": "iv", "PTlen": "pt", "AADlen": "aad", "Taglen": "tag"}


@dataclass(frozen=True)
class CmacVector:
    """One AES-128-CMAC known answer: 16-byte ``key``, message ``msg`` (``mlen`` bytes, 0 allowed),
    expected ``tag`` (``tlen`` = 16 bytes for kept records); ``source`` = "<file>:<line of the
    record's first field>"."""

    source: str
    key: bytes
    msg: bytes
    tag: bytes

    @property
    def mlen(self) -> int:
        """Message length in bytes."""
        return len(self.msg)

    @property
    def tlen(self) -> int:
        """Tag length in bytes."""
        return len(self.tag)


@dataclass(frozen=True)
class GcmVector:
    """One AES-128-GCM known answer: 16-byte ``key``, 12-byte ``iv``, additional data ``aad``,
    plaintext ``pt``, ciphertext ``ct`` (same length as ``pt``), 16-byte ``tag``. ``decrypt``: the
    record is from a decryption file; ``fail``: the file says the tag does not verify (then ``pt``
    is ``None``: nothing may be released). ``source`` = "<file>:<line of the record's first field>"."""

    source: str
    key: bytes
    iv: bytes
    pt: bytes | None
    aad: bytes
    ct: bytes
    tag: bytes
    decrypt: bool = False
    fail: bool = False


@dataclass
class VectorSet:
    """The kept records of one file, in file order, and how many were skipped per reason (e.g.
    ``"IV of 8 bits (the core takes 96)": 2625``)."""

    name: str
    records: list = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)

    @property
    def total(self) -> int:
        """Records in the file: kept + skipped."""
        return len(self.records) + sum(self.skipped.values())


def cavp_dir() -> Path:
    """The folder of the installed ``cryptography_vectors`` package (holds ``CMAC/`` and ``ciphers/``).

    Raises:
        VectorFileError: the package is not installed (test extra).
    """
    return package_folder("cryptography_vectors", error=VectorFileError, need="the NIST CMAC and GCM vectors")


def _hex(value: str, where: str, key: str) -> bytes:
    return hex_bytes(value, where, _SPELLING.get(key, key), VectorFileError)


def _int(value: str, where: str, key: str) -> int:
    return decimal(value, where, _SPELLING.get(key, key), VectorFileError, _MAX.get(key, _MAX["bits"]))


def _records(text: str, name: str, names: dict, flag: str | None = None):
    """Yield (first line, {canonical name: (value, line)}, {header name: (value, line)}) per record.
    Records are separated by blank lines or start at a count field; ``flag`` is a bare word allowed
    as a field (``FAIL``)."""
    headers: dict = {}
    fields: dict = {}
    first = 0
    for n, raw in enumerate(text_lines(text), 1):
        line = raw.strip(" \t\r")
        if not line or line.startswith("#"):
            if fields:
                yield first, fields, dict(headers)
                fields = {}
            continue
        if line.startswith("["):
            if fields:
                yield first, fields, dict(headers)
                fields = {}
            m = _HEADER.fullmatch(line)
            if not m:
                raise VectorFileError(f"{name}:{n}: expected a section header '[Name = value]'")
            headers[m.group(1)] = (m.group(2), n)
            continue
        if flag is not None and line == flag:
            key, value = flag, ""
        elif line == "FAIL":
            raise VectorFileError(f"{name}:{n}: FAIL in a file that is not a GCM decryption file")
        else:
            m = _LINE.fullmatch(line)
            if not m:
                raise VectorFileError(f"{name}:{n}: expected 'Name = value'")
            if m.group(1) not in names:
                # not named: an unknown name may be a key with a typo
                raise VectorFileError(f"{name}:{n}: unknown field (known: {', '.join(sorted(names))})")
            key, value = names[m.group(1)], m.group(2)
        if key == "count" and fields:
            yield first, fields, dict(headers)
            fields = {}
        if key in fields:
            raise VectorFileError(f"{name}:{n}: {key if key == flag else _SPELLING.get(key, key)} "
                                  f"given twice in one record")
        if not fields:
            first = n
        fields[key] = (value, n)
    if fields:
        yield first, fields, dict(headers)


def _need(fields: dict, names: tuple, name: str, first: int) -> None:
    missing = [k for k in names if k not in fields]
    if missing:
        raise VectorFileError(f"{name}:{first}: record without {', '.join(_SPELLING[k] for k in missing)}")


def parse_cmac(text: str, name: str = "<text>") -> VectorSet:
    """Parse AES-CMAC known answers (format in the module docstring). Kept: 128-bit key and
    128-bit tag; others are counted in ``skipped``.

    Returns:
        VectorSet of :class:`CmacVector`.

    Raises:
        VectorFileError: one line ``name:line: reason`` — a line that is not ``Name = value``, an
            unknown or repeated field, bad hex, ``Klen``/``Mlen``/``Tlen`` that disagree with the
            data, a record without key, message or tag, no record at all.
    """
    out = VectorSet(name)
    for first, f, _ in _records(text, name, _CMAC_FIELDS):
        if set(f) == {"count"}:
            continue
        _need(f, ("key", "msg", "tag"), name, first)
        if "count" in f:
            _int(f["count"][0], f"{name}:{f['count'][1]}", "count")
        key = _hex(f["key"][0], f"{name}:{f['key'][1]}", "key")
        msg = _hex(f["msg"][0], f"{name}:{f['msg'][1]}", "msg")
        tag = _hex(f["tag"][0], f"{name}:{f['tag'][1]}", "tag")
        if "mlen" in f:
            mlen = _int(f["mlen"][0], f"{name}:{f['mlen'][1]}", "mlen")
            if mlen == 0 and msg == b"\0":
                msg = b""
            if len(msg) != mlen:
                raise VectorFileError(f"{name}:{f['msg'][1]}: message has {len(msg)} bytes, Mlen says {mlen}")
        for k, data, what in (("klen", key, "key"), ("tlen", tag, "tag")):
            if k in f:
                said = _int(f[k][0], f"{name}:{f[k][1]}", k)
                if said != len(data):
                    raise VectorFileError(f"{name}:{f[k][1]}: {what} has {len(data)} bytes, {k.capitalize()} says {said}")
        if not tag:
            raise VectorFileError(f"{name}:{f['tag'][1]}: empty tag")
        if 8 * len(key) != KEEP["key"]:
            out.skipped[f"key of {8 * len(key)} bits (the core takes {KEEP['key']})"] += 1
        elif 8 * len(tag) != KEEP["tag"]:
            out.skipped[f"tag of {8 * len(tag)} bits (the core gives {KEEP['tag']})"] += 1
        else:
            out.records.append(CmacVector(f"{name}:{first}", key, msg, tag))
    if not out.total:
        raise VectorFileError(f"{name}: no CMAC record")
    return out


def parse_gcm(text: str, name: str = "<text>", decrypt: bool = False) -> VectorSet:
    """Parse a GCM response file (format in the module docstring): an encryption file
    (``decrypt=False``: every record has PT and CT) or a decryption file (``decrypt=True``: every
    record has CT and either PT or FAIL). Kept: 128-bit key, 96-bit IV, 128-bit tag; others are
    counted in ``skipped`` (first failing reason in that order).

    Returns:
        VectorSet of :class:`GcmVector`.

    Raises:
        VectorFileError: one line ``name:line: reason`` — a line that is not ``Name = value`` or a
            section header, an unknown or repeated field, bad hex, a length that disagrees with its
            section header, PT and CT of different lengths, a missing field, FAIL in an encryption
            file or together with PT, no record at all.
    """
    out = VectorSet(name)
    for first, f, headers in _records(text, name, _GCM_FIELDS, "FAIL" if decrypt else None):
        if set(f) == {"count"}:
            continue
        _need(f, ("key", "iv", "aad", "ct", "tag"), name, first)
        fail = "FAIL" in f
        if fail and "pt" in f:
            raise VectorFileError(f"{name}:{f['FAIL'][1]}: a record has either PT or FAIL, not both")
        if not fail and "pt" not in f:
            raise VectorFileError(f"{name}:{first}: record without PT" + (" or FAIL" if decrypt else ""))
        if "count" in f:
            _int(f["count"][0], f"{name}:{f['count'][1]}", "count")
        data = {k: _hex(v, f"{name}:{line}", k) for k, (v, line) in f.items() if k not in ("count", "FAIL")}
        for h, (value, hline) in headers.items():
            if h not in _GCM_HEADERS:
                raise VectorFileError(f"{name}:{hline}: unknown section header (known: {', '.join(_GCM_HEADERS)})")
            bits = _int(value, f"{name}:{hline}", h)
            k = _GCM_HEADERS[h]
            for k2 in ((k, "ct") if k == "pt" else (k,)):
                if k2 in data and 8 * len(data[k2]) != bits:
                    raise VectorFileError(f"{name}:{f[k2][1]}: {_SPELLING[k2]} has {8 * len(data[k2])} bits, "
                                          f"the section header [{h} = {bits}] says {bits}")
        if "pt" in data and len(data["pt"]) != len(data["ct"]):
            raise VectorFileError(f"{name}:{f['ct'][1]}: CT has {len(data['ct'])} bytes, PT {len(data['pt'])}")
        if not data["tag"]:
            raise VectorFileError(f"{name}:{f['tag'][1]}: empty tag")
        bits = {k: 8 * len(data[k]) for k in ("key", "iv", "tag")}
        if bits["key"] != KEEP["key"]:
            out.skipped[f"key of {bits['key']} bits (the core takes {KEEP['key']})"] += 1
        elif bits["iv"] != KEEP["iv"]:
            out.skipped[f"IV of {bits['iv']} bits (the core takes {KEEP['iv']})"] += 1
        elif bits["tag"] != KEEP["tag"]:
            out.skipped[f"tag of {bits['tag']} bits (the core gives {KEEP['tag']})"] += 1
        else:
            out.records.append(GcmVector(f"{name}:{first}", data["key"], data["iv"], data.get("pt"),
                                         data["aad"], data["ct"], data["tag"], decrypt, fail))
    if not out.total:
        raise VectorFileError(f"{name}: no GCM record")
    return out


def read_text(path: str | Path) -> str:
    """The text of one vector file (at most TEXT_LIMIT bytes, UTF-8: :func:`dcsflow.vectorfile.read_text`),
    for the parsers.

    Raises:
        VectorFileError: unreadable, not a regular file, too large, not UTF-8 (one line naming the
            file, and for bad text the line and column of the first byte that is not UTF-8).
    """
    return read_vector_text(path, VectorFileError)


def read_cmac(path: str | Path) -> VectorSet:
    """Read and parse one CMAC vector file (:func:`parse_cmac`; at most TEXT_LIMIT bytes).

    Raises:
        VectorFileError: unreadable, not ASCII, too large, or malformed (one line).
    """
    return parse_cmac(read_text(path), Path(path).name)


def read_gcm(path: str | Path, decrypt: bool) -> VectorSet:
    """Read and parse one GCM response file (:func:`parse_gcm`; at most TEXT_LIMIT bytes).

    Raises:
        VectorFileError: unreadable, not ASCII, too large, or malformed (one line).
    """
    return parse_gcm(read_text(path), Path(path).name, decrypt)


def load_cmac() -> VectorSet:
    """The kept records of :data:`CMAC_FILE` (the 4 AES-128 examples of SP 800-38B D.1).

    Raises:
        VectorFileError: cryptography_vectors missing, the file unreadable or malformed.
    """
    return read_cmac(cavp_dir() / CMAC_FILE)


def load_gcm_encrypt() -> VectorSet:
    """The kept records of :data:`GCM_ENCRYPT_FILE` (375 of 7875).

    Raises:
        VectorFileError: cryptography_vectors missing, the file unreadable or malformed.
    """
    return read_gcm(cavp_dir() / GCM_ENCRYPT_FILE, decrypt=False)


def load_gcm_decrypt() -> VectorSet:
    """The kept records of :data:`GCM_DECRYPT_FILE` (375 of 7875, PT or FAIL each).

    Raises:
        VectorFileError: cryptography_vectors missing, the file unreadable or malformed.
    """
    return read_gcm(cavp_dir() / GCM_DECRYPT_FILE, decrypt=True)
