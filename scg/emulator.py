"""Configuration-memory emulator: a 7-series configuration packet processor over a frame memory.

It consumes 32-bit words as the ICAP would (UG470 chapter 5) and is the stand-in for the board in
tests. A C model with the same semantics will follow, so the semantics are deliberately simple and
all listed here:

Synchronisation
    Words are ignored until the sync word ``0xAA995566``. CMD DESYNC (13) returns to that state.
    :meth:`abort` (the ICAP abort) does the same.
Packets
    Type-1 (``[31:29]=1``): opcode ``[28:27]`` (0 NOP, 1 read, 2 write), register ``[26:13]``,
    count ``[10:0]``. Type-2 (``[31:29]=2``): count ``[26:0]``, register of the last type-1.
    Any other header while synchronised is ignored and counted in ``stats["bad_headers"]``.
Register writes
    Every write (except to CRC) enters the CRC (:func:`dcsflow.scg.bitstream.crc_update`). CRC: compared
    with the running CRC; a mismatch sets ``crc_error`` (STAT bit 0; sticky until :meth:`reset`);
    the running CRC then resets. CMD RCRC resets the CRC. FAR sets the frame address. CTL0 is written
    through MASK (``CTL0 = CTL0 & ~MASK | value & MASK``). COR0, COR1, MASK, CTL1, WBSTAR, TIMER and
    other registers are stored as written. MFWR and the other commands are stored, not modelled.
IDCODE check
    A write to IDCODE whose bits [27:0] differ from the device's puts the emulator in the *error
    state*: ``id_error`` (STAT bit 15) is set and every later register write is ignored (FDRI data
    included) except CMD DESYNC, which leaves the error state (``id_error`` stays set until
    :meth:`reset`).
Frame writes (FDRI)
    Data words are cut into 101-word frames. A completed frame is held; it is written to the frame
    at FAR when the next frame completes (so the last frame of a burst is the pad frame and is not
    written). After each write the FAR auto-increments in the device's FDRI order; if that leaves a
    configuration row, the next 2 completed frames are discarded (row pad frames). A write to FAR,
    any write to CMD and DESYNC drop the held frame, a partly filled frame and the pad count.
    Frames whose FAR is not a frame of the device are dropped (``stats["dropped_frames"]``);
    the FAR does not advance past the device's last frame.
Reads
    A read packet of ``n`` words queues ``n`` output words (see :meth:`read_words`). FDRO: first a
    dummy frame of 101 zero words, then frames from FAR on, FAR auto-incrementing per frame (no pad
    frames between rows; frames past the device's end read as zero). STAT, IDCODE, FAR, CRC (the
    running value), CTL0/1, COR0/1, MASK, BOOTSTS and the other registers return their value
    (repeated if ``n > 1``). Reads are served whatever the last command was (RCFG is not required).

Throughput: :meth:`write_words` handles FDRI data by slicing whole frames out of the input
(``benchmarks/bitstream_bench.py``: several million words per second).
"""

from __future__ import annotations

import array
from collections import deque

from .bitstream import (CMD_DESYNC, CMD_RCRC, OP_READ, OP_WRITE, R_CMD, R_CRC, R_CTL0, R_FAR, R_FDRI,
                        R_FDRO, R_IDCODE, R_MASK, R_STAT, SYNC_WORD, FrameMemory, _new_words,
                        crc_update, crc_words)
from .device import DEFAULT_PART, FRAME_WORDS, Device, get_device

#: STAT register bits modelled (UG470 Table 5-31, "Status Register").
STAT_CRC_ERROR = 1 << 0
STAT_EOS = 1 << 4
STAT_DONE = 1 << 14
STAT_ID_ERROR = 1 << 15


