"""Every design's vector files are read as untrusted input through one bounded text reader
(:mod:`dcsflow.vectorfile`).

For each reader (π-Cipher records, AES-128 CAVP ``.rsp``, CMAC, GCM, SHA-3/SHAKE/KMAC ``.rsp``, Lake
Keyak, BMW-512 KAT) and each of its numeric fields: a 5,000-digit number is one line naming the file,
the line and the field, never Python's "Exceeds the limit (4300 digits)"; a byte that is not UTF-8
names its line and column; a malformed line that holds a key is refused without quoting it; a FIFO
and a file above the size limit (a sparse file: nothing is written) are refused at once. Through the
command lines (``dcsflow sim NAME --vectors``, ``dcsflow check``) the same files give one line ``error:``
and exit status 1.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dcsflow import vectorfile
from dcsflow.fileio import TEXT_LIMIT
from dcsflow.designs.aes128 import vectors as aes_v
from dcsflow.designs.aes128.errors import VectorFileError as AesError
from dcsflow.designs.aes_modes import vectors as modes_v
from dcsflow.designs.aes_modes.errors import VectorFileError as ModesError
from dcsflow.designs.keccak import hashvec, vectors as keyak_v
from dcsflow.designs.keccak.errors import VectorFileError as KeccakError
from dcsflow.designs.picipher import vectors as pi_v
from dcsflow.designs.picipher.errors import VectorFileError as PiError
from dcsflow.designs.ppe import bmw512_kat
from dcsflow.designs.ppe.bmw512_kat import KatFormatError

HUGE = "9" * 5000
#: a key-like value that must never appear in a message
SECRET = "00112233445566778899AABBCCDDEEFF"

PI = ("[vector #1 (1)]\nKEY (12) = 000102030405060708090A0B\nNPUB (4) = 00010203\nMSG (0) =\nAD (0) =\n"
      "CIPHER (16) = 00000000000000000000000000000000\n")
AES = "[ENCRYPT]\n\nCOUNT = 0\nKEY = " + SECRET + "\nPLAINTEXT = " + "00" * 16 + "\nCIPHERTEXT = " + "00" * 16 + "\n"
CMAC = "Count = 0\nKlen = 16\nMlen = 0\nTlen = 16\nKey = " + SECRET + "\nMsg = 00\nMac = " + "00" * 16 + "\n"
GCM = ("[Keylen = 128]\n[IVlen = 96]\n[PTlen = 0]\n[AADlen = 0]\n[Taglen = 128]\n\nCount = 0\nKey = " + SECRET
       + "\nIV = " + "00" * 12 + "\nPT =\nAAD =\nCT =\nTag = " + "00" * 16 + "\n")
SHA3 = "Len = 8\nMsg = 00\nMD = " + "00" * 32 + "\n"
SHAKE = "[Outputlen = 16]\n\nLen = 8\nMsg = 00\nOutput = 0000\n"
KMAC = "Key = " + SECRET + "\nS =\nMsg = 00\nOutputlen = 16\nOutput = 0000\n"
KEYAK = "initialize with:\nkey: 00 11\nnonce: 01\nassociated data:\nplaintext:\nciphertext:\ntag: 01\n"
BMW = "Len = 0\nMsg = 00\nMD = " + "AB" * 64 + "\n"


def _pi(p):
    return pi_v.read_vectors(p, check=False)


def _gcm(p):
    return modes_v.read_gcm(p, decrypt=False)


#: reader name -> (read a file, its error class, a well-formed text)
READERS = {
    "picipher": (_pi, PiError, PI),
    "aes128": (aes_v.read_rsp, AesError, AES),
    "cmac": (modes_v.read_cmac, ModesError, CMAC),
    "gcm": (_gcm, ModesError, GCM),
    "sha3": (hashvec.read_rsp, KeccakError, SHA3),
    "shake": (hashvec.read_rsp, KeccakError, SHAKE),
    "kmac": (hashvec.read_rsp, KeccakError, KMAC),
    "keyak": (keyak_v.read_lake_keyak, KeccakError, KEYAK),
    "bmw": (bmw512_kat.load_kat, KatFormatError, BMW),
}

#: (reader, the text with one number made 5,000 digits long, the line, the field named)
HUGE_NUMBERS = [
    ("picipher", PI.replace("[vector #1 (1)]", f"[vector #{HUGE} (1)]"), 1, "vector number"),
    ("picipher", PI.replace("[vector #1 (1)]", f"[vector #1 ({HUGE})]"), 1, "count"),
    ("picipher", PI.replace("KEY (12)", f"KEY ({HUGE})"), 2, "byte count of KEY"),
    ("picipher", PI.replace("MSG (0)", f"MSG ({HUGE})"), 4, "byte count of MSG"),
    ("aes128", AES.replace("COUNT = 0", f"COUNT = {HUGE}"), 3, "COUNT"),
    ("cmac", CMAC.replace("Count = 0", f"Count = {HUGE}"), 1, "Count"),
    ("cmac", CMAC.replace("Klen = 16", f"Klen = {HUGE}"), 2, "Klen"),
    ("cmac", CMAC.replace("Mlen = 0", f"Mlen = {HUGE}"), 3, "Mlen"),
    ("cmac", CMAC.replace("Tlen = 16", f"Tlen = {HUGE}"), 4, "Tlen"),
    ("gcm", GCM.replace("Count = 0", f"Count = {HUGE}"), 7, "Count"),
    ("gcm", GCM.replace("[IVlen = 96]", f"[IVlen = {HUGE}]"), 2, "IVlen"),
    ("sha3", SHA3.replace("Len = 8", f"Len = {HUGE}"), 1, "Len"),
    ("shake", SHAKE.replace("[Outputlen = 16]", f"[Outputlen = {HUGE}]"), 3, "Outputlen"),
    ("kmac", KMAC.replace("Outputlen = 16", f"Outputlen = {HUGE}"), 1, "Outputlen"),
    ("bmw", BMW.replace("Len = 0", f"Len = {HUGE}"), 1, "Len"),
]


def _write(tmp_path: Path, text: str | bytes, name: str = "v.txt") -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def _refused(reader: str, path: Path) -> str:
    """The one-line message of ``reader`` refusing ``path``, its file named as the reader names it
    (the path, or the file name alone), relative to the path (so tests can compare whole messages)."""
    read, error, _ = READERS[reader]
    with pytest.raises(error) as ei:
        read(path)
    msg = str(ei.value)
    assert "\n" not in msg and (msg.startswith(f"{path}") or msg.startswith(f"{path.name}")), msg
    return msg if msg.startswith(f"{path}") else str(path.parent) + "/" + msg


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_reads_its_well_formed_text(tmp_path, reader):
    read, _, text = READERS[reader]
    assert read(_write(tmp_path, text))


@pytest.mark.parametrize("reader, text, line, field", HUGE_NUMBERS)
def test_a_5000_digit_number_is_one_line_naming_the_field(tmp_path, reader, text, line, field):
    p = _write(tmp_path, text)
    msg = _refused(reader, p)
    assert msg.startswith(f"{p}:{line}: ") and field in msg and "is larger than" in msg, msg
    assert HUGE[:20] not in msg


@pytest.mark.parametrize("reader", READERS)
def test_a_byte_that_is_not_utf8_names_its_line_and_column(tmp_path, reader):
    text = READERS[reader][2]
    lines = text.split("\n")
    data = "\n".join(lines[:2]).encode() + b"\n  \xff" + "\n".join([""] + lines[2:]).encode()
    p = _write(tmp_path, data)
    assert _refused(reader, p) == f"{p}:3: not UTF-8 text (column 3)"


#: (reader, text with a malformed line that holds the secret)
KEY_LINES = [
    ("picipher", PI.replace("KEY (12) =", f"KEY(12) {SECRET} =")),
    ("picipher", PI.replace("NPUB (4) = 00010203", f"K{SECRET[-6:]} (4) = 00010203")),
    ("aes128", AES.replace("KEY = ", "KEY := ")),
    ("aes128", AES.replace("KEY = " + SECRET, "KEY = " + SECRET + "G")),
    ("cmac", CMAC.replace("Key = ", "Kye = ")),
    ("cmac", CMAC.replace("Key = ", "Key == ")),
    ("gcm", GCM.replace("Key = ", "KEY = ")),
    ("gcm", GCM.replace("Key = " + SECRET, "Key = " + SECRET[:-1])),
    ("kmac", KMAC.replace("Key = ", "Key: ")),
    ("kmac", KMAC.replace("Key = " + SECRET, "Key = " + SECRET + "0")),
    ("keyak", KEYAK.replace("key: 00 11", f"kee: {SECRET}")),
    ("keyak", KEYAK.replace("key: 00 11", f"key: {SECRET}")),
    ("bmw", BMW.replace("Msg = 00", f"Msg : {SECRET}")),
]


@pytest.mark.parametrize("reader, text", KEY_LINES)
def test_a_malformed_line_holding_a_key_is_never_quoted(tmp_path, reader, text):
    msg = _refused(reader, _write(tmp_path, text))
    for piece in (SECRET, SECRET[:8], SECRET[-6:], SECRET.lower()[:8], "Kye", "kee"):
        assert piece not in msg, msg


def test_fields_are_bounded_before_conversion():
    with pytest.raises(ValueError, match="^f:1: n is larger than 100$"):
        vectorfile.decimal("0" * 10_000 + "101", "f:1", "n", ValueError, 100)
    assert vectorfile.decimal("0" * 10_000 + "7", "f:1", "n", ValueError, 100) == 7
    for bad in ("", "1a", "٣", "２", "+1", "-1", " 1"):
        with pytest.raises(ValueError, match="is not a decimal number"):
            vectorfile.decimal(bad, "f:1", "n", ValueError)
    with pytest.raises(ValueError, match="is longer than 2 bytes"):
        vectorfile.hex_bytes("00" * 10_000, "f:1", "K", ValueError, 2)
    for bad in ("0", "0g", "٣٣", "００"):
        with pytest.raises(ValueError, match="is not a hex byte string"):
            vectorfile.hex_bytes(bad, "f:1", "K", ValueError)


@pytest.mark.parametrize("reader", READERS)
def test_special_and_huge_files_are_refused_at_once(tmp_path, reader):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert "FIFO" in _refused(reader, fifo)
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(TEXT_LIMIT + 1)                 # sparse: nothing is written
    assert "larger than the limit" in _refused(reader, big)


# ------------------------------------------------------------------------------ the command lines

@pytest.mark.parametrize("sim, text", [
    ("picipher", PI.replace("KEY (12)", f"KEY ({HUGE})")),
    ("aes128_iter", AES.replace("COUNT = 0", f"COUNT = {HUGE}")),
    ("aes_modes", CMAC.replace("Klen = 16", f"Klen = {HUGE}")),
    ("keccak", SHA3.replace("Len = 8", f"Len = {HUGE}")),
    ("aes128_iter", b"COUNT = 0\n\xc3\x28\n"),
    ("aes128_iter", AES.replace("KEY = ", "KEY := ")),
])
def test_sim_with_a_hostile_vector_file_is_one_line(dcsflow, tmp_path, sim, text):
    p = _write(tmp_path, text, "v.rsp")
    r = dcsflow("sim", sim, "--vectors", p, timeout=120)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 1 and "Traceback" not in r.stderr and lines and lines[-1].startswith("error: "), r.stderr
    assert p.name in lines[-1] and SECRET not in r.stderr + r.stdout
