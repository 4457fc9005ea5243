"""Register-level AXI HWICAP driver of the host SCG (PG134 registers; the same access sequence as the
C driver ``firmware/hwicap.c``): vacancy polling with timeouts, dummy frame on read-back, pad frame on
write, status check before DESYNC, abort/reset recovery.

:class:`HwicapSession` works over any *bus*: an object with ``read(offset) -> int`` and
``write(offset, value)`` on 32-bit registers — the :class:`dcsflow.scg.hwicap.AxiHwicap` model (target
``emulator``) or ``/dev/mem``/UIO (:class:`dcsflow.scg.transports.DevMemBus`). Packets are UG470 type-1/type-2
configuration packets (FACTS.md "Write frame(s)").
"""

from __future__ import annotations

from .bitstream import PARK_FAR
from .device import FRAME_WORDS
from .transports import clear_pcap_pr


class DriverError(Exception):
    """A hardware-level failure inside :class:`HwicapSession` (timeout, IDCODE, configuration error,
    lost sync, read-back mismatch); ``code`` is a key of :data:`dcsflow.scg.rekey.ERROR_CODES`.
    :func:`dcsflow.scg.rekey.rekey` turns it into :class:`dcsflow.scg.errors.RekeyError` (after rolling back)."""

    def __init__(self, code: str, msg: str):
        super().__init__(msg)
        self.code = code


class CountedRegisters:
    """32-bit register access through ``self.bus`` (``read(offset)``, ``write(offset, value)``),
    each one counted in ``self.reg_accesses``: the drivers' common part."""

    reg_accesses = 0
    bus = None

    def _rd(self, off: int) -> int:
        self.reg_accesses += 1
        return self.bus.read(off) & 0xFFFFFFFF

    def _wr(self, off: int, value: int) -> None:
        self.reg_accesses += 1
        self.bus.write(off, value & 0xFFFFFFFF)


# ---------------------------------------------------------------------------------- HWICAP driver
#: dummy word, sync word, type-1 NOOP (UG470; FACTS.md "Bitstream format")
DUMMY, SYNC, NOOP = 0xFFFFFFFF, 0xAA995566, 0x20000000
#: AXI HWICAP register offsets (PG134 register map, FACTS.md): write FIFO vacancy, write FIFO, control, read FIFO
#: occupancy, read FIFO, size, status
WFV, WF, CR, RFO, RF, SZ, SR = 0x114, 0x100, 0x10C, 0x118, 0x104, 0x108, 0x110
#: CR bits (PG134): Write, Read, FIFO clear, SW reset, Abort
CR_WRITE, CR_READ, CR_FIFO_CLEAR, CR_SW_RESET, CR_ABORT = 1, 2, 4, 8, 16
#: SR bits (PG134): ICAP synchronised (DALIGN), configuration error (active low)
SR_DALIGN, SR_CFGERR_N = 1 << 7, 1 << 8


def _t1w(reg, n):
    """UG470 type-1 write packet header: ``n`` words to register ``reg``."""
    return (1 << 29) | (2 << 27) | (reg << 13) | n


def _t1r(reg, n):
    """UG470 type-1 read packet header: ``n`` words from register ``reg``."""
    return (1 << 29) | (1 << 27) | (reg << 13) | n


