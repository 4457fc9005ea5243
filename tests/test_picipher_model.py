"""Golden model of π16-Cipher v2 against the official vectors and the facts in PI16CIPHER.md."""

from __future__ import annotations

import functools
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dcsflow.designs.picipher import model
from dcsflow.designs.picipher.errors import AuthenticationError, ChecksumError, InputError, VectorFileError
from dcsflow.designs.picipher.vectors import OFFICIAL_FILES, load_official, parse_vectors, read_vectors

CHUNKS = 12  # per key size; xdist spreads the 24 chunks over the workers


@functools.lru_cache(maxsize=None)
def _official(bits):
    return load_official(bits)


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
