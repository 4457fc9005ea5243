"""Golden model and vector readers of the AES-128 modes design (designs/aes_modes).

- Every kept record of the three NIST files (CMAC SP 800-38B D.1 examples, CAVS GCM encryption and
  decryption for 128-bit keys) against the model; the readers' kept/skipped counts against an
  independent scan of the raw files.
- The model against the ``cryptography`` library (CMAC, AESGCM, ECB for CMAC subkeys and GHASH) on
  seeded and hypothesis-drawn lengths around the block boundaries.
- GF(2^128): the multiply against a bit-reversed carry-less formulation, and
  ``ghash_matrix(H)·X == X·H`` for random H, X.
- Bad input: wrong key/IV/tag lengths, malformed vector files (one line ``file:line: reason``).

Expected values come only from the vector files or from ``cryptography``.
"""

from __future__ import annotations

import random
import re
import sys

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.cmac import CMAC
from hypothesis import given, settings
from hypothesis import strategies as st

from dcsflow.designs.aes128.model import encrypt as aes_encrypt
from dcsflow.designs.aes_modes import model, vectors
from dcsflow.designs.aes_modes.errors import AesModesError, AuthenticationError, InputError, VectorFileError

RNG_SEED = 20261127
CMAC_SET = vectors.load_cmac()
GCM_ENC = vectors.load_gcm_encrypt()
GCM_DEC = vectors.load_gcm_decrypt()


def lib_cmac(key: bytes, msg: bytes) -> bytes:
    c = CMAC(algorithms.AES(key))
    c.update(msg)
    return c.finalize()


def ecb(key: bytes, block: bytes, decrypt: bool = False) -> bytes:
    c = Cipher(algorithms.AES(key), modes.ECB())
    op = c.decryptor() if decrypt else c.encryptor()
    return op.update(block) + op.finalize()


def xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


# --- the readers against the raw files -----------------------------------------------------------

def _raw_scan(relpath: str) -> tuple[int, int]:
    """(records, records under [IVlen = 96] and [Taglen = 128] and [Keylen = 128]) by a plain scan."""
    text = (vectors.cavp_dir() / relpath).read_text()
    head, total, kept = {}, 0, 0
    for line in text.splitlines():
        m = re.match(r"\[(\w+) = (\d+)\]", line.strip())
        if m:
            head[m.group(1)] = int(m.group(2))
        elif line.startswith("Count = "):
            total += 1
            kept += head == {**head, "Keylen": 128, "IVlen": 96, "Taglen": 128}
    return total, kept


@pytest.mark.parametrize("vset, path", [(GCM_ENC, vectors.GCM_ENCRYPT_FILE), (GCM_DEC, vectors.GCM_DECRYPT_FILE)],
                         ids=["encrypt", "decrypt"])
def test_gcm_reader_keeps_and_counts_like_a_raw_scan(vset, path):
    total, kept = _raw_scan(path)
    assert vset.total == total and len(vset.records) == kept > 0
    skipped_iv = sum(n for r, n in vset.skipped.items() if r.startswith("IV of"))
    skipped_tag = sum(n for r, n in vset.skipped.items() if r.startswith("tag of"))
    assert skipped_iv + skipped_tag == total - kept and skipped_iv and skipped_tag
    assert "IV of 96 bits" not in " ".join(vset.skipped) and "tag of 128 bits" not in " ".join(vset.skipped)
    for r in vset.records:
        assert (len(r.key), len(r.iv), len(r.tag)) == (16, 12, 16)
        assert r.pt is None if r.fail else len(r.pt) == len(r.ct)


def test_gcm_decrypt_file_has_both_outcomes():
    assert {r.fail for r in GCM_DEC.records} == {True, False}
    assert all(r.decrypt for r in GCM_DEC.records) and not any(r.decrypt or r.fail for r in GCM_ENC.records)


def test_cmac_reader():
    text = (vectors.cavp_dir() / vectors.CMAC_FILE).read_text()
    assert CMAC_SET.total == len(CMAC_SET.records) == text.count("COUNT =") > 0
    assert any(r.mlen == 0 for r in CMAC_SET.records) and any(r.mlen % 16 for r in CMAC_SET.records)
    assert all(r.tlen == 16 and len(r.key) == 16 for r in CMAC_SET.records)


# --- every kept record against the model ----------------------------------------------------------

@pytest.mark.parametrize("v", CMAC_SET.records, ids=lambda v: v.source)
def test_cmac_file_records(v):
    assert model.cmac(v.key, v.msg) == v.tag
    assert model.cmac_verify(v.key, v.msg, v.tag)
    assert not model.cmac_verify(v.key, v.msg, bytes([v.tag[0] ^ 1]) + v.tag[1:])