class ConfigEmulator:
    """Configuration logic of one device over a :class:`~dcsflow.scg.bitstream.FrameMemory`.

    Args:
        device: part name or :class:`Device` (default: the default device of ``devices.json``).
        frames: initial frame memory (default: all zero; kept by reference and modified).
    Attributes:
        frames: the frame memory.
        synced: True between a sync word and DESYNC.
        in_error: True in the IDCODE error state (register writes ignored).
        id_error, crc_error: sticky flags (STAT bits 15 and 0).
        regs: last written value of each register number.
        far: the FAR register.
        stats: counters ``words``, ``packets``, ``frames_written``, ``pad_frames``, ``dropped_frames``,
            ``readback_words``, ``crc_checks``, ``crc_errors``, ``bad_headers``, ``ignored_writes``.
    """

    def __init__(self, device: Device | str | None = None, frames: FrameMemory | None = None):
        self.device = device if isinstance(device, Device) else get_device(device or DEFAULT_PART)
        self.frames = frames if frames is not None else FrameMemory(self.device)
        if self.frames.device.name != self.device.name:
            raise ValueError("frame memory belongs to another part")
        # output queue: segments, each a list of words or a (value, count) repetition
        self._out: deque = deque()
        self._out_len = 0
        self.reset()

    # ---- state ---------------------------------------------------------------------------
    def reset(self) -> None:
        """Power-on state of the configuration logic (frame memory kept): unsynchronised, registers 0,
        flags cleared, output queue emptied, counters zeroed."""
        self.synced = False
        self.in_error = False
        self.id_error = False
        self.crc_error = False
        self.crc = 0
        self.far = 0
        self._fidx = self.device.far_index.get(0)
        self.regs: dict[int, int] = {}
        self._remaining = 0
        self._reg = None
        self._last_reg = None
        self._buf = _new_words()
        self._held = None
        self._skip = 0
        self._out.clear()
        self._out_len = 0
        self.stats = dict(words=0, packets=0, frames_written=0, pad_frames=0, dropped_frames=0,
                          readback_words=0, crc_checks=0, crc_errors=0, bad_headers=0, ignored_writes=0)

    def abort(self) -> None:
        """ICAP abort: lose synchronisation, drop the current packet, the held and partial frames and
        the output queue. Registers, flags and frame memory are kept."""
        self._desync()
        self._out.clear()
        self._out_len = 0

    def _desync(self) -> None:
        self.synced = False
        self.in_error = False
        self._remaining = 0
        self._reg = None
        self._last_reg = None
        self._drop_pipeline()

    def _drop_pipeline(self) -> None:
        self._held = None
        self._skip = 0
        if len(self._buf):
            self._buf = _new_words()

    @property
    def stat(self) -> int:
        """STAT register value: CRC_ERROR (bit 0), EOS (bit 4, always 1), DONE (bit 14, always 1),
        ID_ERROR (bit 15)."""
        return ((STAT_CRC_ERROR if self.crc_error else 0) | STAT_EOS | STAT_DONE
                | (STAT_ID_ERROR if self.id_error else 0))

    @property
    def out_available(self) -> int:
        """Number of queued output (read) words."""
        return self._out_len

    def read_words(self, n: int) -> list[int]:
        """Pop up to ``n`` queued output words (fewer if fewer are queued), oldest first."""
        out: list[int] = []
        q = self._out
        while n > 0 and q:
            seg = q[0]
            if isinstance(seg, tuple):
                value, k = seg
                take = min(k, n)
                out.extend([value] * take)
                if take == k:
                    q.popleft()
                else:
                    q[0] = (value, k - take)
            else:
                take = min(len(seg), n)
                out.extend(seg[:take])
                if take == len(seg):
                    q.popleft()
                else:
                    q[0] = seg[take:]
            n -= take
            self._out_len -= take
        return out

    def _queue(self, seg) -> None:
        k = seg[1] if isinstance(seg, tuple) else len(seg)
        if k:
            self._out.append(seg)
            self._out_len += k

    # ---- input ---------------------------------------------------------------------------
    def write_word(self, word: int) -> None:
        """Consume one 32-bit word."""
        self.write_words((word,))

    def write_words(self, words) -> None:
        """Consume a sequence of 32-bit words (list, tuple or ``array('I')``), FDRI data in bulk."""
        n = len(words)
        self.stats["words"] += n
        i = 0
        while i < n:
            if self._remaining:
                reg = self._reg
                if reg == R_FDRI:
                    k = min(self._remaining, n - i)
                    if not self.in_error:
                        chunk = words[i:i + k]
                        if not isinstance(chunk, array.array):
                            chunk = array.array(self._buf.typecode, chunk)
                        self._fdri(chunk)
                    else:
                        self.stats["ignored_writes"] += k
                    i += k
                    self._remaining -= k
                else:
                    self._remaining -= 1
                    w = words[i]
                    i += 1
                    self._write_reg(reg, w)
                continue
            w = words[i]
            i += 1
            if not self.synced:
                if w == SYNC_WORD:
                    self.synced = True
                continue
            typ = w >> 29
            if typ == 1:
                op = (w >> 27) & 3
                reg = (w >> 13) & 0x3FFF
                cnt = w & 0x7FF
                self._last_reg = reg
            elif typ == 2 and self._last_reg is not None:
                op = (w >> 27) & 3
                reg = self._last_reg
                cnt = w & 0x7FFFFFF
            else:
                self.stats["bad_headers"] += 1
                continue
            if op == OP_WRITE:
                self.stats["packets"] += 1
                self._reg = reg
                self._remaining = cnt
            elif op == OP_READ:
                self.stats["packets"] += 1
                if cnt:
                    self._read(reg, cnt)

    def _write_reg(self, reg: int, w: int) -> None:
        if self.in_error and not (reg == R_CMD and w == CMD_DESYNC):
            self.stats["ignored_writes"] += 1
            return
        if reg == R_CRC:
            self.stats["crc_checks"] += 1
            if w != self.crc:
                self.crc_error = True
                self.stats["crc_errors"] += 1
            self.crc = 0
            return
        self.crc = crc_update(self.crc, reg, w)
        if reg == R_CMD:
            self._drop_pipeline()
            self.regs[reg] = w
            if w == CMD_RCRC:
                self.crc = 0
            elif w == CMD_DESYNC:
                self._desync()
            return
        if reg == R_FAR:
            self._drop_pipeline()
            self.far = w
            self._fidx = self.device.far_index.get(w)
        elif reg == R_CTL0:
            mask = self.regs.get(R_MASK, 0)
            w = (self.regs.get(R_CTL0, 0) & ~mask & 0xFFFFFFFF) | (w & mask)
        elif reg == R_IDCODE:
            if (w ^ self.device.idcode) & 0x0FFFFFFF:
                self.id_error = True
                self.in_error = True
        self.regs[reg] = w

    def _fdri(self, chunk: array.array) -> None:
        self.crc = crc_words(self.crc, R_FDRI, chunk)
        buf = self._buf
        pos = 0
        n = len(chunk)
        if len(buf):
            need = FRAME_WORDS - len(buf)
            if n < need:
                buf.extend(chunk)
                return
            buf.extend(chunk[:need])
            pos = need
            self._buf = _new_words()
            self._complete(buf)
        while n - pos >= FRAME_WORDS:
            self._complete(chunk[pos:pos + FRAME_WORDS])
            pos += FRAME_WORDS
        if pos < n:
            self._buf.extend(chunk[pos:])

    def _complete(self, frame: array.array) -> None:
        held = self._held
        if held is not None:
            fidx = self._fidx
            if fidx is None:
                self.stats["dropped_frames"] += 1
            else:
                mem = self.frames
                b = fidx * FRAME_WORDS
                mem.words[b:b + FRAME_WORDS] = held
                mem.written[fidx] = 1
                self.stats["frames_written"] += 1
                dev = self.device
                if fidx in dev.row_end:
                    self._skip = 2
                if fidx + 1 < dev.n_frames:
                    self._fidx = fidx + 1
                    self.far = dev.frame_addresses[fidx + 1]
                else:
                    self._fidx = None
        if self._skip:
            self._skip -= 1
            self._held = None
            self.stats["pad_frames"] += 1
        else:
            self._held = frame

    def _read(self, reg: int, cnt: int) -> None:
        if reg == R_FDRO:
            self.stats["readback_words"] += cnt
            dummy = min(cnt, FRAME_WORDS)
            self._queue((0, dummy))
            cnt -= dummy
            mem = self.frames
            dev = self.device
            data = []
            while cnt > 0 and self._fidx is not None:
                k = min(cnt, FRAME_WORDS)
                fidx = self._fidx
                b = fidx * FRAME_WORDS
                data.extend(mem.words[b:b + k])
                if fidx + 1 < dev.n_frames:
                    self._fidx = fidx + 1
                    self.far = dev.frame_addresses[fidx + 1]
                else:
                    self._fidx = None
                cnt -= k
            self._queue(data)
            self._queue((0, cnt))  # past the device's last frame (or from an invalid FAR): zeros
            return
        if reg == R_STAT:
            v = self.stat
        elif reg == R_IDCODE:
            v = self.device.idcode
        elif reg == R_FAR:
            v = self.far
        elif reg == R_CRC:
            v = self.crc
        else:
            v = self.regs.get(reg, 0)
        self._queue((v, cnt))
