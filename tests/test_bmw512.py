"""The BMW-512 golden model of the PPE design (designs/ppe/bmw512.py).

The oracle is the KAT file (digests from sphlib 3.0's test table, shared/SOURCES.md); no expected value
here is produced by the model itself.
"""

from __future__ import annotations

import hashlib
import re
import time

import pytest

from dcsflow.designs.ppe import bmw512 as bmw
from dcsflow.designs.ppe.bmw512_kat import (KAT_FILE, VECTOR_DIR, ChecksumError, KatFormatError, check_sha256,
                                            load_kat, parse_kat)

RECORDS = load_kat()


def test_kat_file_has_256_byte_aligned_records():
    assert len(RECORDS) == 256
    assert [r.bits for r in RECORDS] == list(range(0, 2048, 8))
    assert RECORDS[0].msg == b"" and RECORDS[1].msg == bytes.fromhex("CC")


def test_all_kat_records(capsys):
    t0 = time.perf_counter()
    wrong = [r.bits for r in RECORDS if bmw.bmw512(r.msg) != r.md]
    dt = time.perf_counter() - t0
    assert not wrong, f"{len(wrong)} of {len(RECORDS)} KAT records wrong, Len = {wrong[:10]}"
    with capsys.disabled():
        print(f"\nBMW-512: {len(RECORDS)} KAT records in {dt:.3f} s")


def test_package_copy_equals_the_shared_file(shared):
    src = shared / "vectors" / "bmw" / KAT_FILE
    assert src.is_file(), f"shared KAT file missing: {src}"
    pkg = VECTOR_DIR / KAT_FILE
    assert hashlib.sha256(pkg.read_bytes()).digest() == hashlib.sha256(src.read_bytes()).digest()
    check_sha256(pkg)
    text = (VECTOR_DIR / "SOURCES.md").read_text()
    row = next(line for line in (shared / "SOURCES.md").read_text().splitlines()
               if line.startswith(f"| vectors/bmw/{KAT_FILE} "))
    assert row in text.splitlines()
    # the shared file parses to the same records as the package copy
    assert parse_kat(src.read_text(), str(src)) == RECORDS


def test_checksum_mismatch_is_refused(tmp_path):
    f = tmp_path / KAT_FILE
    f.write_bytes((VECTOR_DIR / KAT_FILE).read_bytes() + b"\n")
    (tmp_path / "SHA256SUMS").write_text((VECTOR_DIR / "SHA256SUMS").read_text())
    with pytest.raises(ChecksumError, match="was changed"):
        check_sha256(f)


GOOD = "# c\n\nLen = 0\nMsg = 00\nMD = " + "AB" * 64 + "\n\nLen = 16\nMsg = 41FB\nMD = " + "CD" * 64 + "\n"


def test_parser_reads_a_small_file():
    recs = parse_kat(GOOD)
    assert [(r.bits, r.msg, r.md, r.line) for r in recs] == [
        (0, b"", b"\xab" * 64, 3), (16, b"\x41\xfb", b"\xcd" * 64, 7)]


@pytest.mark.parametrize("text, message", [
    (GOOD.replace("Msg = 41FB", "Msg = 41"), r":8: Len = 16 needs 2 bytes of Msg, got 1"),
    (GOOD.replace("Msg = 00", "Msg = "), r":4: not a 'Len = <decimal>'"),
    (GOOD.replace("Msg = 00", "Msg = 01"), r":4: Len = 0 needs 'Msg = 00'"),
    (GOOD.replace("Len = 16", "Len = 12"), r":7: Len = 12 is not a whole number of bytes"),
    (GOOD.replace("Len = 16", "Len = 1A"), r":7: Len must be a decimal"),
    (GOOD.replace("Len = 16", "Len = 0"), r":7: Len = 0 again \(first at line 3\)"),
    (GOOD.replace("MD = " + "CD" * 64, "MD = " + "CD" * 63), r":9: MD must be 64 bytes"),
    (GOOD.replace("Msg = 41FB\n", ""), r":8: expected 'Msg ='"),
    (GOOD.replace("Msg = 41FB", "Msg = 41FB\nMsg = 41FB"), r":9: expected 'MD ='"),
    (GOOD.rsplit("MD", 1)[0], r":7: record cut short: has Len, Msg but no MD"),
    (GOOD.replace("Len = 16", "Length = 16"), r":7: not a 'Len = <decimal>'"),
    ("# only comments\n", r"no records"),
])
def test_parser_rejects_malformed_files(text, message):
    with pytest.raises(KatFormatError, match=message):
        parse_kat(text, "bad.txt")


def test_malformed_file_on_disk(tmp_path):
    f = tmp_path / "broken.txt"
    f.write_text((VECTOR_DIR / KAT_FILE).read_text().replace("MD = ", "MD : ", 1))
    with pytest.raises(KatFormatError, match=re.escape(str(f)) + r":7: not a 'Len"):
        load_kat(f)


