"""Golden model of π-Cipher v2 (π16, π32, π64) against the official vectors and the facts in
PI16CIPHER.md and the reference's parameter headers."""

from __future__ import annotations

import functools
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dcsflow.designs.picipher import model
from dcsflow.designs.picipher.errors import AuthenticationError, ChecksumError, InputError, VectorFileError
from dcsflow.designs.picipher.vectors import OFFICIAL, OFFICIAL_FILES, load_official, parse_vectors, read_vectors

CHUNKS = 12  # per key size; xdist spreads the 24 chunks over the workers
WIDE = [(w, k) for w, k in OFFICIAL if w != 16]     # the π32/π64 files: (word bits, key bits)
WIDE_CHUNKS = 3


@functools.lru_cache(maxsize=None)
def _official(bits, word_bits=16):
    return load_official(bits, word_bits)


def test_pi_of_zero_state_matches_spec():
    # PI16CIPHER.md, "Check: π(all-zero state) = ..."
    want = "0274 2A3D 9D5E 0319 32B4 2751 745B A328 D2D4 1AE9 8E70 0FE6 9506 E58D 996B 6075"
    assert model.pi((0,) * 16) == tuple(int(w, 16) for w in want.split())


def test_official_files_have_5625_records_each():
    for bits in OFFICIAL_FILES:
        vs = _official(bits)
        assert len(vs) == 5625
        assert all(v.key_bits == bits for v in vs)
        assert sum(v.smn is None for v in vs) == 625
        assert sum(v.smn is None and not v.ad for v in vs) == 25


