"""The ICAPE2 stream controller (``dcs_icap_dma``): register map, the rekey's word stream, a
register-level driver and a Python model of the controller (standard library only).

The controller (``flow/templates/icapdma/dcs_icap_dma.v``; docs/formats.md "ICAP stream
controller, version 1") reads the words of a configuration packet stream (UG470 type-1/type-2
packets) from memory through an AXI4 master, in whole 64-byte lines from a 64-byte aligned ADDRESS
(or, built with ``STREAM_INPUT``, takes them from an AXI4-Stream input) and feeds ICAPE2 one word per
clock cycle. It follows the packets it sends (sync word, packet headers and their word counts, CMD
DESYNC) so that it never leaves the configuration port inside a packet:

- a packet header whose word count goes past the end of the stream (LENGTH) is not sent (sticky
  ERR_PACKET: the length is not a whole packet);
- ABORT stops the stream at the next packet boundary (the current packet is sent to its end from
  the stream's own words; sticky ERR_ABORT);
- a bus error (RRESP not OKAY: ERR_BUS) or an AXI4-Stream packet that ends early (ERR_SHORT) inside
  a packet cuts the packet: the controller signals the ICAP abort (RDWRB changed while CSIB is low,
  UG470 "SelectMAP ABORT"), then sends a sync word and DESYNC;
- a stream that ends synchronised (no DESYNC of its own) is finished with CMD DESYNC.

So the port always ends desynchronised, and a frame is in configuration memory only when the
stream up to the end of the next frame (the pad frame, for a run's last frame) was sent: the
configuration logic writes a frame when the next one has arrived (FACTS.md; the emulator's
"held frame"). :func:`frames_written` turns the WORDS_SENT register into the frames written.

Registers (byte offsets, 32-bit; :data:`REGISTERS`):

======  ===========  ===========================================================================
0x00    CONTROL      W1 [0] START, [1] ABORT, [2] CLEAR (DONE, PORT_ABORTED, DESYNC_ADDED and
                     the error bits); R/W [3] IRQ_ENABLE
0x04    STATUS       R [0] BUSY, [1] DONE (sticky), [2] ERROR (any of [12:8]), [3] SYNCED (the
                     port is between a sync word and DESYNC), [4] PORT_ABORTED (the transfer
                     ended with the ICAP abort), [5] DESYNC_ADDED (the controller sent DESYNC);
                     sticky errors: [8] ERR_PACKET, [9] ERR_BUS, [10] ERR_ABORT, [11] ERR_START
                     (START refused: BUSY, LENGTH 0 or not REKEY_WORDS, ADDRESS not 64-byte
                     aligned), [12] ERR_SHORT (the stream input ended before LENGTH words)
0x08    ADDRESS      W byte address of the first word (memory input; reads 0)
0x0C    LENGTH       W words of the stream, [23:0] (reads 0)
0x10    WORDS_SENT   R stream words the ICAP took since the last accepted START
0x14    BUILD_ID     R the build's id (the design hash's first 8 hex digits)
0x18    REKEY_WORDS  R the build's words per rekey (0: any LENGTH)
0x1C    MAGIC        R 0x49434441 ("ICDA")
0x20    INFO         R [7:0] version 1, [8] STREAM_INPUT (the words come from the AXI4-Stream)
======  ===========  ===========================================================================

An accepted START clears DONE, the error bits, PORT_ABORTED and DESYNC_ADDED; a refused one sets
ERR_START and changes nothing else. ADDRESS and LENGTH writes while BUSY are ignored. irq = DONE &
IRQ_ENABLE. The controller reads whole 64-byte lines: the memory must be readable up to the end of
the line holding the last word (:func:`buffer_bytes`).

- :func:`rekey_stream`: the ICAP words of a rekey (the same words the AXI HWICAP driver sends,
  :func:`dcsflow.scg.driver.frame_write_sequence` per run) and where each frame is committed;
- :class:`IcapDmaSession`: the driver over a register bus and a DMA buffer (the host transport
  ``icap-dma:``; the firmware's ``firmware/icapdma.c`` does the same);
- :class:`IcapDmaModel`: the controller's registers in Python over the configuration-memory
  emulator, reading a :class:`PhysMemory` (tests, dry runs), with fault hooks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .bitstream import CMD_DESYNC, DUMMY, NOOP, OP_WRITE, R_CMD, SYNC_WORD, type1
from .device import FRAME_WORDS
from .driver import CountedRegisters, DriverError, frame_write_sequence

#: register offsets
CONTROL, STATUS, ADDRESS, LENGTH, WORDS_SENT = 0x00, 0x04, 0x08, 0x0C, 0x10
BUILD_ID, REKEY_WORDS, MAGIC, INFO = 0x14, 0x18, 0x1C, 0x20
REGISTERS = {CONTROL: "CONTROL", STATUS: "STATUS", ADDRESS: "ADDRESS", LENGTH: "LENGTH", WORDS_SENT: "WORDS_SENT",
             BUILD_ID: "BUILD_ID", REKEY_WORDS: "REKEY_WORDS", MAGIC: "MAGIC", INFO: "INFO"}
#: CONTROL bits
START, ABORT, CLEAR, IRQ_ENABLE = 1, 2, 4, 8
#: STATUS bits
BUSY, DONE, ERROR, SYNCED, PORT_ABORTED, DESYNC_ADDED = 1, 2, 4, 8, 16, 32
ERR_PACKET, ERR_BUS, ERR_ABORT, ERR_START, ERR_SHORT = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
ERR_BITS = ERR_PACKET | ERR_BUS | ERR_ABORT | ERR_START | ERR_SHORT
ERROR_NAMES = {ERR_PACKET: "the length is not a whole packet", ERR_BUS: "bus error reading the words",
               ERR_ABORT: "aborted", ERR_START: "START refused", ERR_SHORT: "the stream input ended early"}
MAGIC_VALUE = 0x49434441
VERSION_VALUE = 1
#: INFO bit: the controller takes its words from the AXI4-Stream input (no memory)
INFO_STREAM = 1 << 8
#: bits of LENGTH, WORDS_SENT and the controller's word counters
LENGTH_BITS = 24
#: the controller reads memory in aligned lines of this many bytes (16-beat bursts)
LINE_BYTES = 64
#: what the controller sends after a cut packet (ICAP abort, then sync and DESYNC); a stream that
#: stops synchronised at a packet boundary gets the last four (CMD DESYNC and two NOOPs)
FINISH_WORDS = (DUMMY, SYNC_WORD, NOOP, type1(OP_WRITE, R_CMD, 1), CMD_DESYNC, NOOP, NOOP)
DESYNC_FROM = 3
#: STATUS polls of :class:`IcapDmaSession` before a timeout (a 12,000-word rekey takes 120 us)
DEFAULT_POLLS = 200_000


def buffer_bytes(words: int) -> int:
    """Bytes of memory the controller reads for ``words`` words from a 64-byte aligned ADDRESS:
    whole 64-byte lines."""
    return -(-words * 4 // LINE_BYTES) * LINE_BYTES


def build_id_of(design_hash: str) -> int:
    """The controller's BUILD_ID for a build: the first 8 hex digits of its design hash (as the
    CFGLUT5 loader's, :func:`dcsflow.scg.cfglut.build_id_of`)."""
    from .cfglut import build_id_of as bid

    return bid(design_hash)


