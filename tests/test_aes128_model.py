"""AES-128 golden model and vectors: library (cryptography) against the NIST CAVP KAT files
(cryptography_vectors), the FIPS-197 examples, and the FIPS-197 pieces the RTL is built from."""

from __future__ import annotations

import pytest

from dcsflow.designs.aes128 import InputError, VectorFileError, encrypt, decrypt, encrypt_rounds, key_expansion
from dcsflow.designs.aes128 import gen_sbox, parse_hex, sbox_table
from dcsflow.designs.aes128.vectors import KAT_FILES, kat_dir, load_kat, read_rsp


def test_kat_files_all_vectors():
    vs = load_kat()
    # aesavs.pdf: GFSbox 7, KeySbox 21, VarKey 128, VarTxt 128 encryption records for 128-bit keys
    assert [len(read_rsp(kat_dir() / f)) for f in KAT_FILES] == [7, 21, 128, 128]
    assert len(vs) == 284 and len({v.key for v in vs}) == 150
    for v in vs:
        assert encrypt(v.key, v.plaintext) == v.ciphertext, v.source
        assert encrypt_rounds(v.key, v.plaintext) == v.ciphertext, v.source
    for v in load_kat(section="DECRYPT"):
        assert decrypt(v.key, v.ciphertext) == v.plaintext, v.source


def test_fips197_c1_from_pycryptodome_selftest():
    # FIPS-197 Appendix C.1 as shipped in pycryptodome's self-test data (an independent package)
    from Crypto.SelfTest.Cipher import test_AES

    rows = [r for r in test_AES.test_data if len(r) > 3 and r[3] == "FIPS 197 C.1 (AES-128)" and len(r[0]) == 32]
    assert len(rows) == 1
    pt, ct, key = (bytes.fromhex(x) for x in rows[0][:3])
    assert encrypt(key, pt) == ct and encrypt_rounds(key, pt) == ct and decrypt(key, ct) == pt


def test_fips197_appendix_b_typed_and_checked_against_library():
    # typed from FIPS-197 Appendix B / A.1 (cipher example, last round key w[40..43]); the library
    # is the independent check of the three block values
    key = bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c")
    pt = bytes.fromhex("3243f6a8885a308d313198a2e0370734")
    ct = bytes.fromhex("3925841d02dc09fbdc118597196a0b32")
    assert encrypt(key, pt) == ct and encrypt_rounds(key, pt) == ct
    rk = key_expansion(key)
    assert rk[0] == key and rk[10] == bytes.fromhex("d014f9a8c9ee2589e13f0cc8b6630ca6")


def test_sbox_values_and_bijection():
    sb = sbox_table()
    assert sorted(sb) == list(range(256))
    assert sb[0x00] == 0x63 and sb[0x53] == 0xED        # FIPS-197 §5.1.1 / Figure 7 example


def test_generated_sbox_file_is_up_to_date():
    assert gen_sbox.RTL_FILE.read_text() == gen_sbox.sbox_verilog()
    assert gen_sbox.main(["--check"]) == 0


def test_generated_sbox_table_matches_model():
    import re

    text = gen_sbox.RTL_FILE.read_text()
    table = {int(a, 16): int(y, 16) for a, y in re.findall(r"8'h([0-9a-f]{2}): y = 8'h([0-9a-f]{2});", text)}
    assert table == dict(enumerate(sbox_table()))


@pytest.mark.parametrize("text,msg", [("00" * 15, "key must be 32 hex digits (128 bits), got 30"),
                                      ("zz" * 16, "not hex"), ("0" * 33, "got 33")])
def test_bad_key_text(text, msg):
    with pytest.raises(InputError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        parse_hex(text, "key")
    assert InputError.user_error


def test_bad_sizes_rejected():
    with pytest.raises(InputError, match="16 bytes"):
        encrypt(bytes(15), bytes(16))
    with pytest.raises(InputError, match="16 bytes"):
        encrypt(bytes(16), bytes(17))


def test_malformed_rsp(tmp_path):
    f = tmp_path / "bad.rsp"
    f.write_text("[ENCRYPT]\n\nCOUNT = 0\nKEY = 00\nPLAINTEXT = 00\n")
    with pytest.raises(VectorFileError, match=r"bad.rsp:4: KEY must be 32 hex digits"):
        read_rsp(f)
    f.write_text("[ENCRYPT]\n\nCOUNT = 0\nKEY = " + "0" * 32 + "\n\n")
    with pytest.raises(VectorFileError, match="incomplete record"):
        read_rsp(f)
