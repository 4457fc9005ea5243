"""Rekey of a ``cfglut5`` build: the chain words of new parameter values, and the driver of the
CFGLUT5 loader's registers (``flow/templates/cfglut/dcs_cfglut_loader.v``; docs/formats.md "CFGLUT5
chain words and loader, version 1").

- :func:`words_for_values`: evaluate the PPC for parameter values and order the TLUT INITs as the
  loader's chain words (:meth:`dcsflow.scg.cfglut.Layout.words_for`);
- :class:`LoaderSession`: the register-level driver over a bus with ``read(offset)`` /
  ``write(offset, value)`` (:class:`dcsflow.scg.transports.DevMemBus` on a board, mapping
  ``2**ADDR_WIDTH`` bytes): checks INFO, BUILD_ID, WORDS and STRIDE_LOG2 against the build's layout,
  refuses a busy loader, writes every word into the word window, STARTs the shift and polls STATUS
  until DONE (a bounded number of polls), reports the ERROR bit;
- :class:`LoaderModel`: the loader's registers in Python (the same semantics as the Verilog, the
  shift taking a given number of STATUS polls), for tests and dry runs.

Errors are :class:`~dcsflow.scg.errors.RekeyError` with the codes of :data:`dcsflow.scg.rekey.ERROR_CODES`
(the firmware's, ``firmware/cfglut.h``): ``design`` (a loader of another build), ``write`` (the
loader is busy: nothing written), ``config`` (the loader set its ERROR bit), ``timeout`` (no DONE).
Standard library only.
"""

from __future__ import annotations

from .cfglut import Layout, word_address
from .driver import CountedRegisters
from .errors import RekeyError

#: register offsets of the loader
CONTROL, STATUS, INFO, BUILD_ID, WORDS, STRIDE_LOG2 = 0x00, 0x04, 0x08, 0x0C, 0x10, 0x14
#: CONTROL bits
START, IRQ_EN, CLEAR = 1, 2, 4
#: STATUS bits
BUSY, DONE, ERROR, SHIFTING = 1, 2, 4, 8
#: STATUS polls of :class:`LoaderSession` by default (a shift takes S + 2 loader clock cycles)
DEFAULT_POLLS = 100_000


def words_for_values(build, assignment: dict) -> list:
    """The chain words that load the TLUT INITs of ``assignment`` into a ``cfglut5`` build.

    Args:
        build: :class:`dcsflow.scg.buildfolder.BuildFolder` of a ``cfglut5`` build.
        assignment: PPC port -> value (int), every port of the PPC
            (:func:`dcsflow.scg.params.ppc_values`).
    Returns:
        G*S 32-bit words in word order (:func:`dcsflow.scg.cfglut.chain_words`).
    Raises:
        BuildFolderError: not a ``cfglut5`` build, a refused ``cfglut.json``.
        PpcError: a port missing or a value too wide.
    """
    from .ppc import tlut_inits

    layout = build.cfglut_layout
    bits = build.ppc.evaluate_many([assignment])[0]
    entries = build.tlut_entries
    return layout.words_for(tlut_inits(bits, entries), {c: len(e) for c, e in entries.items()})