# ---------------------------------------------------------------------------------- the stream
@dataclass
class StreamLayout:
    """The ICAP words of a rekey and where its frames are.

    Attributes:
        words: the 32-bit words in order.
        frames: per frame in stream order ``(far, commit)``: the frame is in configuration memory
            once the first ``commit`` words were sent (the end of the next frame of its FDRI packet,
            the pad frame for a run's last one).
    """

    words: list
    frames: list = field(default_factory=list)


def rekey_stream(build, frames: dict) -> StreamLayout:
    """The words that write ``frames`` (FAR -> 101 words, every FAR of ``build.fars``) run by run
    of ``build.runs``: per run :func:`dcsflow.scg.driver.frame_write_sequence` (sync, RCRC, IDCODE,
    FAR, WCFG, FDRI with the frames and one pad frame, RCRC, parked FAR, DESYNC), the same words the
    AXI HWICAP driver sends (:func:`dcsflow.scg.driver.rekey_icap_words` counts them).

    Raises:
        KeyError: a FAR of the runs missing from ``frames``; ValueError: a frame not of 101 words.
    """
    words: list = []
    placed = []
    for run in build.runs:
        head, tail = frame_write_sequence(build.idcode, run[0], len(run))
        words += head
        start = len(words)
        for k, far in enumerate(run):
            fr = frames[far]
            if len(fr) != FRAME_WORDS:
                raise ValueError(f"frame 0x{far:08X} has {len(fr)} words, not {FRAME_WORDS}")
            words += fr
            placed.append((far, start + (k + 2) * FRAME_WORDS))
        words += [0] * FRAME_WORDS
        words += tail
    return StreamLayout(words, placed)


