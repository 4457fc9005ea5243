"""Known-answer vectors of the sponge modes: SHA3-256, SHAKE128 (NIST CAVP files) and KMAC128.

SHA3-256 and SHAKE128 come from the NIST CAVP response files (``.rsp``) of the byte-oriented SHA-3
validation system (CAVS 19.0), as shipped by the PyPI package ``cryptography_vectors`` (test extra;
folder ``hashes/SHA3`` and ``hashes/SHAKE``): :data:`CAVP_FILES`. Their format: ``#`` comment
lines, bracketed section headers (``[L = 256]``, ``[Outputlen = 128]``, ``[Input Length = 128]``
...), then records of ``Name = value`` lines separated by blank lines: ``Len`` (message length in
bits; ``Len = 0`` comes with ``Msg = 00``), ``Msg`` (hex), ``MD`` (SHA3-256 digest, hex) or
``Output`` (SHAKE128 output, hex; its length is ``Outputlen`` of the record or of the section).

KMAC128 vectors use the same ``.rsp`` form with the fields ``Key`` (hex, 0..32 bytes), ``S``
(customization string, hex, may be empty, 0..157 bytes), ``Msg`` (hex; ``Len`` optional),
``Outputlen`` (bits, a multiple of 8) and ``Output`` (hex). The bundled set (:func:`kmac_vectors`)
is computed when needed by pycryptodome's ``Crypto.Hash.KMAC128`` (an independent
implementation; it refuses keys shorter than 16 bytes) on seeded random keys, customization
strings and messages, so that no expected value is typed or produced by this project's model.

Monte Carlo files (``*Monte.rsp``) chain 100,000 hashes and are not read. Files are read as
untrusted input by the one vector-file reader (:mod:`dcsflow.vectorfile`: size limit, UTF-8
checked, lengths bounded before conversion); a message names the file, the line and the reason,
never the line's text or a value.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

from dcsflow.fileio import TEXT_LIMIT, package_folder
from dcsflow.vectorfile import decimal, hex_bytes, read_text, text_lines

from .errors import VectorFileError

#: mode names (``dcsflow sim keccak --mode``) and the core's ``mode`` input value of each
MODES = {"sha3-256": 0, "shake128": 1, "kmac128": 2}
#: the CAVP files read by default, per mode (relative to cryptography_vectors' ``hashes`` folder)
CAVP_FILES = {
    "sha3-256": ("SHA3/SHA3_256ShortMsg.rsp", "SHA3/SHA3_256LongMsg.rsp"),
    "shake128": ("SHAKE/SHAKE128ShortMsg.rsp", "SHAKE/SHAKE128LongMsg.rsp", "SHAKE/SHAKE128VariableOut.rsp"),
}
#: the core's limits: key and customization bytes (KMAC128 ports), output bytes (16-bit out_len),
#: message bytes (what the test bench holds: 8192 words)
MAX_KEY, MAX_CUSTOM, MAX_OUT, MAX_MESSAGE = 32, 157, 0xFFFF, 8192 * 8

_LINE = re.compile(r"([A-Za-z]+)[ \t]*=[ \t]*([!-~]*)")
#: the largest length in bits a record may give (Len, Outputlen): as many bits as a vector file holds
_MAX_BITS = 8 * TEXT_LIMIT


@dataclass(frozen=True)
class HashVector:
    """One known answer: ``mode`` (a :data:`MODES` name), message, expected output (its length is
    the output length: 32 bytes for SHA3-256), for KMAC128 the key and customization string;
    ``source`` = "<file>:<line of the record's first field>"."""

    mode: str
    message: bytes
    expected: bytes
    source: str
    key: bytes = b""
    custom: bytes = b""


def cavp_dir() -> Path:
    """The ``hashes`` folder of the installed ``cryptography_vectors`` package.

    Raises:
        VectorFileError: the package is not installed (test extra).
    """
    return package_folder("cryptography_vectors", "hashes", error=VectorFileError, need="the NIST SHA-3 vectors")


def _hex(value: str, where: str, field: str) -> bytes:
    return hex_bytes(value, where, field, VectorFileError)


def _int(value: str, where: str, field: str) -> int:
    return decimal(value, where, field, VectorFileError, _MAX_BITS)


def _mode_of(fields: dict, where: str) -> str:
    if "MD" in fields:
        return "sha3-256"
    if "Key" in fields:
        return "kmac128"
    if "Output" in fields:
        return "shake128"
    raise VectorFileError(f"{where}: a record needs MD (SHA3-256), Output (SHAKE128) or Key and Output (KMAC128)")


def _vector(fields: dict, section: dict, name: str, line: int) -> HashVector:
    where = f"{name}:{line}"
    if "Msg" not in fields:
        raise VectorFileError(f"{where}: record without Msg")
    msg = _hex(fields["Msg"][0], f"{name}:{fields['Msg'][1]}", "Msg")
    if "Len" in fields:
        bits = _int(fields["Len"][0], f"{name}:{fields['Len'][1]}", "Len")
        if bits % 8:
            raise VectorFileError(f"{where}: message of {bits} bits; the core takes whole bytes")
        if bits == 0 and msg == b"\0":
            msg = b""
        if len(msg) != bits // 8:
            raise VectorFileError(f"{where}: Msg has {len(msg)} bytes, Len says {bits} bits")
    if len(msg) > MAX_MESSAGE:
        raise VectorFileError(f"{where}: message of {len(msg)} bytes, longer than the test bench's {MAX_MESSAGE}")
    mode = _mode_of(fields, where)
    field = "MD" if mode == "sha3-256" else "Output"
    out = _hex(fields[field][0], where, field)
    if mode == "sha3-256":
        if len(out) != 32:
            raise VectorFileError(f"{where}: a SHA3-256 digest has 32 bytes, MD has {len(out)}")
        return HashVector(mode, msg, out, where)
    olen = fields.get("Outputlen") or section.get("Outputlen")
    if olen is not None:
        bits = _int(olen[0], where, "Outputlen")
        if bits % 8 or bits // 8 != len(out):
            raise VectorFileError(f"{where}: Outputlen {bits} bits does not match Output's {len(out)} bytes")
    if len(out) > MAX_OUT:
        raise VectorFileError(f"{where}: output of {len(out)} bytes; the core gives at most {MAX_OUT}")
    if mode == "shake128":
        return HashVector(mode, msg, out, where)
    key = _hex(fields["Key"][0], where, "Key")
    custom = _hex(fields["S"][0], where, "S") if "S" in fields else b""
    if len(key) > MAX_KEY:
        raise VectorFileError(f"{where}: KMAC128 key of {len(key)} bytes; the core takes 0..{MAX_KEY}")
    if len(custom) > MAX_CUSTOM:
        raise VectorFileError(f"{where}: customization string of {len(custom)} bytes; the core takes 0..{MAX_CUSTOM}")
    return HashVector(mode, msg, out, where, key, custom)


def _flush(fields: dict, section: dict, name: str, first: int, out: list) -> None:
    """Append the record of ``fields`` to ``out``; a lone ``COUNT`` line is no record."""
    if "Msg" in fields and ("MD" in fields or "Output" in fields):
        out.append(_vector(fields, section, name, first))
    elif set(fields) - {"COUNT"}:
        raise VectorFileError(f"{name}:{first}: incomplete record (needs Msg and MD or Output)")


def parse_rsp(text: str, name: str = "<text>") -> list[HashVector]:
    """Parse an ``.rsp`` file of SHA3-256, SHAKE128 or KMAC128 known answers (format in the module
    docstring); every record's mode follows from its fields.

    Raises:
        VectorFileError: one line ``name:line: reason`` (a line that is not ``Name = value``, bad
            hex, lengths that disagree, a message or output the core cannot take); no record.
    """
    out: list[HashVector] = []
    section: dict = {}
    fields: dict = {}
    first = 0
    for n, raw in enumerate(text_lines(text), 1):
        line = raw.strip(" \t\r")
        if not line or line.startswith("#"):
            if fields:
                _flush(fields, section, name, first, out)
                fields = {}
            continue
        if line.startswith("["):
            if not line.endswith("]"):
                raise VectorFileError(f"{name}:{n}: unterminated section header")
            head = line[1:-1].split("=", 1)
            if len(head) == 2:     # e.g. [Outputlen = 128]: a default for the records below
                section[head[0].strip().replace(" ", "")] = (head[1].strip(), n)
            continue
        m = _LINE.fullmatch(line)
        if not m:
            raise VectorFileError(f"{name}:{n}: expected 'Name = value'")
        if not fields:
            first = n
        fields[m.group(1)] = (m.group(2), n)
    if fields:
        _flush(fields, section, name, first, out)
    if not out:
        raise VectorFileError(f"{name}: no SHA3-256, SHAKE128 or KMAC128 records")
    return out


def format_rsp(vectors: list[HashVector]) -> str:
    """``vectors`` as one ``.rsp`` file that :func:`parse_rsp` reads back (module docstring's format;
    KMAC128 records with ``Key`` and ``S``)."""
    out = []
    for v in vectors:
        rec = [f"Len = {8 * len(v.message)}", f"Msg = {v.message.hex() or '00'}"]
        if v.mode == "sha3-256":
            rec.append(f"MD = {v.expected.hex()}")
        else:
            if v.mode == "kmac128":
                rec = [f"Key = {v.key.hex()}", f"S = {v.custom.hex()}"] + rec
            rec += [f"Outputlen = {8 * len(v.expected)}", f"Output = {v.expected.hex()}"]
        out.append("\n".join(rec))
    return "\n\n".join(out) + "\n"


def read_rsp(path: str | Path) -> list[HashVector]:
    """Read and parse one ``.rsp`` file (:func:`parse_rsp`; at most TEXT_LIMIT bytes).

    Raises:
        VectorFileError: unreadable (also: not a regular file, too large, not UTF-8) or malformed
            file (one line).
    """
    p = Path(path)
    return parse_rsp(read_text(p, VectorFileError), p.name)


def load_cavp(mode: str) -> list[HashVector]:
    """Every record of the CAVP files of ``mode`` ("sha3-256" or "shake128", :data:`CAVP_FILES`).

    Raises:
        VectorFileError: cryptography_vectors missing, a file unreadable. KeyError: other modes.
    """
    base = cavp_dir()
    return [v for f in CAVP_FILES[mode] for v in read_rsp(base / f)]


def kmac_vectors(keys: int = 4, per_key: int = 6, seed: int = 2014) -> list[HashVector]:
    """KMAC128 known answers from pycryptodome (``Crypto.Hash.KMAC128``): ``keys`` seeded random
    keys of 16..32 bytes, each with a customization string of 0..157 bytes, and ``per_key``
    messages each: lengths 0, 1, 8, 160 (one block with its trailer), 169 and random ones up to 400
    bytes; MAC lengths 32 and 64 bytes and random ones of 8..200. Same ``seed``, same vectors.

    Raises:
        VectorFileError: pycryptodome is not installed (test extra).
    """
    try:
        from Crypto.Hash import KMAC128
    except ImportError:
        raise VectorFileError("the KMAC128 known answers come from pycryptodome: pip install 'dcsflow[test]'") from None
    rnd = random.Random(seed)
    fixed_lens = [0, 1, 8, 160, 169]
    out: list[HashVector] = []
    for k in range(keys):
        key = rnd.randbytes(rnd.choice([16, 20, 24, 32] if k else [16]))
        custom = rnd.randbytes([0, 157, 5, 32][k % 4] if k < 4 else rnd.randrange(0, 158))
        for i in range(per_key):
            mlen = fixed_lens[i] if i < len(fixed_lens) else rnd.randrange(0, 401)
            olen = [32, 64][i % 2] if i < 2 else rnd.randrange(8, 201)
            msg = rnd.randbytes(mlen)
            mac = KMAC128.new(key=key, data=msg, mac_len=olen, custom=custom).digest()
            out.append(HashVector("kmac128", msg, mac, f"pycryptodome KMAC128 key {k} message {i}", key, custom))
    return out


#: where the SP 800-185 KMAC samples are read from: pycryptodome's own self-test module (installed
#: with pycryptodome from PyPI), class ``TestNISTExampleTestVectors``, list ``test_data``
SP800_185_MODULE = "Crypto.SelfTest.Hash.test_KMAC"


def sp800_185_kmac128() -> list[HashVector]:
    """The KMAC128 samples of NIST SP 800-185 ("KMAC_samples.pdf", samples 1..3: key 0x40..0x5F,
    data 00..03 or 00..C7, customization "" or "My Tagged Application", L = 256), read as
    pycryptodome ships them in :data:`SP800_185_MODULE` (hex strings, never retyped here).

    Raises:
        VectorFileError: pycryptodome missing, or its sample table not in the expected shape.
    """
    import importlib

    try:
        mod = importlib.import_module(SP800_185_MODULE)
        from Crypto.Hash import KMAC128
        rows = mod.TestNISTExampleTestVectors.test_data
        out = []
        for key, data, custom, mac, text, module in rows:
            if module is not KMAC128:
                continue
            out.append(HashVector("kmac128", bytes.fromhex(data.replace(" ", "")), bytes.fromhex(mac.replace(" ", "")),
                                  f"SP 800-185 {text.removesuffix(' NIST')} ({SP800_185_MODULE})",
                                  bytes.fromhex(key.replace(" ", "")), custom.encode()))
    except ImportError:
        raise VectorFileError("the SP 800-185 KMAC samples come from pycryptodome: pip install 'dcsflow[test]'") from None
    except (AttributeError, TypeError, ValueError) as e:
        raise VectorFileError(f"{SP800_185_MODULE}: the SP 800-185 sample table is not as expected ({type(e).__name__})") from None
    if not out:
        raise VectorFileError(f"{SP800_185_MODULE}: no KMAC128 sample")
    return out
