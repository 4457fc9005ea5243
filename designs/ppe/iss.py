"""PPE instruction-set simulator: executes instruction words as ``designs/ppe/README.md`` defines them.

Cycle-exact for an environment that always has input ready (``in_valid`` high while words remain)
and always takes output (``out_ready`` high): one cycle per executed word, a run's cycle count is
the number of words executed up to and including the ``halt`` word — the RTL's count from ``start``
to the fall of ``busy`` under the same environment.

Public API::

    m = Machine(words, coef, imem_depth=512)
    res = m.run(inputs=[...], start=0, max_cycles=100_000)    # -> RunResult
    res.outputs, res.cycles, res.halted; m.regs, m.coef, m.lc, m.b

or :func:`run` for one call. Values are 64-bit unsigned ints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from . import isa

__all__ = ["IssError", "Machine", "RunResult", "run", "alu", "shift_unit", "datapath"]

MASK = isa.WORD_MASK


class IssError(RuntimeError):
    """The program cannot continue: a reserved instruction, reading ``in`` when no input is left,
    or a jump outside the instruction memory. The message names the address."""

    user_error = True


@dataclass
class RunResult:
    """Outcome of :meth:`Machine.run`.

    Attributes:
        outputs: the words written to ``out``, in order.
        cycles: words executed (= cycles, no stalls in the ISS's environment).
        halted: False if ``max_cycles`` was reached before a ``halt``.
        inputs_used: how many input words were consumed.
        trace: addresses executed, in order (only if the run asked for it).
    """

    outputs: list[int]
    cycles: int
    halted: bool
    inputs_used: int
    trace: list[int] = field(default_factory=list)


def _lanes(w: int) -> range:
    return range(0, 64, w)


def _addsub(a: int, b: int, w: int, sub: bool) -> int:
    m = (1 << w) - 1
    r = 0
    for s in _lanes(w):
        x, y = (a >> s) & m, (b >> s) & m
        r |= (((x - y) if sub else (x + y)) & m) << s
    return r


def alu(op1: int, a: int, b: int, w: int) -> int:
    """First stage: ``A op1 B`` on ``w``-bit lanes (op1 codes of :data:`isa.OP1`)."""
    if op1 == 0:
        return _addsub(a, b, w, False)
    if op1 == 1:
        return _addsub(a, b, w, True)
    if op1 == 2:
        return a ^ b
    if op1 == 3:
        return a & b
    if op1 == 4:
        return a | b
    if op1 == 5:
        return a
    if op1 == 6:
        return b
    raise IssError(f"reserved op1 {op1}")


def alu2(op2: int, t: int, c: int, w: int) -> int:
    """Second stage: ``T op2 C`` (0 none, 1 add, 2 sub, 3 xor)."""
    if op2 == 0:
        return t
    if op2 == 1:
        return _addsub(t, c, w, False)
    if op2 == 2:
        return _addsub(t, c, w, True)
    return t ^ c


def shift_unit(x: int, sh: int, n: int, w: int) -> int:
    """Rotator/shifter: per ``w``-bit lane, rotate left (sh 0), shift left (1) or right (2) by
    ``n mod w``; bits never cross a lane."""
    n %= w
    m = (1 << w) - 1
    r = 0
    for s in _lanes(w):
        v = (x >> s) & m
        if sh == 0:
            v = ((v << n) | (v >> (w - n))) & m if n else v
        elif sh == 1:
            v = (v << n) & m
        elif sh == 2:
            v = v >> n
        else:
            raise IssError(f"reserved shift kind {sh}")
        r |= v << s
    return r


def datapath(ins: isa.Instr, a: int, b: int, c: int) -> int:
    """The chained slot's result ``SHIFT((A op1 B) op2 C, n)`` for operand values a, b, c."""
    w = ins.width
    return shift_unit(alu2(ins.op2, alu(ins.op1, a, b, w), c, w), ins.sh, ins.n, w)


class Machine:
    """Architectural state of one PE and an interpreter over it.

    Args:
        words: instruction-memory contents from address 0 (64-bit words; the rest is zero = nop).
        coef: coefficient-memory image (up to 64 words; the rest zero).
        imem_depth: instruction-memory size (1..1024).
    Raises:
        ValueError: more words than ``imem_depth``, or more than 64 coefficients.
    """

    def __init__(self, words: Sequence[int], coef: Sequence[int] = (), imem_depth: int = isa.DEFAULT_IMEM):
        if not 1 <= imem_depth <= isa.MAX_IMEM:
            raise ValueError(f"imem_depth {imem_depth} out of range 1..{isa.MAX_IMEM}")
        if len(words) > imem_depth:
            raise ValueError(f"{len(words)} words do not fit an instruction memory of {imem_depth}")
        if len(coef) > isa.NCOEF:
            raise ValueError(f"{len(coef)} coefficients, the memory holds {isa.NCOEF}")
        self.imem = [w & MASK for w in words] + [0] * (imem_depth - len(words))
        self.coef = [v & MASK for v in coef] + [0] * (isa.NCOEF - len(coef))
        self.regs = [0] * isa.NREGS
        self.lc = 0
        self.b = 0
        self.imem_depth = imem_depth
        self._decoded: dict[int, isa.Instr] = {}

    def write_imem(self, addr: int, word: int) -> None:
        """The host's instruction write port."""
        self.imem[addr] = word & MASK
        self._decoded.pop(word & MASK, None)

    def _decode(self, pc: int) -> isa.Instr:
        w = self.imem[pc]
        ins = self._decoded.get(w)
        if ins is None:
            try:
                ins = isa.decode(w)
            except isa.EncodingError as e:
                raise IssError(f"address {pc}: {e}") from None
            self._decoded[w] = ins
        return ins

    def run(self, inputs: Iterable[int] = (), start: int = 0, max_cycles: int = 1_000_000,
            trace: bool = False) -> RunResult:
        """Execute from ``start`` until a ``halt`` word has executed or ``max_cycles`` words ran.

        Registers, coefficients, ``lc`` and ``b`` keep their values between runs (as in the RTL,
        where only a reset clears ``lc`` and ``b``).

        Raises:
            IssError: reserved instruction, ``in`` read with no input left, ``start`` outside the
            instruction memory.
        """
        if not 0 <= start < self.imem_depth:
            raise IssError(f"start address {start} outside the instruction memory (0..{self.imem_depth - 1})")
        ins_q = [int(x) & MASK for x in inputs]
        qi = 0
        outs: list[int] = []
        tr: list[int] = []
        pc = start
        cycles = 0
        regs, coef = self.regs, self.coef
        while cycles < max_cycles:
            ins = self._decode(pc)
            if trace:
                tr.append(pc)
            if ins.a_in:
                if qi >= len(ins_q):
                    raise IssError(f"address {pc}: reads 'in' after all {len(ins_q)} input words were used")
                a = ins_q[qi]
                qi += 1
            else:
                a = regs[ins.ra]
            b = coef[(ins.bi + (self.b if ins.b_base else 0)) % isa.NCOEF] if ins.b_c else regs[ins.bi]
            c = coef[(ins.ci + (self.b if ins.c_base else 0)) % isa.NCOEF] if ins.c_c else regs[ins.ci]
            r = datapath(ins, a, b, c)
            if ins.dk == isa.DK_REG:
                regs[ins.di] = r
            elif ins.dk == isa.DK_COEF:
                coef[(ins.di + (self.b if ins.d_base else 0)) % isa.NCOEF] = r
            elif ins.dk == isa.DK_OUT:
                outs.append(r)
            cycles += 1
            nxt = pc + 1
            ctl = ins.ctl
            if ctl == 1:
                nxt = ins.imm
            elif ctl == 2:
                self.lc = (self.lc - 1) % (1 << isa.LC_BITS)
                if self.lc:
                    nxt = ins.imm
            elif ctl == 3:
                self.lc = ins.imm
            elif ctl == 4:
                self.b = ins.imm % isa.NCOEF
            elif ctl == 5:
                self.b = (self.b + ins.imm) % isa.NCOEF
            elif ctl == 6:
                return RunResult(outs, cycles, True, qi, tr)
            if nxt >= self.imem_depth:
                if nxt == self.imem_depth and ctl not in (1, 2):
                    nxt = 0      # the program counter wraps, as in the RTL
                else:
                    raise IssError(f"address {pc}: jump to {nxt} outside the instruction memory")
            pc = nxt
        return RunResult(outs, cycles, False, qi, tr)


def run(words: Sequence[int], coef: Sequence[int] = (), inputs: Iterable[int] = (),
        imem_depth: int = isa.DEFAULT_IMEM, max_cycles: int = 1_000_000) -> RunResult:
    """One run of a fresh :class:`Machine` from address 0 (see :meth:`Machine.run`)."""
    return Machine(words, coef, imem_depth).run(inputs, 0, max_cycles)