class HwicapSession(CountedRegisters):
    """Register-level AXI HWICAP driver; the same access sequence as ``firmware/hwicap.c``.

    Args:
        bus: object with ``read(offset) -> int`` and ``write(offset, value)`` (32-bit registers).
        idcode: expected device IDCODE; timeout: maximum polls per wait.
    Attributes:
        icap_words_in / icap_words_out / reg_accesses: counters.
    Raises:
        DriverError: (every method) timeout, IDCODE mismatch, configuration error, lost sync;
            :func:`dcsflow.scg.rekey.rekey` turns it into :class:`dcsflow.scg.errors.RekeyError`.
    """

    def __init__(self, bus, idcode: int, timeout: int = 1000):
        self.bus = bus
        self.idcode = idcode
        self.timeout = timeout
        self.icap_words_in = self.icap_words_out = self.reg_accesses = 0

    def write_words(self, words) -> None:
        """Fill the write FIFO up to its vacancy, start Write, poll CR; repeat."""
        i, n = 0, len(words)
        while i < n:
            vac = 0
            for _ in range(self.timeout):
                vac = self._rd(WFV)
                if vac:
                    break
            if not vac:
                raise DriverError("timeout", "AXI HWICAP write FIFO has no vacancy (timeout)")
            k = min(vac, n - i)
            for w in words[i:i + k]:
                self._wr(WF, w)
            i += k
            self._wr(CR, CR_WRITE)
            for _ in range(self.timeout):
                if not self._rd(CR) & CR_WRITE:
                    break
            else:
                raise DriverError("timeout", "AXI HWICAP write did not complete (timeout)")
            self.icap_words_in += k

    def read_words(self, n: int) -> list[int]:
        """SZ, CR Read, then RFO polls and RF reads until ``n`` words arrived."""
        self._wr(SZ, n)
        self._wr(CR, CR_READ)
        out: list[int] = []
        idle = 0
        while len(out) < n:
            occ = self._rd(RFO)
            if not occ:
                idle += 1
                if idle >= self.timeout:
                    raise DriverError("timeout", f"AXI HWICAP read stalled after {len(out)} of {n} words")
                continue
            idle = 0
            for _ in range(min(occ, n - len(out))):
                out.append(self._rd(RF))
        self.icap_words_out += n
        return out

    def _desync(self):
        self.write_words([_t1w(4, 1), 13, NOOP, NOOP])

    def recover(self) -> None:
        """CR Abort, SW reset, FIFO clear, then DESYNC."""
        self._wr(CR, CR_ABORT)
        self._wr(CR, CR_SW_RESET)
        self._wr(CR, CR_FIFO_CLEAR)
        self._desync()

    def read_idcode(self) -> int:
        """The device's IDCODE register, read through the ICAP."""
        self.write_words([DUMMY, SYNC, NOOP, NOOP, _t1r(12, 1), NOOP, NOOP])
        v = self.read_words(1)[0]
        self._desync()
        return v

    def init(self, devcfg=None) -> None:
        """PCAP->ICAP switch (devcfg CTRL bit 27 cleared, if ``devcfg`` given), SW reset, FIFO clear,
        IDCODE check (bits [27:0])."""
        if devcfg is not None:
            clear_pcap_pr(devcfg)
        self._wr(CR, CR_SW_RESET)
        self._wr(CR, CR_FIFO_CLEAR)
        got = self.read_idcode()
        if (got ^ self.idcode) & 0x0FFFFFFF:
            raise DriverError("idcode", f"device IDCODE 0x{got:08X} differs from the template's 0x{self.idcode:08X}")

    def read_frames(self, far: int, count: int) -> list[list[int]]:
        """Read ``count`` frames from ``far`` (dummy frame dropped)."""
        n = (count + 1) * FRAME_WORDS
        self.write_words([DUMMY, 0xBB, 0x11220044, DUMMY, SYNC, NOOP, _t1w(4, 1), 7, *[NOOP] * 6,
                          _t1w(4, 1), 4, NOOP, _t1w(1, 1), far, _t1r(3, 0), (2 << 29) | (1 << 27) | n])
        self.write_words([NOOP] * 32)
        self.read_words(FRAME_WORDS)
        data = self.read_words(count * FRAME_WORDS)
        self._desync()
        return [data[k * FRAME_WORDS:(k + 1) * FRAME_WORDS] for k in range(count)]

    def write_frames(self, far: int, frames: list[list[int]]) -> None:
        """Write consecutive frames from ``far`` (one row) followed by a pad frame; check SR."""
        head, tail = frame_write_sequence(self.idcode, far, len(frames))
        self.write_words(head)
        self.write_words([w for fr in frames for w in fr])
        self.write_words([0] * FRAME_WORDS)
        sr = self._rd(SR)
        if not sr & SR_CFGERR_N:
            raise DriverError("config", "configuration logic reported an error (CFGERR_N low)")
        if not sr & SR_DALIGN:
            raise DriverError("sync", "ICAP lost synchronisation during the frame write (abort)")
        self.write_words(tail)


def frame_write_sequence(idcode: int, far: int, count: int) -> tuple[list[int], list[int]]:
    """ICAP words the SCG driver sends around ``count`` consecutive frames written from ``far``
    (FACTS.md "Write frame(s)", UG470 type-1/type-2 packets): (header, trailer). The header is dummy,
    sync, 2 NOOP, CMD RCRC, 2 NOOP, IDCODE, FAR, CMD WCFG, NOOP, FDRI type-1 (count 0) + type-2 with
    (count + 1) frames; then come the frames and one zero pad frame; the trailer is CMD RCRC, 2 NOOP,
    FAR parked at PARK_FAR, CMD DESYNC, 2 NOOP. The C firmware (firmware/scg_runtime.c) sends the same."""
    head = [DUMMY, SYNC, NOOP, NOOP, _t1w(4, 1), 7, NOOP, NOOP, _t1w(12, 1), idcode,
            _t1w(1, 1), far, _t1w(4, 1), 1, NOOP, _t1w(2, 0),
            (2 << 29) | (2 << 27) | ((count + 1) * FRAME_WORDS)]
    tail = [_t1w(4, 1), 7, NOOP, NOOP, _t1w(1, 1), PARK_FAR, _t1w(4, 1), 13, NOOP, NOOP]
    return head, tail


def rekey_icap_words(runs: list[list[int]], idcode: int = 0) -> int:
    """ICAP words written per rekey (no read-back) by :func:`dcsflow.scg.rekey.apply_hwicap` for the frame ``runs``
    (lists of consecutive FARs, :func:`dcsflow.scg.bitstream.frame_runs`): per run the
    :func:`frame_write_sequence` plus the frames and one pad frame."""
    total = 0
    for run in runs:
        head, tail = frame_write_sequence(idcode, run[0] if run else 0, len(run))
        total += len(head) + (len(run) + 1) * FRAME_WORDS + len(tail)
    return total