@pytest.mark.parametrize("v", GCM_ENC.records, ids=lambda v: v.source)
def test_gcm_encrypt_file_records(v):
    assert model.gcm_encrypt(v.key, v.iv, v.pt, v.aad) == (v.ct, v.tag)
    assert model.gcm_decrypt(v.key, v.iv, v.ct, v.tag, v.aad) == v.pt


@pytest.mark.parametrize("v", GCM_DEC.records, ids=lambda v: v.source)
def test_gcm_decrypt_file_records(v):
    if v.fail:
        with pytest.raises(AuthenticationError):
            model.gcm_decrypt(v.key, v.iv, v.ct, v.tag, v.aad)
    else:
        assert model.gcm_decrypt(v.key, v.iv, v.ct, v.tag, v.aad) == v.pt
        assert model.gcm_encrypt(v.key, v.iv, v.pt, v.aad) == (v.ct, v.tag)


# --- the model against `cryptography` -------------------------------------------------------------

LENGTHS = [0, 1, 15, 16, 17, 31, 32, 33, 48, 64, 100]


@pytest.mark.parametrize("n", LENGTHS)
def test_cmac_vs_cryptography_seeded(n):
    rnd = random.Random(RNG_SEED + n)
    for _ in range(3):
        key, msg = rnd.randbytes(16), rnd.randbytes(n)
        assert model.cmac(key, msg) == lib_cmac(key, msg)


@pytest.mark.parametrize("n", LENGTHS)
def test_gcm_vs_cryptography_seeded(n):
    rnd = random.Random(RNG_SEED - n)
    for a in (0, 1, 16, 20, rnd.randrange(0, 90)):
        key, iv, pt, aad = rnd.randbytes(16), rnd.randbytes(12), rnd.randbytes(n), rnd.randbytes(a)
        ct, tag = model.gcm_encrypt(key, iv, pt, aad)
        assert ct + tag == AESGCM(key).encrypt(iv, pt, aad)
        assert model.gcm_decrypt(key, iv, ct, tag, aad) == pt


@settings(max_examples=40, deadline=None)
@given(st.binary(min_size=16, max_size=16), st.binary(min_size=12, max_size=12), st.binary(max_size=90),
       st.binary(max_size=90))
def test_model_vs_cryptography_random(key, iv, pt, aad):
    ct, tag = model.gcm_encrypt(key, iv, pt, aad)
    assert ct + tag == AESGCM(key).encrypt(iv, pt, aad)
    assert model.cmac(key, pt + aad) == lib_cmac(key, pt + aad)


@settings(max_examples=25, deadline=None)
@given(st.binary(min_size=16, max_size=16), st.binary(min_size=12, max_size=12), st.binary(max_size=40),
       st.binary(max_size=40), st.data())
