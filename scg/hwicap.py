"""AXI HWICAP register model (Xilinx PG134) on top of :class:`dcsflow.scg.emulator.ConfigEmulator`, and a
small driver that uses it the way the vendor driver does.

Register map (byte offsets, 32-bit accesses only; FACTS.md / PG134):

=======  ======  ====================================================================================
offset   name    model semantics
=======  ======  ====================================================================================
0x1C     GIER    bit 31 global interrupt enable (read/write).
0x20     IPISR   interrupt status, bits: 0 write FIFO half-full, 1 read FIFO half-full, 2 write FIFO
                 empty, 3 read FIFO full. A bit is set whenever its condition holds after an access
                 (level-latched); writing 1 toggles (clears) it (Xilinx "toggle on write").
0x28     IPIER   interrupt enable, same bits (read/write).
0x100    WF      write FIFO keyhole (write only; reads return 0). A write to a full FIFO is lost
                 (``stats["wf_overflows"]``).
0x104    RF      read FIFO keyhole (read only). Reading pops one word; an empty FIFO returns 0
                 (``stats["rf_underflows"]``). After each pop the FIFO refills from the ICAP while a
                 read is in progress.
0x108    SZ      number of words the next Read operation fetches from the ICAP (read/write).
0x10C    CR      control, write bits processed in the order 3, 4, 2, 0, 1:
                 bit 3 SW reset (FIFOs emptied, SZ, CR, GIER, IPIER, IPISR and a pending read cleared;
                 the configuration logic is NOT reset), bit 4 Abort (FIFOs emptied, pending read
                 cancelled, ICAP abort: the emulator loses sync), bit 2 FIFO clear (both FIFOs emptied),
                 bit 0 Write (the whole write FIFO goes to the ICAP at once; the bit reads back 0: the
                 operation has completed), bit 1 Read (start fetching SZ words; the bit reads back 1
                 while words remain to be fetched into the read FIFO).
0x110    SR      status (read only): bit 0 DONE (no read in progress), bit 2 EOS (always 1),
                 bit 5 IN_ABORT_N (always 1: aborts complete at once), bit 6 RIP (read in progress),
                 bit 7 DALIGN (the configuration logic is synchronised), bit 8 CFGERR_N (0 while the
                 emulator is in its IDCODE error state or has seen a CRC error).
0x114    WFV     write FIFO vacancy in words (read only).
0x118    RFO     read FIFO occupancy in words (read only).
=======  ======  ====================================================================================

Timing is not modelled: every operation completes within the register access that starts it, except
a Read, which completes as the read FIFO is drained. Any other offset, or one not a multiple of 4,
raises :class:`dcsflow.scg.errors.HwicapError`. Writes to read-only registers are ignored (counted).

For the cost model every access is counted: :attr:`AxiHwicap.stats` holds ``reg_reads``,
``reg_writes`` (totals), ``reads_by_reg``/``writes_by_reg`` (per register name), ``icap_words_in``
(words sent to the ICAP), ``icap_words_out`` (words fetched from it), ``wf_overflows``,
``rf_underflows``.
"""

from __future__ import annotations

from collections import deque

from .bitstream import (CMD_DESYNC, CMD_RCFG, CMD_RCRC, CMD_WCFG, DUMMY, NOOP, OP_READ, OP_WRITE,
                        R_CMD, R_FAR, R_FDRI, R_FDRO, R_IDCODE, SYNC_WORD, BUS_WIDTH_DETECT,
                        BUS_WIDTH_SYNC, PARK_FAR, type1, type2)
from .device import FRAME_WORDS
from .emulator import ConfigEmulator
from .errors import HwicapError

GIER, IPISR, IPIER = 0x1C, 0x20, 0x28
WF, RF, SZ, CR, SR, WFV, RFO = 0x100, 0x104, 0x108, 0x10C, 0x110, 0x114, 0x118
REG_NAMES = {GIER: "GIER", IPISR: "IPISR", IPIER: "IPIER", WF: "WF", RF: "RF", SZ: "SZ", CR: "CR",
             SR: "SR", WFV: "WFV", RFO: "RFO"}

CR_WRITE, CR_READ, CR_FIFO_CLEAR, CR_SW_RESET, CR_ABORT = 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4
SR_DONE, SR_EOS, SR_IN_ABORT_N, SR_RIP, SR_DALIGN, SR_CFGERR_N = 1 << 0, 1 << 2, 1 << 5, 1 << 6, 1 << 7, 1 << 8
IRQ_WF_HALF, IRQ_RF_HALF, IRQ_WF_EMPTY, IRQ_RF_FULL = 1 << 0, 1 << 1, 1 << 2, 1 << 3
GIER_ENABLE = 1 << 31