@pytest.mark.parametrize("bits", [96, 128])
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_official_vectors(bits, chunk):
    vs = _official(bits)[chunk::CHUNKS]
    assert vs
    for i, v in enumerate(vs):
        c = model.encrypt(v.key, v.pmn, v.msg, v.ad, v.smn)
        assert c == v.cipher, f"vector #{v.number} (line {v.line}) encrypt"
        got = model.decrypt(v.key, v.pmn, v.cipher, v.ad, with_smn=v.smn is not None)
        assert got == ((v.smn, v.msg) if v.smn is not None else v.msg), f"vector #{v.number} decrypt"
        if i % 20 == 0:
            bad = bytearray(v.cipher)
            bad[(i // 20) % len(bad)] ^= 1 << (i % 8)
            with pytest.raises(AuthenticationError):
                model.decrypt(v.key, v.pmn, bytes(bad), v.ad, with_smn=v.smn is not None)


def test_building_blocks_compose_to_encrypt():
    key, pmn = bytes(range(16)), b"\xa0\xa1\xa2\xa3"
    cis, ctr0 = model.initialize(key, pmn)
    assert ctr0 == cis[4] | cis[5] << 16 | cis[6] << 32 | cis[7] << 48
    cis2, ctr, tag = model.empty_ad_step(cis, ctr0)
    assert ctr == ctr0 + 1
    p = model.cis_parameters(key, pmn)
    assert (p.cis, p.ctr, p.tag) == (cis2, ctr, tag)
    v = p.as_int()
    assert v & 0xFFFF == cis2[0] and (v >> 256) & ((1 << 64) - 1) == ctr and v >> 432 == tag[7]
    # A one-block message, assembled from the blocks, equals encrypt().
    out, _, t = model.triplex(cis2, ctr + 1, model.pad_block(b"abc"), tag)
    assert model.encrypt(key, pmn, b"abc") == out[:3] + model.words_to_bytes(t)


@settings(max_examples=40, deadline=None)
@given(key=st.binary(min_size=12, max_size=12) | st.binary(min_size=16, max_size=16),
       pmn=st.binary(min_size=4, max_size=4), msg=st.binary(max_size=70), ad=st.binary(max_size=40),
       smn=st.none() | st.binary(min_size=16, max_size=16))
def test_roundtrip(key, pmn, msg, ad, smn):
    c = model.encrypt(key, pmn, msg, ad, smn)
    assert len(c) == len(msg) + 16 + (16 if smn else 0)
    got = model.decrypt(key, pmn, c, ad, with_smn=smn is not None)
    assert got == ((smn, msg) if smn is not None else msg)
    with pytest.raises(AuthenticationError):
        model.decrypt(key, pmn, c, ad + b"x", with_smn=smn is not None)


@pytest.mark.parametrize("key,pmn,msg", [(bytes(11), bytes(4), "12 bytes"), (bytes(17), bytes(4), "16 bytes"),
                                         (bytes(12), bytes(3), "4 bytes"), ("00" * 12, bytes(4), "bytes")])
def test_wrong_sizes_name_expected_size(key, pmn, msg):
    with pytest.raises(InputError, match=msg):
        model.encrypt(key, pmn, b"")
    assert InputError.user_error


def test_wrong_smn_size():
    with pytest.raises(InputError, match="16 bytes"):
        model.encrypt(bytes(12), bytes(4), b"", smn=bytes(8))


def test_parse_hex_errors():
    assert model.parse_hex("0a0B", "key") == b"\x0a\x0b"
    with pytest.raises(InputError, match="12 bytes"):
        model.parse_hex("zz" * 12, "key", (12, 16))
    typo = "5ec2e7ba5eba11ee5ec2e7bg"                   # a key with one typo: position, not the key
    with pytest.raises(InputError, match=r"key is not a hex string .*: not hex at character 27$") as ei:
        model.parse_hex(" 0x" + typo, "key", 12)
    assert not any(typo[i:i + 6] in str(ei.value) for i in range(len(typo) - 5)), str(ei.value)
    with pytest.raises(InputError, match="3 hex digits, an odd number"):
        model.parse_hex("0a0", "key")
    with pytest.raises(InputError, match="expected 4 bytes"):
        model.parse_hex("123", "pmn", 4)
    with pytest.raises(InputError, match="must be 4 bytes"):
        model.parse_hex("1234", "pmn", 4)


def test_short_ciphertext_rejected():
    with pytest.raises(InputError, match="16"):
        model.decrypt(bytes(12), bytes(4), bytes(15))


GOOD = """# c
[msg_len = 0]
[vector #1 (1)]
KEY (12) = 25CFA7958E16A944F11F17EB
NPUB (4) = ECDD50A8
NSEC (0) = 
MSG (0) = 
AD (0) = 
CIPHER (16) = A064CCE52F3C59C2222264761857DC1F
"""


def test_parse_small_record_and_model_agrees():
    (v,) = parse_vectors(GOOD)
    assert v.smn is None and v.line == 3
    assert model.encrypt(v.key, v.pmn, v.msg) == v.cipher


@pytest.mark.parametrize("bad,line", [
    (GOOD.replace("NPUB (4) = ECDD50A8", "NPUB (4) = ECDD50"), 5),
    (GOOD.replace("MSG (0) = ", "MSG (0) = zz"), 7),
    (GOOD.replace("AD (0) = \n", ""), 3),
    (GOOD.replace("[vector #1 (1)]", "vector 1"), 3),
    (GOOD.replace("CIPHER (16)", "FOO (16)"), 9),
    (GOOD.replace("CIPHER (16) = A0", "CIPHER (17) = 00A0"), 3),
])
def test_malformed_file_names_file_and_line(tmp_path, bad, line):
    p = tmp_path / "bad.test-vectors"
    p.write_text(bad)
    with pytest.raises(VectorFileError, match=rf"bad\.test-vectors:{line}:"):
        read_vectors(p)


def test_checksum_mismatch_detected(tmp_path, shared):
    src = shared / "vectors" / "picipher"
    name = OFFICIAL_FILES[96]
    data = (src / name).read_bytes()
    shutil.copy(src / "SHA256SUMS", tmp_path / "SHA256SUMS")
    (tmp_path / name).write_bytes(data.replace(b"A064CCE5", b"A064CCE6", 1))
    with pytest.raises(ChecksumError, match="differs"):
        read_vectors(tmp_path / name)
    (tmp_path / name).write_bytes(data)
    assert len(read_vectors(tmp_path / name)) == 5625


def test_missing_vector_file_says_where(monkeypatch, tmp_path):
    """The official vectors ship with the design; a missing copy is one line naming the path."""
    from dcsflow.designs.picipher import vectors

    monkeypatch.setattr(vectors, "VECTOR_DIR", tmp_path / "nowhere")
    with pytest.raises(VectorFileError, match=r"official vectors missing from the package: .*nowhere/pi16cipher096"):
        load_official(96)


# ------------------------------------------------------------------------------ π32 and π64
def test_constants_of_every_word_size_are_windows_of_the_weight_4_byte_sequence():
    """The μ, ν and round constants typed in the model (from the reference's parameter headers)
    against the construction they all follow: the cyclic sequence of the 70 bytes of Hamming weight
    4 in decreasing order, μ from byte 0, ν from byte ω/2, the round constants from byte ω."""
    seq = [b for b in range(255, -1, -1) if bin(b).count("1") == 4]
    assert len(seq) == 70 and seq[:3] == [0xF0, 0xE8, 0xE4] and seq[-1] == 0x0F

    def words(start, n, w):
        nb = w // 8
        return tuple(int.from_bytes(bytes(seq[(start + i * nb + j) % 70] for j in range(nb)), "big")
                     for i in range(n))

    for w in model.WORD_BITS:
        c = model.cipher(w)
        assert c.mu_const == words(0, 4, w)
        assert c.nu_const == words(w // 2, 4, w)
        assert sum(c.rc, ()) == words(w, 24, w)
        assert all(0 < r < w for r in c.mu_rot + c.nu_rot)
    assert model.RC == model.PI16.rc


def test_wide_official_files_record_counts():
    for (w, bits) in WIDE:
        vs = _official(bits, w)
        n = 873 if w == 32 else 1737               # msg_len 0..48 (π32) / 0..96 (π64) x ad_len, 9 each
        assert len(vs) == n, (w, bits)
        assert all(v.key_bits == bits and v.word_bits == w and len(v.pmn) == 16 for v in vs)
        assert all(v.smn is None or len(v.smn) == w for v in vs)      # one block: 8 words of ω bits
        assert sum(v.smn is None for v in vs) == n // 9
        assert sum(v.smn is None and not v.ad for v in vs) == (49 if w == 32 else 97)
        assert max(len(v.msg) for v in vs) == (48 if w == 32 else 96)


@pytest.mark.parametrize("w,bits", WIDE)
@pytest.mark.parametrize("chunk", range(WIDE_CHUNKS))
def test_wide_official_vectors(w, bits, chunk):
    """Every record of the π32/π64 files: encrypt gives CIPHER; decrypt gives back MSG (and NSEC);
    every 10th record with one bit flipped (in C0, C or the tag, by turns) fails authentication."""
    c = model.cipher(w)
    vs = _official(bits, w)[chunk::WIDE_CHUNKS]
    assert vs
    for i, v in enumerate(vs):
        assert c.encrypt(v.key, v.pmn, v.msg, v.ad, v.smn) == v.cipher, f"vector #{v.number} (line {v.line}) encrypt"
        with_smn = v.smn is not None
        got = c.decrypt(v.key, v.pmn, v.cipher, v.ad, with_smn=with_smn)
        assert got == ((v.smn, v.msg) if with_smn else v.msg), f"vector #{v.number} decrypt"
        if i % 10 == 0:
            bad = bytearray(v.cipher)
            bad[(i * 7) % len(bad)] ^= 1 << (i % 8)
            with pytest.raises(AuthenticationError):
                c.decrypt(v.key, v.pmn, bytes(bad), v.ad, with_smn=with_smn)


@pytest.mark.parametrize("w", [32, 64])
def test_wide_decrypt_without_the_smn_flag_fails(w):
    # the SMN block read as message: another layout, so the tag check must fail
    v = next(v for v in _official(128, w) if v.smn is not None and v.msg)
    with pytest.raises(AuthenticationError):
        model.cipher(w).decrypt(v.key, v.pmn, v.cipher, v.ad)


@pytest.mark.parametrize("w", [32, 64])
def test_wide_building_blocks(w):
    c = model.cipher(w)
    key, pmn = bytes(range(32)), bytes(range(100, 116))
    cis, ctr0 = c.initialize(key, pmn)
    # the 64-bit counter is chunk IS1 from W4 up: W4 | W5 << 32 (π32), W4 (π64)
    assert ctr0 == (cis[4] | cis[5] << 32 if w == 32 else cis[4])
    # injected back into W0.. the same way: W0 ^= W4, W1 ^= W5 (π32); W0 ^= W4 only (π64)
    want = (cis[0] ^ cis[4], cis[1] ^ cis[5]) if w == 32 else (cis[0] ^ cis[4], cis[1])
    assert c.inject_counter(cis, ctr0)[:2] == want and c.inject_counter(cis, ctr0)[2:] == cis[2:]
    p = c.cis_parameters(key, pmn)
    assert p.word_bits == w and p.bits == 24 * w + 64 and p.as_int() < 1 << p.bits
    assert p.as_int() >> (p.bits - w) == p.tag[7] and p.as_int() & c.mask == p.cis[0]
    out, _, t = c.triplex(p.cis, p.ctr + 1, c.pad_block(b"abc"), p.tag)
    assert c.encrypt(key, pmn, b"abc") == out[:3] + c.words_to_bytes(t)
    assert len(c.rate_bytes(cis)) == c.block_bytes == c.tag_bytes == c.smn_bytes == w


@settings(max_examples=15, deadline=None)
@given(w=st.sampled_from([32, 64]), long_key=st.booleans(), pmn=st.binary(min_size=16, max_size=16),
       msg=st.binary(max_size=140), ad=st.binary(max_size=70), with_smn=st.booleans(), data=st.data())
def test_wide_roundtrip(w, long_key, pmn, msg, ad, with_smn, data):
    c = model.cipher(w)
    key = data.draw(st.binary(min_size=32 if long_key else 16, max_size=32 if long_key else 16))
    smn = data.draw(st.binary(min_size=w, max_size=w)) if with_smn else None
    ct = c.encrypt(key, pmn, msg, ad, smn)
    assert len(ct) == len(msg) + w + (w if smn else 0)
    assert c.decrypt(key, pmn, ct, ad, with_smn=with_smn) == ((smn, msg) if with_smn else msg)
    with pytest.raises(AuthenticationError):
        c.decrypt(key, pmn, ct, ad + b"x", with_smn=with_smn)


@pytest.mark.parametrize("w,key,pmn,smn,msg", [
    (32, bytes(12), bytes(16), None, "16 bytes .128 bits. or 32 bytes .256 bits., got 12"),
    (64, bytes(24), bytes(16), None, "16 bytes .128 bits. or 32 bytes .256 bits., got 24"),
    (32, bytes(16), bytes(4), None, "π32-Cipher PMN .nonce. must be 16 bytes .128 bits., got 4"),
    (64, bytes(32), bytes(12), None, "π64-Cipher PMN .nonce. must be 16 bytes"),
    (64, bytes(16), bytes(16), bytes(32), "π64-Cipher SMN must be 64 bytes"),
    (32, bytes(16), bytes(16), bytes(16), "π32-Cipher SMN must be 32 bytes"),
    (16, bytes(16), bytes(16), None, "π16-Cipher PMN .nonce. must be 4 bytes"),
])
def test_wide_wrong_sizes_name_expected_size(w, key, pmn, smn, msg):
    with pytest.raises(InputError, match=msg):
        model.cipher(w).encrypt(key, pmn, b"", smn=smn)


def test_unknown_word_size_and_short_wide_ciphertext():
    with pytest.raises(InputError, match="16, 32 or 64"):
        model.cipher(24)
    with pytest.raises(InputError, match="at least 64 bytes"):
        model.PI32.decrypt(bytes(16), bytes(16), bytes(63), with_smn=True)


def _wide_record(w, **fields):
    v = _official(128, w)[8]                    # vector #9: no NSEC, empty MSG and AD
    assert v.smn is None and not v.msg and not v.ad
    f = {"KEY": v.key, "NPUB": v.pmn, "NSEC": b"", "MSG": b"", "AD": b"", "CIPHER": v.cipher, **fields}
    return "[vector #9 (9)]\n" + "".join(f"{k} ({len(b)}) = {b.hex().upper()}\n" for k, b in f.items())


@pytest.mark.parametrize("w", [32, 64])
def test_parse_wide_record_infers_word_size(w):
    (v,) = parse_vectors(_wide_record(w))
    assert v.word_bits == w and v.smn is None and v.tag == v.cipher and v.ciphertext == b""
    assert model.cipher(w).encrypt(v.key, v.pmn, v.msg) == v.cipher
    with pytest.raises(VectorFileError, match=f"<text>:1: vector #9: NPUB must be 4 bytes for π16-Cipher"):
        parse_vectors(_wide_record(w), word_bits=16)


def test_parse_wide_record_errors():
    with pytest.raises(VectorFileError, match="KEY must be 16 or 32 bytes for π32-Cipher, got 12"):
        parse_vectors(_wide_record(32, KEY=bytes(12)))
    with pytest.raises(VectorFileError, match="NSEC must be 0 or 64 bytes for π64-Cipher, got 16"):
        parse_vectors(_wide_record(64, NSEC=bytes(16), CIPHER=bytes(80)), word_bits=64)
    with pytest.raises(VectorFileError, match="fit no π-Cipher word size"):
        parse_vectors(_wide_record(32, CIPHER=bytes(40)))


def test_wide_official_files_are_checksummed(tmp_path):
    from dcsflow.designs.picipher.vectors import VECTOR_DIR, official_file

    name = OFFICIAL[(64, 256)]
    assert official_file(256, 64) == VECTOR_DIR / name
    data = (VECTOR_DIR / name).read_bytes()
    shutil.copy(VECTOR_DIR / "SHA256SUMS", tmp_path / "SHA256SUMS")
    (tmp_path / name).write_bytes(data.replace(b"CIPHER (128) = 09", b"CIPHER (128) = 08", 1))
    with pytest.raises(ChecksumError, match="differs"):
        read_vectors(tmp_path / name)
    with pytest.raises(ValueError, match="key bits: 128 or 256"):
        official_file(96, 32)