def test_gcm_decrypt_rejects_any_changed_bit(key, iv, pt, aad, data):
    blob = AESGCM(key).encrypt(iv, pt, aad)
    ct, tag = blob[:-16], blob[-16:]
    which = data.draw(st.sampled_from(["ct", "aad", "tag"] if pt and aad else ["aad", "tag"] if aad else
                                      ["ct", "tag"] if pt else ["tag"]))
    parts = {"ct": bytearray(ct), "aad": bytearray(aad), "tag": bytearray(tag)}
    bit = data.draw(st.integers(0, 8 * len(parts[which]) - 1))
    parts[which][bit // 8] ^= 0x80 >> (bit % 8)
    with pytest.raises(InvalidTag):
        AESGCM(key).decrypt(iv, bytes(parts["ct"] + parts["tag"]), bytes(parts["aad"]))
    with pytest.raises(AuthenticationError):
        model.gcm_decrypt(key, iv, bytes(parts["ct"]), bytes(parts["tag"]), bytes(parts["aad"]))


def test_cmac_subkeys_vs_cryptography():
    # T = CIPH_K(M ^ K1) for one complete block; T = CIPH_K((M || 10..0) ^ K2) for a short one
    rnd = random.Random(RNG_SEED)
    for _ in range(8):
        key, full, short = rnd.randbytes(16), rnd.randbytes(16), rnd.randbytes(rnd.randrange(0, 16))
        k1 = xor(ecb(key, lib_cmac(key, full), decrypt=True), full)
        k2 = xor(ecb(key, lib_cmac(key, short), decrypt=True), short + b"\x80" + bytes(15 - len(short)))
        assert model.cmac_subkeys(key) == (k1, k2)


def test_ghash_vs_cryptography():
    # for C empty: T = GCTR(J0, S) = CIPH_K(J0) ^ GHASH_H(A || 0^v || [len(A)]64 || [0]64)
    rnd = random.Random(RNG_SEED + 1)
    for a in (1, 16, 33, 64):
        key, iv, aad = rnd.randbytes(16), rnd.randbytes(12), rnd.randbytes(a)
        s = xor(AESGCM(key).encrypt(iv, b"", aad), ecb(key, iv + b"\0\0\0\x01"))
        h = ecb(key, bytes(16))
        assert model.gcm_hash_key(key) == h
        lens = (8 * a).to_bytes(8, "big") + bytes(8)
        assert model.ghash(h, aad + bytes(-a % 16) + lens) == s


def test_library_block_cipher_gives_the_same_modes():
    rnd = random.Random(RNG_SEED + 2)
    key, iv, pt, aad = rnd.randbytes(16), rnd.randbytes(12), rnd.randbytes(41), rnd.randbytes(7)
    assert model.gcm_encrypt(key, iv, pt, aad, cipher=aes_encrypt) == model.gcm_encrypt(key, iv, pt, aad)
    assert model.cmac(key, pt, cipher=aes_encrypt) == model.cmac(key, pt)


# --- GF(2^128) and the matrix of X -> X·H ----------------------------------------------------------

def _rev128(x: int) -> int:
    return int(f"{x:0128b}"[::-1], 2)


def clmul_reflected(x: int, y: int) -> int:
    """X·Y the other way round: reverse the bits (bit 0 -> coefficient of x^0 in the integer's bit 0),
    carry-less multiply, reduce modulo x^128 + x^7 + x^2 + x + 1, reverse back."""
    a, b, p = _rev128(x), _rev128(y), 0
    for i in range(128):
        if (b >> i) & 1:
            p ^= a << i
    for i in range(254, 127, -1):
        if (p >> i) & 1:
            p ^= ((1 << 128) | 0x87) << (i - 128)
    return _rev128(p)


def test_gf128_mul_vs_clmul_and_laws():
    rnd = random.Random(RNG_SEED + 3)
    one = 1 << 127                      # the block 0x80 00 .. 00 is the field's 1
    for _ in range(30):
        x, y, z = (rnd.getrandbits(128) for _ in range(3))
        assert model.gf128_mul(x, y) == clmul_reflected(x, y) == model.gf128_mul(y, x)
        assert model.gf128_mul(x, y ^ z) == model.gf128_mul(x, y) ^ model.gf128_mul(x, z)
        assert model.gf128_mul(x, one) == x and model.gf128_mul(x, 0) == 0


def test_dbl_is_multiplication_by_x_in_cmac_order():
    rnd = random.Random(RNG_SEED + 4)
    for _ in range(30):
        x = rnd.getrandbits(128)
        p = x << 1
        if p >> 128:
            p ^= (1 << 128) | 0x87
        assert model.dbl(x) == p
    assert model.dbl(1 << 127) == 0x87


def test_ghash_matrix_equals_the_multiply():
    rnd = random.Random(RNG_SEED + 5)
    for _ in range(12):
        hb = rnd.randbytes(16)
        m = model.ghash_matrix(hb)
        assert len(m) == 128 and m == model.ghash_matrix(int.from_bytes(hb, "big"))
        for _ in range(10):
            x = rnd.getrandbits(128)
            assert model.matrix_apply(m, x) == model.gf128_mul(x, int.from_bytes(hb, "big"))
        for j in (0, 1, 64, 127):   # column j is e_j·H
            col = sum(((m[i] >> (127 - j)) & 1) << (127 - i) for i in range(128))
            assert col == model.gf128_mul(1 << (127 - j), int.from_bytes(hb, "big"))
    assert model.ghash_matrix(1 << 127) == tuple(1 << (127 - i) for i in range(128))   # H = 1: identity


# --- bad input ------------------------------------------------------------------------------------

def _one_line(e: BaseException) -> str:
    s = str(e)
    assert s and "\n" not in s and e.user_error is True
    return s


@pytest.mark.parametrize("call, expect", [
    (lambda: model.cmac(bytes(15), b""), "key must be 16 bytes (128 bits), got 15"),
    (lambda: model.cmac("00" * 16, b""), "key must be bytes, got str"),
    (lambda: model.cmac(bytes(16), "abc"), "message must be bytes, got str"),
    (lambda: model.gcm_encrypt(bytes(24), bytes(12), b""), "key must be 16 bytes (128 bits), got 24"),
    (lambda: model.gcm_encrypt(bytes(16), bytes(16), b""), "IV must be 12 bytes (96 bits), got 16"),
    (lambda: model.gcm_encrypt(bytes(16), bytes(8), b""), "IV must be 12 bytes (96 bits), got 8"),
    (lambda: model.gcm_decrypt(bytes(16), bytes(12), b"", bytes(12)), "tag must be 16 bytes (128 bits), got 12"),
    (lambda: model.ghash(bytes(16), bytes(17)), "GHASH input must be a multiple of 16 bytes, got 17"),
    (lambda: model.ghash_matrix(1 << 128), "H must be a 128-bit value"),
    (lambda: model.ghash_matrix(bytes(15)), "H must be 16 bytes (128 bits), got 15"),
])
def test_bad_model_input(call, expect):
    with pytest.raises(InputError) as e:
        call()
    assert _one_line(e.value).startswith(expect)
    assert isinstance(e.value, ValueError) and isinstance(e.value, AesModesError)


def test_key_never_in_message():
    key = bytes(range(0xA0, 0xAF))     # 15 bytes
    with pytest.raises(InputError) as e:
        model.gcm_encrypt(key, bytes(12), b"")
    assert key.hex() not in str(e.value).lower()


def test_authentication_error_is_one_line():
    key, iv = bytes(16), bytes(12)
    ct, tag = model.gcm_encrypt(key, iv, b"x")
    with pytest.raises(AuthenticationError) as e:
        model.gcm_decrypt(key, iv, ct, bytes(16))
    _one_line(e.value)


#: a well-formed record (arbitrary values; the tests below change one thing each)
GCM_REC = """Count = 0
Key = 000102030405060708090a0b0c0d0e0f
IV = 101112131415161718191a1b
PT = 00
AAD =
CT = 01
Tag = a0a1a2a3a4a5a6a7a8a9aaabacadaeaf
"""
HEAD = "[Keylen = 128]\n[IVlen = 96]\n[PTlen = 8]\n[AADlen = 0]\n[Taglen = 128]\n\n"   # record at line 7


@pytest.mark.parametrize("text, decrypt, line, reason", [
    (HEAD + GCM_REC.replace("Tag = a0", "Tag = zz"), False, 13, "not a hex byte string"),
    (HEAD + GCM_REC.replace("IV = 10", "IV = 1"), False, 9, "not a hex byte string"),
    (HEAD + GCM_REC.replace("Tag = a0a1", "Tag = "), False, 13,
     "Tag has 112 bits, the section header [Taglen = 128] says 128"),
    (HEAD.replace("PTlen = 8", "PTlen = 16") + GCM_REC, False, 10, "PT has 8 bits, the section header [PTlen = 16]"),
    (HEAD + GCM_REC.replace("AAD =\n", ""), False, 7, "record without AAD"),
    (HEAD + GCM_REC.replace("CT = 01\n", "CT = 01\nCT = 02\n"), False, 13, "CT given twice"),
    (HEAD + GCM_REC.replace("AAD =", "ADD ="), False, 11, "unknown field (known: "),
    (HEAD + GCM_REC.replace("PT = 00", "FAIL"), False, 10, "FAIL in a file that is not a GCM decryption file"),
    (HEAD + GCM_REC + "FAIL\n", True, 14, "a record has either PT or FAIL, not both"),
    (HEAD + GCM_REC.replace("PT = 00\n", ""), True, 7, "record without PT or FAIL"),
    (HEAD + GCM_REC.replace("Count = 0", "Count = x"), False, 7, "not a decimal number"),
    (HEAD.replace("[AADlen = 0]", "[AADlen 0]") + GCM_REC, False, 4, "expected a section header"),
    (HEAD.replace("[AADlen = 0]", "[Foo = 0]") + GCM_REC, False, 4, "unknown section header (known: "),
    (HEAD + GCM_REC.replace("CT = 01", "CT = 0102"), False, 12, "CT has 16 bits, the section header [PTlen = 8]"),
    (GCM_REC.replace("CT = 01", "CT = 0102"), False, 6, "CT has 2 bytes, PT 1"),
    (HEAD + GCM_REC.replace("Key = ", "Key "), False, 8, "expected 'Name = value'"),
])
def test_malformed_gcm_text(text, decrypt, line, reason):
    with pytest.raises(VectorFileError) as e:
        vectors.parse_gcm(text, "t.rsp", decrypt)
    msg = _one_line(e.value)
    assert msg.startswith(f"t.rsp:{line}: ") and reason in msg, msg
    assert "ADD" not in msg and "Foo" not in msg          # a name from the file is never quoted


def test_well_formed_gcm_text_parses():
    # the fixtures above are malformed only where they are changed
    assert len(vectors.parse_gcm(HEAD + GCM_REC, "t.rsp").records) == 1
    v = vectors.parse_gcm(HEAD + GCM_REC.replace("PT = 00", "FAIL"), "t.rsp", decrypt=True).records[0]
    assert v.fail and v.pt is None and v.decrypt


def test_malformed_line_in_the_real_file_is_located():
    path = vectors.cavp_dir() / vectors.GCM_DECRYPT_FILE
    lines = path.read_text().splitlines()
    n = next(i for i, ln in enumerate(lines) if ln.startswith("Tag = ") and i > 1000)
    lines[n] = "Tag = " + "g" * 32
    with pytest.raises(VectorFileError) as e:
        vectors.parse_gcm("\r\n".join(lines), path.name, decrypt=True)
    assert _one_line(e.value) == f"gcmDecrypt128.rsp:{n + 1}: Tag is not a hex byte string"


@pytest.mark.parametrize("text, line, reason", [
    ("COUNT = 0\nKEY = 00\nMESSAGE =\n", 1, "record without Tag"),
    ("Count = 0\nKlen = 16\nMlen = 2\nTlen = 16\nKey = " + "00" * 16 + "\nMsg = 00\nMac = " + "00" * 16 + "\n",
     6, "message has 1 bytes, Mlen says 2"),
    ("Count = 0\nKlen = 15\nMlen = 0\nTlen = 16\nKey = " + "00" * 16 + "\nMsg = 00\nMac = " + "00" * 16 + "\n",
     2, "key has 16 bytes, Klen says 15"),
    ("COUNT = 0\nKEY = 0\nMESSAGE =\nOUTPUT = 00\n", 2, "not a hex byte string"),
    ("COUNT = 0\nKEY = 00\nMESSAGE =\nOUTPUT =\n", 4, "empty tag"),
    ("COUNT = 0\nKEY = 00\nIV = 00\nMESSAGE =\nOUTPUT = 00\n", 3, "unknown field (known: "),
])
def test_malformed_cmac_text(text, line, reason):
    with pytest.raises(VectorFileError) as e:
        vectors.parse_cmac(text, "c.txt")
    msg = _one_line(e.value)
    assert msg.startswith(f"c.txt:{line}: ") and reason in msg, msg


def test_cmac_cavp_format_and_skips():
    """The CMACGen field names; Mlen = 0 with Msg = 00 is the empty message; short tags skipped."""
    rnd = random.Random(RNG_SEED + 6)
    key, msg = rnd.randbytes(16), rnd.randbytes(20)
    recs = [(key, b"", 16), (key, msg, 16), (key, msg, 8), (rnd.randbytes(32), msg, 16)]
    text = "\n".join(f"Count = {i}\nKlen = {len(k)}\nMlen = {len(m)}\nTlen = {t}\nKey = {k.hex()}\n"
                     f"Msg = {m.hex() or '00'}\nMac = {lib_cmac(k, m)[:t].hex()}\n" for i, (k, m, t) in enumerate(recs))
    vs = vectors.parse_cmac(text, "gen.rsp")
    assert [(v.msg, v.tlen) for v in vs.records] == [(b"", 16), (msg, 16)]
    assert dict(vs.skipped) == {"tag of 64 bits (the core gives 128)": 1, "key of 256 bits (the core takes 128)": 1}
    assert all(model.cmac(v.key, v.msg) == v.tag for v in vs.records)


@pytest.mark.parametrize("reader", [vectors.parse_cmac, vectors.parse_gcm])
def test_no_record(reader):
    with pytest.raises(VectorFileError) as e:
        reader("# only a comment\n\n", "e.txt")
    assert _one_line(e.value).startswith("e.txt: no ")


def test_unreadable_files(tmp_path):
    with pytest.raises(VectorFileError) as e:
        vectors.read_gcm(tmp_path / "missing.rsp", decrypt=False)
    assert "missing.rsp" in _one_line(e.value)
    bad = tmp_path / "bin.rsp"
    bad.write_bytes(b"Count = 0\n\xff\xfe\n")
    with pytest.raises(VectorFileError) as e:
        vectors.read_cmac(bad)
    assert _one_line(e.value).endswith("bin.rsp:2: not UTF-8 text (column 1)")
    with pytest.raises(VectorFileError) as e:
        vectors.read_cmac(tmp_path)
    assert str(tmp_path) in _one_line(e.value)


def test_missing_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "cryptography_vectors", None)
    with pytest.raises(VectorFileError) as e:
        vectors.load_cmac()
    assert "cryptography_vectors" in _one_line(e.value)