def test_one_bit_change_changes_the_digest():
    for r in (RECORDS[1], RECORDS[64], RECORDS[200]):
        d = bmw.bmw512(r.msg)
        for bit in (0, 7, 8 * len(r.msg) - 1):
            m = bytearray(r.msg)
            m[bit // 8] ^= 1 << (bit % 8)
            d2 = bmw.bmw512(bytes(m))
            assert d2 != d
            # and roughly half of the 512 output bits change (avalanche)
            flips = bin(int.from_bytes(d, "big") ^ int.from_bytes(d2, "big")).count("1")
            assert 180 < flips < 332, flips


def test_bytes_like_inputs_and_bad_inputs():
    r = RECORDS[40]
    assert bmw.bmw512(bytearray(r.msg)) == r.md == bmw.bmw512(memoryview(r.msg))
    for bad in ("abc", None, 5, [1, 2, 3]):
        with pytest.raises(TypeError, match="message must be bytes"):
            bmw.bmw512(bad)
    with pytest.raises(ValueError, match="16 64-bit words, got 15"):
        bmw.compress(bmw.IV512, (0,) * 15)
    with pytest.raises(ValueError, match=r"M\[3\] must be in 0..2\*\*64-1"):
        bmw.compress(bmw.IV512, (0, 0, 0, 1 << 64) + (0,) * 12)
    with pytest.raises(TypeError, match=r"H\[0\] must be an int"):
        bmw.compress((1.0,) + bmw.IV512[1:], (0,) * 16)
    with pytest.raises(TypeError, match="H must be a sequence"):
        bmw.compress(bytes(128), (0,) * 16)
    with pytest.raises(ValueError, match="a block is 128 bytes"):
        bmw.block_words(bytes(64))
    with pytest.raises(ValueError, match="s_i exists for i = 0..5"):
        bmw.s(6, 1)
    with pytest.raises(ValueError, match="r_k exists for k = 1..7"):
        bmw.r(0, 1)


def test_padding_lengths():
    # msg || 0x80 || zeros || 64-bit little-endian bit length, to whole 128-byte blocks
    for n, blocks in ((0, 1), (1, 1), (119, 1), (120, 2), (127, 2), (128, 2), (247, 2), (248, 3)):
        p = bmw.pad(bytes(range(256))[:n])
        assert len(p) == 128 * blocks, n
        assert p[n] == 0x80 and not any(p[n + 1:-8]) and p[-8:] == (8 * n).to_bytes(8, "little")


def test_hash_is_built_from_the_public_building_blocks():
    """bmw512 = IV512, compress over pad(msg) (f2 of f0 ‖ f1), final compression with CONST_FINAL."""
    for r in (RECORDS[0], RECORDS[150], RECORDS[255]):   # 1, 2 and 3 padded blocks
        data = bmw.pad(r.msg)
        H = bmw.IV512
        for off in range(0, len(data), bmw.BLOCK_BYTES):
            M = bmw.block_words(data[off:off + bmw.BLOCK_BYTES])
            Qa = bmw.f0(H, M)
            H2 = bmw.f2(M, Qa + bmw.f1(H, M, Qa))
            assert H2 == bmw.compress(H, M)
            H = H2
        assert bmw.words_bytes(bmw.final(H)[8:]) == r.md


def test_constants_match_their_definitions():
    assert len(bmw.IV512) == len(bmw.CONST_FINAL) == len(bmw.K) == 16
    assert bmw.words_bytes(bmw.IV512[:1]) == bytes(range(0x87, 0x7F, -1))   # 0x8081828384858687 LE
    assert bmw.CONST_FINAL[0] == 0xAAAAAAAAAAAAAAA0 and bmw.CONST_FINAL[15] == 0xAAAAAAAAAAAAAAAF
    assert bmw.K[0] == 16 * 0x0555555555555555 % 2**64
    assert sorted(j for row in bmw.F0_TERMS for j, _ in row) == sorted(list(range(16)) * 5)
    assert bmw.EXPAND_ROUNDS1 + bmw.EXPAND_ROUNDS2 == 16


def test_compress_trace_ends_with_compress():
    r = RECORDS[77]
    M = bmw.block_words(bmw.pad(r.msg)[:128])
    trace = bmw.compress_trace(bmw.IV512, M)
    names = [n for n, _ in trace]
    assert names == ([f"W{i}" for i in range(16)] + [f"Q{i}" for i in range(32)] + ["XL", "XH"]
                     + [f"H'{i}" for i in range(16)])
    values = dict(trace)
    assert tuple(v for _, v in trace[-16:]) == bmw.compress(bmw.IV512, M)
    assert trace[-1][1] == bmw.compress(bmw.IV512, M)[15]
    Qa = bmw.f0(bmw.IV512, M)
    assert tuple(values[f"Q{i}"] for i in range(32)) == Qa + bmw.f1(bmw.IV512, M, Qa)
    assert all(0 <= v < 2**64 for v in values.values())


def test_operation_counts_document_is_current():
    """designs/ppe/BMW512.md quotes operation_counts(); the table there must match the model."""
    counts = bmw.operation_counts()
    assert counts == bmw.operation_counts(bmw.CONST_FINAL, bmw.IV512)   # value-independent
    text = (VECTOR_DIR.parent / "BMW512.md").read_text()
    for name in ("f0", "f1", "f2", "total"):
        c = counts[name]
        row = f"| {name} | {c['add']} | {c['sub']} | {c['xor']} | {c['rot']} | {c['shl']} | {c['shr']} | {c['all']} |"
        assert row in text, f"BMW512.md lacks the current row {row!r}"