class AxiHwicap:
    """AXI HWICAP register model (PG134 semantics as listed in the module docstring).

    Args:
        emulator: the configuration logic behind the ICAP (default: a new :class:`ConfigEmulator`
            for ``device``).
        device: part name when ``emulator`` is not given.
        write_fifo_depth: words (default 1024); read_fifo_depth: words (default 256).
    """

    def __init__(self, emulator: ConfigEmulator | None = None, device: str | None = None,
                 write_fifo_depth: int = 1024, read_fifo_depth: int = 256):
        if write_fifo_depth < 1 or read_fifo_depth < 1:
            raise HwicapError("FIFO depths must be at least 1 word")
        self.emulator = emulator if emulator is not None else ConfigEmulator(device)
        self.write_fifo_depth = write_fifo_depth
        self.read_fifo_depth = read_fifo_depth
        self.wfifo: list[int] = []
        self.rfifo: deque[int] = deque()
        self.stats = {}
        self.reset_counters()
        self._reset_regs()

    def reset_counters(self) -> None:
        """Zero the access counters."""
        self.stats = dict(reg_reads=0, reg_writes=0, reads_by_reg={}, writes_by_reg={},
                          icap_words_in=0, icap_words_out=0, wf_overflows=0, rf_underflows=0)

    def _reset_regs(self) -> None:
        self.wfifo.clear()
        self.rfifo.clear()
        self.sz = 0
        self.gier = 0
        self.ipier = 0
        self.ipisr = 0
        self._pending = 0
        self._update_irq()

    # ---- interrupts ----
    def _update_irq(self) -> None:
        s = 0
        if len(self.wfifo) >= self.write_fifo_depth // 2:
            s |= IRQ_WF_HALF
        if len(self.rfifo) >= self.read_fifo_depth // 2:
            s |= IRQ_RF_HALF
        if not self.wfifo:
            s |= IRQ_WF_EMPTY
        if len(self.rfifo) >= self.read_fifo_depth:
            s |= IRQ_RF_FULL
        self.ipisr |= s

    @property
    def irq(self) -> bool:
        """Interrupt output: GIER bit 31 and any enabled IPISR bit."""
        return bool(self.gier & GIER_ENABLE) and bool(self.ipisr & self.ipier)

    # ---- read FIFO refill ----
    def _fill(self) -> None:
        if self._pending:
            k = min(self._pending, self.read_fifo_depth - len(self.rfifo), self.emulator.out_available)
            if k > 0:
                self.rfifo.extend(self.emulator.read_words(k))
                self._pending -= k
                self.stats["icap_words_out"] += k

    # ---- bus accesses ----
    def _check(self, offset: int) -> str:
        if offset & 3 or offset not in REG_NAMES:
            raise HwicapError(f"AXI HWICAP has no register at offset 0x{offset:X}")
        return REG_NAMES[offset]

    def write(self, offset: int, value: int) -> None:
        """32-bit write of ``value`` to register ``offset``. Raises HwicapError (unmapped offset,
        value outside 0..2**32-1)."""
        name = self._check(offset)
        if not 0 <= value <= 0xFFFFFFFF:
            raise HwicapError(f"value 0x{value:X} does not fit a 32-bit register")
        st = self.stats
        st["reg_writes"] += 1
        st["writes_by_reg"][name] = st["writes_by_reg"].get(name, 0) + 1
        if offset == WF:
            if len(self.wfifo) < self.write_fifo_depth:
                self.wfifo.append(value)
            else:
                st["wf_overflows"] += 1
        elif offset == CR:
            self._control(value)
        elif offset == SZ:
            self.sz = value
        elif offset == GIER:
            self.gier = value & GIER_ENABLE
        elif offset == IPIER:
            self.ipier = value & 0xF
        elif offset == IPISR:
            self.ipisr ^= value & 0xF
            return
        self._update_irq()

    def read(self, offset: int) -> int:
        """32-bit read of register ``offset``. Raises HwicapError for an unmapped offset."""
        name = self._check(offset)
        st = self.stats
        st["reg_reads"] += 1
        st["reads_by_reg"][name] = st["reads_by_reg"].get(name, 0) + 1
        if offset == RF:
            if self.rfifo:
                v = self.rfifo.popleft()
            else:
                st["rf_underflows"] += 1
                v = 0
            self._fill()
            self._update_irq()
            return v
        if offset == WFV:
            return self.write_fifo_depth - len(self.wfifo)
        if offset == RFO:
            self._fill()
            return len(self.rfifo)
        if offset == SR:
            self._fill()
            emu = self.emulator
            v = SR_EOS | SR_IN_ABORT_N
            if not self._pending:
                v |= SR_DONE
            else:
                v |= SR_RIP
            if emu.synced:
                v |= SR_DALIGN
            if not (emu.in_error or emu.crc_error):
                v |= SR_CFGERR_N
            return v
        if offset == CR:
            self._fill()
            return CR_READ if self._pending else 0
        if offset == SZ:
            return self.sz
        if offset == GIER:
            return self.gier
        if offset == IPIER:
            return self.ipier
        if offset == IPISR:
            return self.ipisr
        return 0  # WF is write-only

    def _control(self, value: int) -> None:
        if value & CR_SW_RESET:
            self._reset_regs()
        if value & CR_ABORT:
            self.wfifo.clear()
            self.rfifo.clear()
            self._pending = 0
            self.emulator.abort()
        if value & CR_FIFO_CLEAR:
            self.wfifo.clear()
            self.rfifo.clear()
        if value & CR_WRITE and self.wfifo:
            words = self.wfifo
            self.wfifo = []
            self.stats["icap_words_in"] += len(words)
            self.emulator.write_words(words)
        if value & CR_READ:
            self._pending = self.sz
            self._fill()


