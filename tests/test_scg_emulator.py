"""Configuration-memory emulator and AXI HWICAP model against the parser and the real bitstream."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dcsflow.scg import bitstream as B
from dcsflow.scg import hwicap as H
from dcsflow.scg.bitstream import NOOP, OP_READ, OP_WRITE, R_CMD, R_FAR, R_FDRO, R_IDCODE, R_STAT, SYNC_WORD, type1, type2
from dcsflow.scg.device import ECC_WORD, FRAME_WORDS, get_device
from dcsflow.scg.emulator import STAT_CRC_ERROR, STAT_ID_ERROR, ConfigEmulator
from dcsflow.scg.errors import HwicapError


@pytest.fixture(scope="module")
def pynq(shared):
    return B.parse((shared / "bitstreams" / "pynq-z1_base.bit").read_bytes())


def test_bulk_emulator_equals_parser(pynq):
    emu = ConfigEmulator()
    emu.write_words(pynq.words)
    assert emu.frames == pynq.frames
    assert emu.stats["frames_written"] == 9996 and emu.stats["pad_frames"] == 12
    assert emu.stats["crc_checks"] == 2 and not emu.crc_error
    assert not emu.synced  # DESYNC at the end
    assert emu.regs[B.R_COR0] == 0x02003FE5


def test_word_by_word_through_hwicap_equals_parser(pynq):
    """pynq-z1_base.bit sent word by word through the AXI HWICAP write FIFO (1024 deep)."""
    hw = H.AxiHwicap()
    write = hw.write
    words = pynq.words.tolist()
    depth = hw.write_fifo_depth
    for i in range(0, len(words), depth):
        assert hw.read(H.WFV) == depth
        for w in words[i:i + depth]:
            write(H.WF, w)
        assert hw.read(H.WFV) == 0 or i + depth > len(words)
        write(H.CR, H.CR_WRITE)
        assert hw.read(H.CR) & H.CR_WRITE == 0
    assert hw.emulator.frames == pynq.frames
    assert hw.stats["icap_words_in"] == len(words)
    assert hw.stats["writes_by_reg"]["WF"] == len(words)
    assert hw.read(H.SR) & H.SR_CFGERR_N


def test_word_by_word_single_word_api_small_partial(pynq):
    """The one-word API and odd chunkings give the same memory as the bulk API."""
    mem = pynq.frames.copy()
    mem.set_lut("SLICE_X60Y70", "A6LUT", 0x0F0F0F0F0F0F0F0F)
    stream = B.words_from_bytes(B.write_partial(mem, mem.diff(pynq.frames)))
    for chunk in (1, 7, 101, 1000):
        emu = ConfigEmulator(frames=pynq.frames.copy())
        for i in range(0, len(stream), chunk):
            part = stream[i:i + chunk]
            if chunk == 1:
                emu.write_word(part[0])
            else:
                emu.write_words(list(part))
        assert emu.frames == mem


def test_lut_read_modify_write_through_hwicap(pynq):
    """Read the 4 frames of a site, change one LUT, write them back: only those 64 bits (and, with
    ECC update, the ECC bits of word 50 of the touched frames) change anywhere in memory."""
    dev = pynq.device
    site, bel = "SLICE_X57Y120", "C6LUT"
    hw = H.AxiHwicap(ConfigEmulator(frames=pynq.frames.copy()))
    drv = H.HwicapDriver(hw)
    fars = dev.lut_frames(site)
    frames = drv.read_frames(fars[0], 4)
    assert frames == [pynq.frames.frame(f) for f in fars]
    for update_ecc in (False, True):
        hw.emulator.frames = pynq.frames.copy()
        tmp = B.FrameMemory(dev)
        for f, fr in zip(fars, frames):
            tmp.set_frame(f, fr)
        new = 0xA5A5A5A55A5A5A5A
        old = tmp.get_lut(site, bel)
        tmp.set_lut(site, bel, new, update_ecc=update_ecc)
        hw.reset_counters()
        drv.write_frames(fars[0], [tmp.frame(f) for f in fars])
        mem = hw.emulator.frames
        assert mem.get_lut(site, bel) == new
        flips = set()
        for far in mem.diff(pynq.frames):
            a, b = mem.frame(far), pynq.frames.frame(far)
            for w in range(FRAME_WORDS):
                x = a[w] ^ b[w]
                flips |= {(far, w, k) for k in range(32) if x >> k & 1}
        lut = {tuple(b) for i, b in enumerate(dev.lut_bits(site, bel)) if (old ^ new) >> i & 1}
        lut_flips = {f for f in flips if f[1] != ECC_WORD}
        assert lut_flips == lut
        ecc_flips = flips - lut_flips
        if update_ecc:
            assert all(k < 13 for _, _, k in ecc_flips)
        else:
            assert not ecc_flips
        # cost: 5 frames (4 + pad) of FDRI plus the command words, one WF write each
        assert hw.stats["icap_words_in"] == hw.stats["writes_by_reg"]["WF"] > 5 * FRAME_WORDS


def test_readback_dummy_frame_and_far_increment(pynq):
    emu = ConfigEmulator(frames=pynq.frames.copy())
    far = pynq.device.lut_frames("SLICE_X56Y34")[0]
    emu.write_words([SYNC_WORD, NOOP, type1(OP_WRITE, R_FAR, 1), far,
                     type1(OP_READ, R_FDRO, 0), type2(OP_READ, 3 * FRAME_WORDS)])
    out = emu.read_words(10 ** 6)
    assert len(out) == 3 * FRAME_WORDS
    assert out[:FRAME_WORDS] == [0] * FRAME_WORDS
    nxt = pynq.device.next_far(far)[0]
    assert out[FRAME_WORDS:2 * FRAME_WORDS] == pynq.frames.frame(far)
    assert out[2 * FRAME_WORDS:] == pynq.frames.frame(nxt)
    emu.write_words([type1(OP_READ, R_IDCODE, 1), type1(OP_READ, R_FAR, 1)])
    assert emu.read_words(2) == [0x03727093, pynq.device.next_far(nxt)[0]]


def test_idcode_mismatch_is_an_error_state(pynq):
    dev = get_device()
    emu = ConfigEmulator(frames=pynq.frames.copy())
    far = dev.lut_frames("SLICE_X56Y34")[0]
    seq = [SYNC_WORD, type1(OP_WRITE, R_IDCODE, 1), 0x0362D093,  # xc7a35t's IDCODE
           type1(OP_WRITE, R_FAR, 1), far, type1(OP_WRITE, R_CMD, 1), 1,
           type1(OP_WRITE, B.R_FDRI, 0), type2(OP_WRITE, 2 * FRAME_WORDS), *([0xFFFFFFFF] * 2 * FRAME_WORDS)]
    emu.write_words(seq)
    assert emu.in_error and emu.id_error
    assert emu.frames == pynq.frames  # writes ignored
    emu.write_words([type1(OP_READ, R_STAT, 1)])
    assert emu.read_words(1)[0] & STAT_ID_ERROR
    assert H.AxiHwicap(emu).read(H.SR) & H.SR_CFGERR_N == 0
    # DESYNC leaves the error state; a correct IDCODE then works
    emu.write_words([type1(OP_WRITE, R_CMD, 1), B.CMD_DESYNC])
    assert not emu.synced and not emu.in_error
    seq[2] = 0x03727093
    emu.write_words(seq)
    assert not emu.in_error
    assert emu.frames.frame(far) == [0xFFFFFFFF] * FRAME_WORDS
    assert emu.frames.frame(dev.next_far(far)[0]) == pynq.frames.frame(dev.next_far(far)[0])  # pad held


def test_crc_error_and_desync():
    emu = ConfigEmulator()
    emu.write_words([0xFFFFFFFF, 0x000000BB, SYNC_WORD, type1(OP_WRITE, B.R_CRC, 1), 0x12345678])
    assert emu.crc_error and emu.stat & STAT_CRC_ERROR
    emu.write_words([type1(OP_WRITE, R_CMD, 1), B.CMD_DESYNC, type1(OP_WRITE, R_FAR, 1), 5])
    assert not emu.synced and emu.far == 0  # words after DESYNC are ignored until the next sync


def test_ctl0_mask():
    emu = ConfigEmulator()
    emu.write_words([SYNC_WORD, type1(OP_WRITE, B.R_MASK, 1), 0x00F, type1(OP_WRITE, B.R_CTL0, 1), 0xFFF])
    assert emu.regs[B.R_CTL0] == 0x00F


def test_hwicap_fifos_reset_abort_and_irq():
    hw = H.AxiHwicap(write_fifo_depth=16, read_fifo_depth=8)
    assert hw.read(H.WFV) == 16 and hw.read(H.RFO) == 0
    sr = hw.read(H.SR)
    assert sr & H.SR_DONE and sr & H.SR_EOS and sr & H.SR_IN_ABORT_N and not sr & H.SR_DALIGN
    for k in range(20):
        hw.write(H.WF, NOOP)
    assert hw.read(H.WFV) == 0 and hw.stats["wf_overflows"] == 4
    hw.write(H.CR, H.CR_FIFO_CLEAR)
    assert hw.read(H.WFV) == 16
    # sync, then ask for 20 STAT words: read FIFO of 8 refills as it is drained
    for w in (SYNC_WORD, type1(OP_READ, R_STAT, 20)):
        hw.write(H.WF, w)
    hw.write(H.CR, H.CR_WRITE)
    assert hw.read(H.SR) & H.SR_DALIGN
    hw.write(H.SZ, 20)
    hw.write(H.CR, H.CR_READ)
    assert hw.read(H.RFO) == 8 and hw.read(H.SR) & H.SR_RIP and hw.read(H.CR) & H.CR_READ
    assert hw.ipisr & H.IRQ_RF_FULL
    got = [hw.read(H.RF) for _ in range(20)]
    assert len(set(got)) == 1 and hw.read(H.SR) & H.SR_DONE and not hw.read(H.CR) & H.CR_READ
    assert hw.read(H.RF) == 0 and hw.stats["rf_underflows"] == 1
    # interrupts: enable read-FIFO-full, toggle-on-write clears
    hw.write(H.GIER, H.GIER_ENABLE)
    hw.write(H.IPIER, H.IRQ_RF_FULL)
    assert hw.irq
    hw.write(H.IPISR, H.IRQ_RF_FULL)
    assert not hw.irq
    # a read that can never be served stalls until aborted; abort also desynchronises the ICAP
    hw.write(H.SZ, 5)
    hw.write(H.CR, H.CR_READ)
    assert hw.read(H.SR) & H.SR_RIP
    with pytest.raises(HwicapError, match="stalled"):
        H.HwicapDriver(hw).read_words(5)
    hw.write(H.CR, H.CR_ABORT)
    assert not hw.read(H.SR) & H.SR_RIP and not hw.emulator.synced
    # software reset clears the core's registers, not the configuration memory
    hw.write(H.SZ, 9)
    hw.write(H.CR, H.CR_SW_RESET)
    assert hw.read(H.SZ) == 0 and hw.read(H.GIER) == 0 and hw.read(H.IPIER) == 0
    assert hw.stats["reg_reads"] > 0 and hw.stats["reads_by_reg"]["RF"] == 21


def test_hwicap_bad_access():
    hw = H.AxiHwicap()
    with pytest.raises(HwicapError):
        hw.read(0x101)
    with pytest.raises(HwicapError):
        hw.write(0x200, 0)
    with pytest.raises(HwicapError):
        hw.write(H.WF, 1 << 32)
    assert hw.read(H.WF) == 0  # write-only keyhole


_words = st.lists(st.one_of(
    st.integers(0, 2 ** 32 - 1),
    st.sampled_from([SYNC_WORD, NOOP, 0x30002001, 0x30008001, 0x30004000, 0x30018001, 0x28006000, 0x2800E001,
                     0x48000065, 0x50000065, 0x4FFFFFFF, 0x03727093, 0x0000000D, 0x00000001, 0x00000004]),
), max_size=300)


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(_words, st.lists(st.tuples(st.sampled_from(sorted(H.REG_NAMES)), st.integers(0, 2 ** 32 - 1)),
                        max_size=20))
def test_emulator_and_hwicap_never_raise(words, accesses):
    """Any word stream and any register access sequence at mapped offsets is handled without exception."""
    hw = H.AxiHwicap(write_fifo_depth=64, read_fifo_depth=16)
    for i in range(0, len(words), 50):
        for w in words[i:i + 50]:
            hw.write(H.WF, w)
        hw.write(H.CR, H.CR_WRITE)
    for off, v in accesses:
        if v & 1:
            hw.read(off)
        else:
            hw.write(off, v)
    assert 0 <= hw.read(H.RFO) <= 16 and 0 <= hw.read(H.WFV) <= 64
    assert hw.emulator.out_available >= 0
