"""Bitstream reader/writer (scg.bitstream) on the real Vivado bitstream pynq-z1_base.bit."""

from __future__ import annotations

import random

import pytest

from dcsflow.scg import bitstream as B
from dcsflow.scg.device import ECC_MASK, ECC_WORD, FRAME_WORDS, decode_far, frame_ecc
from dcsflow.scg.emulator import ConfigEmulator
from dcsflow.scg.errors import BitstreamError


@pytest.fixture(scope="module")
def raw(shared):
    return (shared / "bitstreams" / "pynq-z1_base.bit").read_bytes()


@pytest.fixture(scope="module")
def pynq(raw):
    return B.parse(raw)


def _stream_offset(raw: bytes) -> int:
    _, off, _ = B.parse_bit_header(raw)
    return off


# ---- independent references -------------------------------------------------------------------
def ref_icap_crc(addr: int, data: int, crc: int) -> int:
    """Bitwise CRC step as Project X-Ray's icap_crc (CRC-32C, 37 bits LSB first)."""
    poly = 0x82F63B78 << 1
    val = (addr << 32) | data
    for _ in range(37):
        if (val & 1) != (crc & 1):
            crc ^= poly
        val >>= 1
        crc >>= 1
    return crc


def ref_frame_ecc(frame) -> int:
    """Bitwise frame ECC as Project X-Ray's icap_ecc over a whole frame."""
    ecc = 0
    for idx, data in enumerate(frame):
        val = idx * 32 + (0x1360 if idx > 0x25 else 0x1340 if idx > 0x6 else 0x1320)
        if idx == 0x32:
            data &= 0xFFFFE000
        for i in range(32):
            if data >> i & 1:
                ecc ^= val + i
    v = ecc & 0xFFF
    v ^= v >> 8
    v ^= v >> 4
    v ^= v >> 2
    v ^= v >> 1
    return (ecc ^ ((v & 1) << 12)) & 0x1FFF


# ---- header, packets, CRC ---------------------------------------------------------------------
def test_pynq_header_and_summary(pynq):
    assert pynq.header == {"a": "base_wrapper;UserID=0XFFFFFFFF;Version=2018.3", "b": "7z020clg400",
                           "c": "2019/01/23", "d": "15:27:38"}
    assert pynq.device.name == "xc7z020" and pynq.idcode == 0x03727093
    # FACTS.md: FDRI holds 10008 frames = 9996 real + 12 pad
    assert pynq.fdri_frames == 10008 and pynq.frames_written == 9996 and pynq.pad_frames == 12
    assert sum(pynq.frames.written) == 9996 and not pynq.is_partial
    assert pynq.desynced


def test_pynq_both_crc_checks(pynq):
    assert [c.expected for c in pynq.crc_checks] == [0x40DC1B15, 0xE3AD7EA5]
    assert all(c.ok for c in pynq.crc_checks) and pynq.crc_ok is True


def test_crc_step_matches_bitwise_reference():
    rng = random.Random(1)
    for _ in range(2000):
        reg, w, c = rng.randrange(32), rng.getrandbits(32), rng.getrandbits(32)
        assert B.crc_update(c, reg, w) == ref_icap_crc(reg, w, c)


@pytest.mark.parametrize("n", [1, 2, 3, 4095, 4096, 4097, 10000])
def test_crc_words_long_path_equals_reference(n):
    rng = random.Random(n)
    words = [rng.getrandbits(32) for _ in range(n)]
    for reg in (2, 0, 4):
        c0 = rng.getrandbits(32)
        ref = c0
        for w in words:
            ref = B.crc_update(ref, reg, w)
        assert B.crc_words(c0, reg, words) == ref
        assert B._crc_words_tree(c0, reg, words) == ref


# ---- frame ECC ---------------------------------------------------------------------------------
def test_frame_ecc_matches_reference_and_is_linear():
    rng = random.Random(5)
    for _ in range(30):
        a = [rng.getrandbits(32) if rng.random() < 0.3 else 0 for _ in range(FRAME_WORDS)]
        b = [rng.getrandbits(32) if rng.random() < 0.3 else 0 for _ in range(FRAME_WORDS)]
        assert frame_ecc(a) == ref_frame_ecc(a)
        assert frame_ecc([x ^ y for x, y in zip(a, b)]) == frame_ecc(a) ^ frame_ecc(b)