def frames_written(layout: StreamLayout, words_sent: int) -> list:
    """The FARs of ``layout`` in configuration memory after the first ``words_sent`` words (a frame
    is written when the next frame of its packet is complete; a cut packet loses its last complete
    frame, the ICAP abort and DESYNC drop it)."""
    return [far for far, commit in layout.frames if commit <= words_sent]


def written_message(layout: StreamLayout, words_sent: int) -> str:
    """``N of M words sent; last frame written: FAR 0x... (k of n frames)`` or ``...; no frame
    written`` for an error message."""
    done = frames_written(layout, words_sent)
    what = (f"last frame written: FAR 0x{done[-1]:08X} ({len(done)} of {len(layout.frames)} frames)" if done
            else f"no frame written (0 of {len(layout.frames)} frames)")
    return f"{words_sent} of {len(layout.words)} words sent; {what}"


# ---------------------------------------------------------------------------------- packet tracker
class PacketTracker:
    """What the controller knows of the packet stream it sends (UG470 packets; the same rules as
    :class:`dcsflow.scg.emulator.ConfigEmulator`): synchronised or not, the payload words left in
    the current write packet and its register."""

    def __init__(self):
        self.synced = False
        self.remaining = 0
        self.reg = None
        self.last_reg = None

    @property
    def at_boundary(self) -> bool:
        """No packet is open: unsynchronised, or synchronised and expecting a header."""
        return not self.synced or self.remaining == 0

    def payload(self, w: int) -> int:
        """Words of payload the header ``w`` opens if it were sent now (0 for anything else)."""
        if not self.synced or self.remaining:
            return 0
        typ, op = w >> 29, (w >> 27) & 3
        if op != OP_WRITE:
            return 0
        if typ == 1:
            return w & 0x7FF
        if typ == 2 and self.last_reg is not None:
            return w & 0x7FFFFFF
        return 0

    def send(self, w: int) -> None:
        """Follow the word ``w`` the ICAP takes."""
        if self.remaining:
            self.remaining -= 1
            if self.reg == R_CMD and w == CMD_DESYNC:
                self.synced, self.remaining, self.reg, self.last_reg = False, 0, None, None
            return
        if not self.synced:
            self.synced = w == SYNC_WORD
            return
        typ, op = w >> 29, (w >> 27) & 3
        if typ == 1:
            self.last_reg = (w >> 13) & 0x3FFF
            if op == OP_WRITE:
                self.reg, self.remaining = self.last_reg, w & 0x7FF
        elif typ == 2 and self.last_reg is not None and op == OP_WRITE:
            self.reg, self.remaining = self.last_reg, w & 0x7FFFFFF


