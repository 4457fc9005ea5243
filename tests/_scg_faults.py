"""Python fault models mirroring firmware/icap_model.c (fault_stall_words, fault_abort_words), and a
register-trace recorder for the C/Python cross-check."""

from __future__ import annotations

import struct

from dcsflow.scg.hwicap import CR, CR_ABORT, CR_SW_RESET, CR_WRITE, WFV, AxiHwicap


class FaultyHwicap(AxiHwicap):
    """AxiHwicap with the C model's fault hooks (same semantics as icap_model.h)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.fault_stall_words = 0
        self.fault_abort_words = 0
        self.stalled = False

    def _check_stall(self):
        if self.fault_stall_words and self.stats["icap_words_in"] >= self.fault_stall_words:
            self.stalled = True

    def read(self, offset):
        if offset == WFV:
            self._check_stall()
            v = super().read(offset)
            return 0 if self.stalled else v
        if offset == CR:
            v = super().read(offset)
            self._check_stall()
            return v | (CR_WRITE if self.stalled and self.wfifo else 0)
        return super().read(offset)

    def _control(self, value):
        if value & (CR_SW_RESET | CR_ABORT):
            self.stalled = False
            self.fault_stall_words = 0
        if value & CR_WRITE:
            self._check_stall()
            if self.stalled:
                value &= ~CR_WRITE
            elif self.wfifo and self.fault_abort_words:
                before, n = self.stats["icap_words_in"], len(self.wfifo)
                a = self.fault_abort_words
                if before < a <= before + n:
                    words, self.wfifo = self.wfifo, []
                    self.stats["icap_words_in"] += n
                    first = a - before
                    self.emulator.write_words(words[:first])
                    self.emulator.abort()
                    self.emulator.write_words(words[first:])
                    self.fault_abort_words = 0
                    value &= ~CR_WRITE
        super()._control(value)


class Recorder:
    """Bus wrapper recording every register access as trace records (op, a, b) for host_main.c."""

    def __init__(self, hw):
        self.hw = hw
        self.records = []
        self.reads = []

    def read(self, off):
        v = self.hw.read(off)
        self.records.append((1, off, 0))
        self.reads.append(v)
        return v

    def write(self, off, v):
        self.records.append((0, off, v))
        self.hw.write(off, v)

    def to_bytes(self) -> bytes:
        return b"".join(struct.pack("<3I", *r) for r in self.records)