def test_pynq_word50_holds_ecc(pynq):
    nonzero = pynq.frames.nonzero_fars()
    bad = pynq.frames.ecc_mismatches()
    assert len(nonzero) == 5766
    # all but the LUTRAM (SLICEM minors 32-35), clock-column and BRAM-content frames Vivado marks differently
    assert len(bad) == 26
    for far in bad:
        fa = decode_far(far)
        assert fa.block == 1 or fa.minor >= 28


# ---- round trip ---------------------------------------------------------------------------------
def test_full_roundtrip_byte_identical(raw, pynq):
    out = B.write_full(pynq.frames)
    assert out == raw[_stream_offset(raw):]  # Vivado's own stream, word for word
    again = B.parse(B.to_bit(out, design="x", part="7z020clg400"))
    assert again.frames == pynq.frames and again.crc_ok is True
    assert again.header["a"] == "x"


def test_full_roundtrip_after_lut_change(pynq):
    mem = pynq.frames.copy()
    mem.set_lut("SLICE_X57Y120", "B6LUT", 0x0123456789ABCDEF)
    again = B.parse(B.write_full(mem))
    assert again.crc_ok and again.frames == mem
    assert again.frames.get_lut("SLICE_X57Y120", "B6LUT") == 0x0123456789ABCDEF
    assert again.frames.diff(pynq.frames) == sorted(set(mem.diff(pynq.frames)), key=mem.device.far_index.get)


# ---- LUT API ------------------------------------------------------------------------------------
def test_set_lut_touches_exactly_its_bits(pynq):
    dev = pynq.device
    rng = random.Random(7)
    for site in ("SLICE_X56Y34", "SLICE_X57Y99", "SLICE_X0Y0", "SLICE_X113Y149"):
        for bel in ("A6LUT", "D6LUT"):
            mem = pynq.frames.copy()
            old = mem.get_lut(site, bel)
            new = rng.getrandbits(64)
            changed = mem.set_lut(site, bel, new, update_ecc=False)
            assert mem.get_lut(site, bel) == new
            locs = {(b.far, b.word, b.bit) for b in dev.lut_bits(site, bel)}
            flips = set()
            for far in mem.diff(pynq.frames):
                fa, fb = mem.frame(far), pynq.frames.frame(far)
                for w in range(FRAME_WORDS):
                    x = fa[w] ^ fb[w]
                    flips |= {(far, w, k) for k in range(32) if x >> k & 1}
            expect = {loc for i, loc in enumerate(b for b in dev.lut_bits(site, bel)) if (old ^ new) >> i & 1}
            assert flips == {tuple(e) for e in expect} and flips <= locs
            assert set(changed) == {f for f, _, _ in flips}


def test_set_lut_updates_ecc(pynq):
    mem = pynq.frames.copy()
    site = "SLICE_X54Y60"
    changed = mem.set_lut(site, "C6LUT", 0xFFFF0000FFFF0000)
    assert changed
    for far in changed:
        fr, old = mem.frame(far), pynq.frames.frame(far)
        # ECC moves by the ECC of the change (linear), so a correct ECC stays correct
        delta = [a ^ b for a, b in zip(fr, old)]
        assert (fr[ECC_WORD] ^ old[ECC_WORD]) & ECC_MASK == frame_ecc(delta)
        if frame_ecc(old) == old[ECC_WORD] & ECC_MASK:
            assert frame_ecc(fr) == fr[ECC_WORD] & ECC_MASK


def test_lut_value_errors(pynq):
    mem = pynq.frames.copy()
    with pytest.raises(ValueError):
        mem.set_lut("SLICE_X56Y34", "A6LUT", 1 << 64)


# ---- partial bitstreams -------------------------------------------------------------------------
def test_partial_bitstream_writes_exactly_the_frames(pynq):
    mem = pynq.frames.copy()
    mem.set_lut("SLICE_X56Y34", "A6LUT", 0xDEADBEEFCAFEF00D)
    mem.set_lut("SLICE_X57Y35", "D6LUT", 0x8000000000000001)
    mem.set_lut("SLICE_X90Y140", "B6LUT", 0x5555AAAA5555AAAA)
    fars = mem.diff(pynq.frames)
    for crc in (True, False):
        stream = B.write_partial(mem, fars, crc=crc)
        p = B.parse(B.to_bit(stream))
        assert p.crc_ok is (True if crc else None)
        assert p.frames.written_fars() == fars
        for far in fars:
            assert p.frames.frame(far) == mem.frame(far)
        # the emulator loaded with the template and fed the partial gives the modified memory
        emu = ConfigEmulator(frames=pynq.frames.copy())
        emu.write_words(B.words_from_bytes(stream))
        assert emu.frames == mem and not emu.crc_error and not emu.synced