class HwicapDriver:
    """Host-side driver of an :class:`AxiHwicap`, register access by register access, following the
    vendor driver (XHwIcap_DeviceWrite / DeviceRead) and the frame sequences of FACTS.md.

    Every word costs one WF write; each FIFO load costs one WFV read, one CR write and one CR read
    (poll); reads cost an SZ write, a CR write, RFO polls and one RF read per word.
    """

    def __init__(self, hwicap: AxiHwicap, idcode: int | None = None):
        self.hw = hwicap
        self.idcode = hwicap.emulator.device.idcode if idcode is None else idcode

    def write_words(self, words) -> None:
        """Send words to the ICAP: fill the write FIFO up to its vacancy, start Write, poll CR.

        Raises:
            HwicapError: the core never completes the write (model invariant broken).
        """
        hw = self.hw
        i, n = 0, len(words)
        while i < n:
            vac = hw.read(WFV)
            k = min(vac, n - i)
            for w in words[i:i + k]:
                hw.write(WF, w)
            i += k
            hw.write(CR, CR_WRITE)
            if hw.read(CR) & CR_WRITE:
                raise HwicapError("AXI HWICAP write did not complete")

    def read_words(self, n: int) -> list[int]:
        """Fetch ``n`` words from the ICAP (SZ, CR Read, then RFO/RF until all arrived).

        Raises:
            HwicapError: no data arrives (nothing queued by the configuration logic).
        """
        hw = self.hw
        hw.write(SZ, n)
        hw.write(CR, CR_READ)
        out: list[int] = []
        while len(out) < n:
            occ = hw.read(RFO)
            if occ == 0:
                raise HwicapError(f"AXI HWICAP read stalled after {len(out)} of {n} words")
            for _ in range(occ):
                out.append(hw.read(RF))
        return out

    # ---- frame sequences (FACTS.md "Frame read and write sequences") ----
    def read_frames(self, far: int, count: int = 1) -> list[list[int]]:
        """Read ``count`` frames from ``far`` on: sync, RCRC, RCFG, FAR, FDRO read of
        ``(count+1)*101`` words, 32 NOOPs; the dummy frame is dropped; then DESYNC."""
        n = (count + 1) * FRAME_WORDS
        self.write_words([DUMMY, BUS_WIDTH_SYNC, BUS_WIDTH_DETECT, DUMMY, SYNC_WORD, NOOP,
                          type1(OP_WRITE, R_CMD, 1), CMD_RCRC, *[NOOP] * 6,
                          type1(OP_WRITE, R_CMD, 1), CMD_RCFG, NOOP,
                          type1(OP_WRITE, R_FAR, 1), far,
                          type1(OP_READ, R_FDRO, 0), type2(OP_READ, n), *[NOOP] * 32])
        data = self.read_words(n)
        self.write_words([type1(OP_WRITE, R_CMD, 1), CMD_DESYNC, NOOP, NOOP])
        return [data[k * FRAME_WORDS:(k + 1) * FRAME_WORDS] for k in range(1, count + 1)]

    def write_frames(self, far: int, frames) -> None:
        """Write consecutive frames from ``far`` on (one row at most): sync, RCRC, IDCODE, FAR, WCFG,
        FDRI with the frames and one pad frame, RCRC, FAR parked, DESYNC.

        Raises:
            HwicapError: a frame is not 101 words, ``far`` is not a frame, or the frames cross a row.
        """
        frames = [list(fr) for fr in frames]
        if any(len(fr) != FRAME_WORDS for fr in frames):
            raise HwicapError(f"every frame must have {FRAME_WORDS} words")
        dev = self.hw.emulator.device
        if far not in dev.far_index:
            raise HwicapError(f"FAR 0x{far:08X} is not a frame of {dev.name}")
        first = dev.far_index[far]
        if any(i in dev.row_end for i in range(first, first + len(frames) - 1)) or \
                first + len(frames) > dev.n_frames:
            raise HwicapError("write_frames: the frames cross a configuration row; split the write per row")
        data = [w for fr in frames for w in fr] + [0] * FRAME_WORDS
        self.write_words([DUMMY, SYNC_WORD, NOOP, NOOP,
                          type1(OP_WRITE, R_CMD, 1), CMD_RCRC, NOOP, NOOP,
                          type1(OP_WRITE, R_IDCODE, 1), self.idcode,
                          type1(OP_WRITE, R_FAR, 1), far,
                          type1(OP_WRITE, R_CMD, 1), CMD_WCFG, NOOP,
                          type1(OP_WRITE, R_FDRI, 0), type2(OP_WRITE, len(data)), *data,
                          type1(OP_WRITE, R_CMD, 1), CMD_RCRC, NOOP, NOOP,
                          type1(OP_WRITE, R_FAR, 1), PARK_FAR,
                          type1(OP_WRITE, R_CMD, 1), CMD_DESYNC, NOOP, NOOP])