class LoaderSession(CountedRegisters):
    """The CFGLUT5 loader of ``layout``'s build behind ``bus`` (``read(offset)``/``write(offset,
    value)``, byte offsets of 32-bit registers).

    Args:
        layout: the build's :class:`dcsflow.scg.cfglut.Layout` (its ``addr_width`` places the word window).
        polls: STATUS reads before a load that has not set DONE is a timeout.
    Attributes:
        reg_accesses: register reads and writes so far.
    """

    def __init__(self, bus, layout: Layout, polls: int = DEFAULT_POLLS):
        self.bus = bus
        self.layout = layout
        self.polls = polls
        self.reg_accesses = 0

    def check(self) -> None:
        """Compare the loader's INFO, BUILD_ID, WORDS and STRIDE_LOG2 with the layout.

        Raises:
            RekeyError: code ``design``: one line naming the first register that differs (a loader
                of another build, or no loader at that address).
        """
        lay = self.layout
        want = ((INFO, "INFO (CHAIN_LUTS, CHAINS)", lay.chain_luts << 16 | lay.n_chains,
                 lambda v: f"chains={v & 0xFFFF} chain_luts={v >> 16}"),
                (BUILD_ID, "BUILD_ID", lay.build_id, lambda v: f"{v:08x}"),
                (WORDS, "WORDS", lay.words, str),
                (STRIDE_LOG2, "STRIDE_LOG2", lay.stride_log2, str))
        for off, name, value, show in want:
            got = self._rd(off)
            if got != value:
                raise RekeyError(f"CFGLUT5 loader: {name} reads {show(got)}, this build's is {show(value)}: "
                                 "the loader of another build (or no loader at this address)", "design")

    def load(self, words) -> int:
        """Load ``words`` (G*S chain words in word order): refuse a busy loader, clear DONE/ERROR
        (keeping IRQ_ENABLE), write every word into the word window, check ERROR, write START and
        poll STATUS until DONE. Call :meth:`check` first.

        Returns:
            the STATUS polls it took.
        Raises:
            RekeyError: code ``arg`` (a words list of another length), ``write`` (BUSY: nothing
                written), ``config`` (ERROR set while writing the words, or by the load),
                ``timeout`` (no DONE within ``polls`` reads).
        """
        lay = self.layout
        if len(words) != lay.words:
            raise RekeyError(f"{len(words)} chain words for a loader of {lay.words}", "arg")
        if self._rd(STATUS) & BUSY:
            raise RekeyError("CFGLUT5 loader is busy (STATUS.BUSY: a load is running): nothing written", "write")
        irq = self._rd(CONTROL) & IRQ_EN
        self._wr(CONTROL, CLEAR | irq)
        s, sl, aw = lay.shift_cycles, lay.stride_log2, lay.addr_width
        for i, w in enumerate(words):
            self._wr(word_address(i // s, i % s, sl, aw), w)
        if self._rd(STATUS) & ERROR:
            raise RekeyError("CFGLUT5 loader set ERROR while the words were written (STATUS.ERROR): not started",
                             "config")
        self._wr(CONTROL, START | irq)
        for n in range(1, self.polls + 1):
            st = self._rd(STATUS)
            if st & ERROR:
                raise RekeyError("CFGLUT5 loader set ERROR on START (STATUS.ERROR)", "config")
            if st & DONE and not st & BUSY:
                return n
        raise RekeyError(f"CFGLUT5 loader: no DONE after {self.polls} STATUS polls", "timeout")


class LoaderModel:
    """The CFGLUT5 loader's AXI4-Lite registers in Python (``dcs_cfglut_loader.v``): INFO, BUILD_ID,
    WORDS, STRIDE_LOG2, CONTROL (START, IRQ_ENABLE, CLEAR), STATUS (BUSY, DONE, ERROR, SHIFTING) and
    the word window; a START holds BUSY for ``shift_polls`` STATUS reads, then sets DONE. A word
    write or START while BUSY, or a word address outside the used part of the window, sets ERROR.

    Args:
        n_chains, chain_luts, build_id: the loader's parameters. addr_width: its ``ADDR_WIDTH``.
    Attributes:
        memory: (g, t) -> the word written there. loads: the completed loads, each the list of
            G*S words in word order as they were shifted. fault_error: START sets ERROR instead of
            loading. stuck: a START never ends.
    """

    def __init__(self, n_chains: int, chain_luts: int, build_id: int, addr_width: int, shift_polls: int = 3):
        from .cfglut import groups, shift_cycles, stride_log2

        self.n_chains, self.chain_luts, self.build_id, self.addr_width = n_chains, chain_luts, build_id, addr_width
        self.s, self.g, self.sl = shift_cycles(chain_luts), groups(n_chains), stride_log2(chain_luts)
        self.shift_polls = shift_polls
        self.memory: dict = {}
        self.loads: list = []
        self.busy = self.done = self.error = self.irq_en = False
        self.fault_error = self.stuck = False
        self._left = 0

    @classmethod
    def of(cls, layout: Layout, **kw) -> "LoaderModel":
        """A model of the loader of ``layout``'s build."""
        return cls(layout.n_chains, layout.chain_luts, layout.build_id, layout.addr_width, **kw)

    def read(self, off: int) -> int:
        """32-bit register read (the word window and unmapped offsets read 0)."""
        if off >= 1 << (self.addr_width - 1):
            return 0
        if off == CONTROL:
            return IRQ_EN if self.irq_en else 0
        if off == STATUS:
            if self.busy and not self.stuck:
                self._left -= 1
                if self._left <= 0:
                    self.busy, self.done = False, True
                    self.loads.append([self.memory.get((i // self.s, i % self.s), 0) for i in range(self.g * self.s)])
            return (BUSY if self.busy else 0) | (DONE if self.done else 0) | (ERROR if self.error else 0) \
                | (SHIFTING if self.busy else 0)
        return {INFO: self.chain_luts << 16 | self.n_chains, BUILD_ID: self.build_id, WORDS: self.g * self.s,
                STRIDE_LOG2: self.sl}.get(off, 0)

    def write(self, off: int, value: int) -> None:
        """32-bit register write."""
        if off >= 1 << (self.addr_width - 1):
            idx = (off - (1 << (self.addr_width - 1))) >> 2
            g, t = idx >> self.sl, idx & ((1 << self.sl) - 1)
            if self.busy or g >= self.g or t >= self.s:
                self.error = True
            else:
                self.memory[(g, t)] = value
            return
        if off != CONTROL:
            return
        self.irq_en = bool(value & IRQ_EN)
        if value & CLEAR:
            self.done = self.error = False
        if value & START:
            if self.busy or self.fault_error:
                self.error = True
            else:
                self.busy, self.done, self._left = True, False, self.shift_polls