# ---------------------------------------------------------------------------------- memory
class PhysMemory:
    """``size`` bytes of memory at physical address ``phys`` (a DMA buffer in tests): 32-bit
    little-endian words, as the controller's AXI4 master reads them. Reads of the byte addresses in
    :attr:`bad` answer with a bus error (tests)."""

    def __init__(self, phys: int, size: int):
        self.phys, self.size = phys, size
        self.data = bytearray(size)
        self.bad: set = set()

    def write_words(self, words, offset: int = 0) -> None:
        """Store ``words`` from byte ``offset`` of the buffer."""
        for i, w in enumerate(words):
            self.data[offset + 4 * i:offset + 4 * i + 4] = (w & 0xFFFFFFFF).to_bytes(4, "little")

    def read_word(self, addr: int) -> int | None:
        """The word at physical byte address ``addr``; None outside the buffer (a bus error)."""
        off = addr - self.phys
        if off < 0 or off + 4 > self.size or addr in self.bad:
            return None
        return int.from_bytes(self.data[off:off + 4], "little")


# ---------------------------------------------------------------------------------- the model
class IcapDmaModel:
    """The controller's registers in Python (module docstring) in front of ``emulator`` (a
    :class:`dcsflow.scg.emulator.ConfigEmulator`), reading words from ``memory``
    (:class:`PhysMemory`; addresses outside it answer with a bus error) or, with ``stream_input``,
    from :attr:`stream` (a list of words; its end is the AXI4-Stream ``tlast``).

    A START runs the whole transfer at once; BUSY then stays set for ``busy_polls`` STATUS reads
    (an ABORT written in that time comes too late: the words were sent). Fault hooks (set before
    START): ``memory.bad`` (addresses that answer with a bus error), ``bus_error_at`` (the next
    transfer's word of that index answers with a bus error), ``abort_at`` (ABORT arrives in the next
    transfer once that many words were sent), ``stuck`` (BUSY never falls); the two ``_at`` hooks
    are used by one transfer. Attributes: ``sent`` (every
    word the ICAP took, the controller's own finishing words included), ``port_aborts`` (for each
    ICAP abort, how many words of ``sent`` came before it), ``starts`` (accepted STARTs),
    ``tracker`` (:class:`PacketTracker` of the port).
    """

    def __init__(self, emulator, memory: PhysMemory | None = None, build_id: int = 0, rekey_words: int = 0,
                 busy_polls: int = 2, stream_input: bool = False):
        self.emulator, self.memory = emulator, memory
        self.build_id, self.rekey_words, self.busy_polls = build_id, rekey_words, busy_polls
        self.stream_input = stream_input
        self.irq_enable = False
        self.status = self.address = self.length = self.words_sent = 0
        self.stream: list = []
        self.abort_at = self.bus_error_at = None
        self.stuck = False
        self.sent: list = []
        self.port_aborts: list = []
        self.starts = 0
        self._left = 0
        self.tracker = PacketTracker()

    # ---- registers
    def read(self, off: int) -> int:
        """32-bit register read (ADDRESS, LENGTH and unmapped offsets read 0)."""
        if off == STATUS:
            if self.status & BUSY and not self.stuck:
                self._left -= 1
                if self._left <= 0:
                    self.status = (self.status & ~BUSY) | DONE
            s = self.status | (SYNCED if self.tracker.synced else 0)
            return s | (ERROR if s & ERR_BITS else 0)
        return {CONTROL: IRQ_ENABLE if self.irq_enable else 0, WORDS_SENT: self.words_sent,
                BUILD_ID: self.build_id, REKEY_WORDS: self.rekey_words, MAGIC: MAGIC_VALUE,
                INFO: VERSION_VALUE | (INFO_STREAM if self.stream_input else 0)}.get(off, 0)

    def write(self, off: int, value: int) -> None:
        """32-bit register write (read-only and unmapped offsets ignore it)."""
        busy = self.status & BUSY
        if off == ADDRESS and not busy:
            self.address = value & 0xFFFFFFFF
        elif off == LENGTH and not busy:
            self.length = value & ((1 << LENGTH_BITS) - 1)
        elif off == CONTROL:
            self.irq_enable = bool(value & IRQ_ENABLE)
            if value & CLEAR:
                self.status &= ~(DONE | PORT_ABORTED | DESYNC_ADDED | ERR_BITS)
            if value & START:
                self._start()

    @property
    def irq(self) -> bool:
        """The interrupt output: DONE & IRQ_ENABLE."""
        return bool(self.status & DONE and self.irq_enable)

    # ---- the transfer
    def _start(self) -> None:
        if (self.status & BUSY or self.length == 0 or (not self.stream_input and self.address % LINE_BYTES)
                or (self.rekey_words and self.length != self.rekey_words)):
            self.status |= ERR_START
            return
        self.starts += 1
        self.status = BUSY
        self.words_sent = 0
        self._left = self.busy_polls
        err = self._run()               # (it sets PORT_ABORTED or DESYNC_ADDED itself)
        self.status |= err
        self.abort_at = self.bus_error_at = None

    def _word(self, i: int) -> int | None:
        if self.stream_input:
            return self.stream[i] if i < len(self.stream) else None
        if i == self.bus_error_at:
            return None
        return self.memory.read_word(self.address + 4 * i) if self.memory is not None else None

    def _send(self, w: int, counted: bool = True) -> None:
        self.sent.append(w)
        self.emulator.write_word(w)
        self.tracker.send(w)
        if counted:
            self.words_sent += 1

    def _run(self) -> int:
        """Send the stream and finish the port (module docstring); returns the error bits."""
        t = self.tracker
        err = 0
        for i in range(self.length):
            if self.abort_at is not None and i >= self.abort_at and t.at_boundary:
                err |= ERR_ABORT
                break
            w = self._word(i)
            if w is None:
                err |= ERR_SHORT if self.stream_input else ERR_BUS
                break
            if t.payload(w) > self.length - i - 1:
                err |= ERR_PACKET
                break
            self._send(w)
        if t.synced and t.remaining:         # a cut packet: ICAP abort, then sync and DESYNC
            self.emulator.abort()
            self.port_aborts.append(len(self.sent))
            t.synced, t.remaining = False, 0
            self.status |= PORT_ABORTED
            for w in FINISH_WORDS:
                self._send(w, counted=False)
        elif t.synced:
            self.status |= DESYNC_ADDED
            for w in FINISH_WORDS[DESYNC_FROM:]:
                self._send(w, counted=False)
        return err