def test_partial_across_row_boundary(pynq):
    dev = pynq.device
    last = max(dev.row_end - {dev.n_frames - 1})
    fars = [dev.frame_addresses[i] for i in range(last - 2, last + 3)]
    mem = pynq.frames.copy()
    for k, far in enumerate(fars):
        mem.set_frame(far, [(k + 1) * 0x01010101] * FRAME_WORDS)
    runs = B.frame_runs(dev, fars)
    assert [len(r) for r in runs] == [3, 2]
    p = B.parse(B.write_partial(mem, fars))
    assert p.frames.written_fars() == fars
    assert all(p.frames.frame(f) == mem.frame(f) for f in fars)


def test_frame_file_roundtrip(pynq):
    mem = pynq.frames.copy()
    text = mem.to_frm()
    assert text.startswith("# dcsflow-frames 1 part=xc7z020")
    back = B.FrameMemory.from_frm(text)
    assert back == mem
    with pytest.raises(BitstreamError, match="line 2"):
        B.FrameMemory.from_frm("# dcsflow-frames 1 part=xc7z020\n0x00000000 0x1,0x2\n")
    with pytest.raises(BitstreamError, match="not a frame"):
        B.FrameMemory.from_frm("0x03BE0000 " + ",".join(["0x0"] * 101))
    with pytest.raises(BitstreamError, match="version"):
        B.FrameMemory.from_frm("# dcsflow-frames 9\n")


# ---- bad input ----------------------------------------------------------------------------------
def test_truncated_bit_file(raw):
    for cut in (5, 20, 60, 200, 1000, len(raw) // 2, len(raw) - 1):
        with pytest.raises(BitstreamError):
            B.parse(raw[:cut])


def test_truncated_raw_stream(raw):
    stream = raw[_stream_offset(raw):]
    with pytest.raises(BitstreamError, match="truncated"):
        B.parse(stream[: 4 * 5000])  # inside the FDRI burst
    with pytest.raises(BitstreamError, match="whole number"):
        B.parse(stream[:4 * 5000 + 3])


def test_bit_flip_in_frame_data_is_a_crc_error(raw):
    off = _stream_offset(raw)
    rng = random.Random(3)
    for _ in range(3):
        word = 60 + rng.randrange(1010808)
        data = bytearray(raw)
        data[off + 4 * word + rng.randrange(4)] ^= 1 << rng.randrange(8)
        with pytest.raises(BitstreamError, match="CRC mismatch"):
            B.parse(bytes(data))
        assert B.parse(bytes(data), strict=False).crc_ok is False


def test_other_bad_inputs():
    with pytest.raises(BitstreamError, match="sync"):
        B.parse(b"\xff" * 64)
    with pytest.raises(BitstreamError, match="sync"):
        B.parse(b"")
    w = B.PacketWriter().raw(B.SYNC_WORD).write(B.R_IDCODE, 0x01234093)
    with pytest.raises(BitstreamError, match="IDCODE"):
        B.parse(w.to_bytes())
    w = B.PacketWriter().raw(B.SYNC_WORD, 0x50000001, 0)
    with pytest.raises(BitstreamError, match="type-2"):
        B.parse(w.to_bytes())
    w = B.PacketWriter().raw(B.SYNC_WORD, 0x80000000)
    with pytest.raises(BitstreamError, match="invalid packet header"):
        B.parse(w.to_bytes())
    w = B.PacketWriter().raw(B.SYNC_WORD).fdri([0] * 202)
    with pytest.raises(BitstreamError, match="before any IDCODE"):
        B.parse(w.to_bytes())
    w = B.PacketWriter().raw(B.SYNC_WORD).write(B.R_IDCODE, 0x03727093).fdri([0] * 150)
    with pytest.raises(BitstreamError, match="whole number"):
        B.parse(w.to_bytes())
    with pytest.raises(BitstreamError, match="cannot read"):
        B.read_file("/nonexistent/file.bit")