# ---------------------------------------------------------------------------------- the driver
class IcapDmaSession(CountedRegisters):
    """Driver of the controller behind ``bus`` (``read(offset)`` / ``write(offset, value)``,
    32-bit registers) with the DMA buffer ``buffer`` (``phys``, ``size`` in bytes,
    ``write_words(words)`` from its start; :class:`PhysMemory` in tests). The same steps as the
    firmware's ``firmware/icapdma.c``.

    Args:
        build_id, rekey_words: the build's (:func:`build_id_of`, the rekey's word count).
        polls: STATUS reads before a transfer that has not set DONE is a timeout.
    Attributes:
        reg_accesses, polls_used (STATUS reads of the last transfer), words_sent (WORDS_SENT after
        the last transfer).
    Errors are :class:`dcsflow.scg.driver.DriverError` with the codes of
    :data:`dcsflow.scg.rekey.ERROR_CODES`.
    """

    def __init__(self, bus, buffer, build_id: int, rekey_words: int, polls: int = DEFAULT_POLLS):
        self.bus, self.buffer = bus, buffer
        self.build_id, self.rekey_words, self.polls = build_id, rekey_words, polls
        self.reg_accesses = self.polls_used = self.words_sent = 0

    def check(self) -> None:
        """MAGIC, INFO (version, memory input), BUILD_ID and REKEY_WORDS against the build's.

        Raises:
            DriverError: code ``design``: no controller there, one of another version or that takes
                its words from an AXI4-Stream, or the controller of another build (one line naming
                the register; nothing written).
        """
        magic = self._rd(MAGIC)
        if magic != MAGIC_VALUE:
            raise DriverError("design", f"no ICAP stream controller at this address (MAGIC reads 0x{magic:08X}, "
                                        f"expected 0x{MAGIC_VALUE:08X}): nothing written")
        info = self._rd(INFO)
        if info & 0xFF != VERSION_VALUE:
            raise DriverError("design", f"ICAP stream controller version {info & 0xFF}; this driver knows "
                                        f"{VERSION_VALUE}: nothing written")
        if info & INFO_STREAM:
            raise DriverError("design", "the ICAP stream controller takes its words from an AXI4-Stream, not "
                                        "from memory: nothing written")
        bid = self._rd(BUILD_ID)
        if bid != self.build_id:
            raise DriverError("design", f"the ICAP stream controller is of another build (BUILD_ID {bid:08x}, "
                                        f"this build's {self.build_id:08x}): nothing written")
        words = self._rd(REKEY_WORDS)
        if words != self.rekey_words:
            raise DriverError("design", f"the ICAP stream controller expects {words} words per rekey, this build "
                                        f"sends {self.rekey_words}: nothing written")

    def send(self, layout: StreamLayout) -> None:
        """Put ``layout``'s words into the buffer and stream them: refuse a stream of another length
        than the build's, a buffer that cannot hold it (whole 64-byte lines, :func:`buffer_bytes`)
        or whose address the controller cannot take, and a busy controller; CLEAR (IRQ_ENABLE
        kept), ADDRESS, LENGTH, START, poll STATUS until DONE.

        Raises:
            DriverError: ``arg`` (a stream of another length, a buffer too small, not 64-byte
                aligned or above 4 GB: the DMA address would leave the buffer; nothing written),
                ``write`` (BUSY, or START refused: nothing sent), ``config`` (an error bit: the
                message says which and names the last frame written), ``timeout`` (no DONE; ABORT
                was written).
        """
        words = layout.words
        n = len(words)
        if n != self.rekey_words:
            raise DriverError("arg", f"{n} words for a rekey of {self.rekey_words}: nothing written")
        buf = self.buffer
        need = buffer_bytes(n)
        if need > buf.size:
            raise DriverError("arg", f"the DMA buffer ({buf.size} bytes at 0x{buf.phys:X}) cannot hold the {n} words "
                                     f"({need} bytes in whole 64-byte lines): the DMA address would leave the "
                                     "buffer; nothing written")
        if buf.phys % LINE_BYTES or buf.phys + need > 1 << 32:
            raise DriverError("arg", f"DMA address 0x{buf.phys:X} is not a 64-byte aligned 32-bit bus address: "
                                     "nothing written")
        if self._rd(STATUS) & BUSY:
            raise DriverError("write", "the ICAP stream controller is busy (STATUS.BUSY): nothing written")
        buf.write_words(list(words) + [0] * (need // 4 - n))
        keep = self._rd(CONTROL) & IRQ_ENABLE
        self._wr(CONTROL, CLEAR | keep)
        self._wr(ADDRESS, buf.phys)
        self._wr(LENGTH, n)
        self._wr(CONTROL, START | keep)
        st = self._wait(layout)
        self.words_sent = self._rd(WORDS_SENT)
        if st & ERR_START:
            raise DriverError("write", f"the ICAP stream controller refused START (STATUS 0x{st:08X}): nothing sent")
        if st & ERR_BITS:
            what = ", ".join(v for k, v in ERROR_NAMES.items() if st & k)
            raise DriverError("config", f"ICAP stream controller: {what} (STATUS 0x{st:08X}); "
                                        + written_message(layout, self.words_sent))

    def _wait(self, layout: StreamLayout) -> int:
        """Poll STATUS until DONE with BUSY low; on a timeout write ABORT and wait as long again."""
        for k in range(1, self.polls + 1):
            st = self._rd(STATUS)
            if st & ERR_START or (st & DONE and not st & BUSY):
                self.polls_used = k
                return st
        self._wr(CONTROL, ABORT)
        for _ in range(self.polls):
            st = self._rd(STATUS)
            if st & DONE and not st & BUSY:
                sent = self._rd(WORDS_SENT)
                raise DriverError("timeout", f"ICAP stream controller: no DONE after {self.polls} STATUS polls; "
                                             f"aborted at a packet boundary: {written_message(layout, sent)}")
        raise DriverError("timeout", f"ICAP stream controller: no DONE after {self.polls} STATUS polls, nor after "
                                     "ABORT: the port's state is unknown")
