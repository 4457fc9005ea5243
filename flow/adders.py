"""Adders where parameter inputs meet them: CARRY4 chain or logic for the LUT mapper.

synth_xilinx maps every ``$add`` / ``$sub`` onto a CARRY4 chain (``alumacc``, ``arith_map.v``).
A chain is a fixed structure the TLUT mapper cannot see into: behind parameter-dependent operands
(partial products ``x_i & P``, a parameter selecting an operand) the TLUTs then stop at the chain's
LUT inputs, while the published TLUT flow, which maps adders into LUTs, folds whole adder levels
into TLUTs (a 4-bit regular operand times a parameter is one TLUT per product bit at K = 4).

Modes (``dcsflow build --adders``):

``carry``
    every adder a CARRY4 chain (synth_xilinx unchanged).
``logic``
    every adder with an operand that depends on a parameter input (through combinational logic
    and parameter registers, after the multiplier rewrite of :mod:`dcsflow.flow.param_arith`) goes
    to the LUT mapper as ripple-carry logic (``flow/yosys_lib/ripple_add.v``).
``auto`` (default)
    an adder fed by a parameter input goes to the LUT mapper when **every output bit depends on at
    most K regular input bits** (structural support in the elaborated netlist: input ports and
    register outputs that are not parameters; K the LUT size). Each output bit is then one
    K-input function of regular inputs, which the TLUT mapper implements with one TLUT, never
    more LUTs than the chain's one LUT per bit and no CARRY4. An adder whose output bits depend on
    more regular inputs (``x + P`` with a regular ``x``: the carry makes the top bit depend on
    every bit of ``x``) stays a chain: as logic it would cost about two LUTs per bit and one LUT
    level per bit of carry.

The rule is decided in Python on an elaboration-only netlist (``hierarchy; proc; flatten``, the same
cell names the synthesis run has at ``map_dsp``: :func:`decide`) and applied by cell name in the
synthesis run (:func:`logic_commands`). Support is over-approximated (a cell that is not bit-wise or
an adder is taken to make every output bit depend on every input bit), which only ever keeps an
adder a chain. Comparators and other carry logic (``$lt``, ``$neg``, ``$alu`` made by
``alumacc``) are not rewritten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import FlowError

#: the modes of ``--adders``
MODES = ("auto", "carry", "logic")

#: adder cell types the rewrite turns into logic (Yosys 0.23 coarse cells, before ``alumacc``)
ADDER_TYPES = ("$add", "$sub")

#: flip-flop and memory cell types a combinational cone stops at (Yosys 0.23 coarse cells)
STATE_TYPES = ("$dff", "$dffe", "$adff", "$adffe", "$aldff", "$aldffe", "$sdff", "$sdffe", "$sdffce",
               "$dffsr", "$dffsre", "$dlatch", "$adlatch", "$dlatchsr", "$sr", "$ff", "$mem", "$mem_v2",
               "$memrd", "$memrd_v2", "$memwr", "$memwr_v2", "$meminit", "$meminit_v2")

_BITWISE = {"$and", "$or", "$xor", "$xnor", "$not", "$pos", "$buf", "$mux", "$_AND_", "$_OR_", "$_XOR_",
            "$_XNOR_", "$_NOT_", "$_BUF_", "$_MUX_", "$_NAND_", "$_NOR_", "$_ANDNOT_", "$_ORNOT_"}
_ARITH = {"$add", "$sub", "$neg"}
_PLAIN_REG = {"$dff", "$dffe"}


class AdderError(FlowError):
    """Bad ``--adders`` value."""


def check_mode(mode: str) -> str:
    """``mode`` if it is one of :data:`MODES`; raises AdderError (one line) otherwise."""
    if mode not in MODES:
        raise AdderError(f"--adders {mode!r}: use one of {', '.join(MODES)}")
    return mode


def ripple_map() -> Path:
    """Path of the techmap file ``flow/yosys_lib/ripple_add.v`` (package data).

    Raises FileNotFoundError if the package was installed without its data files."""
    p = Path(__file__).resolve().parent / "yosys_lib" / "ripple_add.v"
    if not p.is_file():
        raise FileNotFoundError(f"dcsflow techmap missing: {p} (reinstall the package)")
    return p


def probe_commands(param_selection: str, count_file: str) -> list[str]:
    """Yosys commands writing to ``count_file`` how many ``$add`` / ``$sub`` cells have an operand in
    the combinational output cone of a parameter wire (parameter registers followed, as the
    multiplier rewrite does). To run on an elaborated, flattened design; read the file with
    :func:`dcsflow.flow.param_arith.parse_count`. Leaves the selection cleared. First ``opt_dff
    -nosdff`` turns a register's enable feedback mux into a ``$dffe`` (as synth_xilinx's ``opt`` does
    before the rewrite), so that a load-enable key buffer counts as a parameter register here too."""
    return ["opt_dff -nosdff"] + cone_commands(param_selection, "__dcs_padd") + [
        f"tee -q -o {count_file} select -count @__dcs_padd", "select -clear"]


def cone_commands(param_selection: str, into: str) -> list[str]:
    """Yosys commands leaving in selection variable ``into`` the adder cells (:data:`ADDER_TYPES`) with
    an operand that depends on a parameter wire through combinational cells (the cone stops at
    :data:`STATE_TYPES`; chains of plain registers D -> Q from a parameter are parameter registers)."""
    stop = ",".join(STATE_TYPES)
    kinds = " ".join(f"t:{t}" for t in ADDER_TYPES) + " %u" * (len(ADDER_TYPES) - 1)
    return [f"select -set __dcs_par {param_selection}",
            "select -set __dcs_par @__dcs_par %co*:+$dff,$dffe[D,Q]",
            f"select -set __dcs_cone @__dcs_par %co*:-{stop}",
            f"select -set {into} @__dcs_cone %co:+[A,B] {kinds} %i"]


def logic_commands(selection: str, map_file: Path | None = None, list_file: str | None = None) -> list[str]:
    """Yosys commands turning the adder cells of ``selection`` into ripple-carry gates
    (:func:`ripple_map`), first listing them in ``list_file`` (``select -list``) when given; leaves
    the selection cleared."""
    mp = Path(map_file) if map_file is not None else ripple_map()
    kinds = " ".join(f"t:{t}" for t in ADDER_TYPES) + " %u" * (len(ADDER_TYPES) - 1)
    return [f"select -set __dcs_addl {selection} {kinds} %i",
            *([f"tee -q -o {list_file} select -list @__dcs_addl"] if list_file else []),
            f'techmap -map "{mp}" @__dcs_addl', "select -clear"]


def name_pattern(name: str) -> str:
    """A Yosys ``c:`` pattern matching the cell name ``name``: characters other than letters,
    digits and ``_$.:/-`` become the one-character wildcard ``?`` (a selection argument is one
    word, and ``*?[]\\`` are pattern characters)."""
    return "c:" + re.sub(r"[^A-Za-z0-9_$.:/-]", "?", name.lstrip("\\"))


@dataclass
class Decision:
    """The adders of one design: ``logic`` the cell names going to the LUT mapper, ``carry`` those
    staying chains (both fed by a parameter input), ``support`` cell name -> the largest number of
    regular input bits an output bit depends on (K + 1 means "more than K"), ``src`` cell name ->
    source location (Yosys ``src``)."""

    logic: list[str] = field(default_factory=list)
    carry: list[str] = field(default_factory=list)
    support: dict[str, int] = field(default_factory=dict)
    src: dict[str, str] = field(default_factory=dict)


def decide(module: dict, param_bits: set, K: int) -> Decision:
    """The ``auto`` rule (module docstring) on a flattened, elaborated Yosys JSON module.

    Args:
        module: the top module (Yosys JSON, after ``hierarchy; proc; flatten``).
        param_bits: net bits of the parameter inputs.
        K: LUT size (regular inputs per TLUT).
    Returns:
        a :class:`Decision` over the adders with an operand depending on a parameter bit.
    """
    cells = module.get("cells", {})
    deps: dict = {}            # output bit -> input bits it depends on
    for c in cells.values():
        if c["type"] in STATE_TYPES:
            continue
        for b, ins in _bit_deps(c):
            deps[b] = ins
    params = set(param_bits) | _param_registers(cells, param_bits, deps)
    sup = _Support(deps, params, K + 1)
    out = Decision()
    for name, c in cells.items():
        if c["type"] not in ADDER_TYPES:
            continue
        conns = c["connections"]
        if not any(sup.param_dependent(b) for p in ("A", "B") for b in conns.get(p, [])):
            continue
        worst = max((len(sup.of(b)) for b in conns.get("Y", [])), default=0)
        out.support[name] = worst
        out.src[name] = str(c.get("attributes", {}).get("src", ""))
        (out.logic if worst <= K else out.carry).append(name)
    return out


def _ext(bits: list, i: int, signed: bool):
    """Bit ``i`` of operand ``bits`` extended (sign or zero) to any width; None for a zero bit."""
    if i < len(bits):
        return bits[i]
    return bits[-1] if signed and bits else None


def _bit_deps(c: dict):
    """(output bit, list of input bits) of one combinational cell, bit-wise for :data:`_BITWISE`
    cells, prefix-wise for adders, every input bit otherwise."""
    t, conns, par = c["type"], c["connections"], c.get("parameters", {})
    outs = [p for p, d in c.get("port_directions", {}).items() if d == "output"]
    ins = [p for p, d in c.get("port_directions", {}).items() if d == "input"]
    signed = all(_int(par.get(k, 0)) for k in ("A_SIGNED", "B_SIGNED") if k in par)
    if t in _BITWISE and outs:
        for i, y in enumerate(conns.get(outs[0], [])):
            d = [_ext(conns[p], i, signed) for p in ins if p != "S"] + list(conns.get("S", []))
            yield y, [b for b in d if isinstance(b, int)]
        return
    if t in _ARITH:
        acc: list = []
        for i, y in enumerate(conns.get("Y", [])):
            acc += [b for b in (_ext(conns.get(p, []), i, signed) for p in ("A", "B")) if isinstance(b, int)]
            yield y, list(acc)
        return
    every = [b for p in ins for b in conns.get(p, []) if isinstance(b, int)]
    for p in outs:
        for y in conns.get(p, []):
            yield y, every


def _int(v) -> int:
    """A Yosys JSON parameter value (a binary string, or a number 0/1) as an int; 0 when unreadable."""
    try:
        return int(str(v), 2)
    except ValueError:
        return 0


def _param_registers(cells: dict, param_bits: set, deps: dict) -> set:
    """Q bits of plain registers (``$dff``, ``$dffe``) that hold a parameter bit: D a parameter bit
    (or one already found), or the output of a ``$mux`` choosing between Q and such a bit (a
    load-enable key buffer)."""
    mux_of: dict = {}
    for c in cells.values():
        if c["type"] == "$mux":
            cn = c["connections"]
            for i, y in enumerate(cn.get("Y", [])):
                mux_of[y] = (cn["A"][i], cn["B"][i])
    known = set(param_bits)
    found: set = set()
    changed = True
    while changed:
        changed = False
        for c in cells.values():
            if c["type"] not in _PLAIN_REG:
                continue
            for d, q in zip(c["connections"]["D"], c["connections"]["Q"]):
                if not isinstance(q, int) or q in known:
                    continue
                ab = mux_of.get(d)
                if d in known or (ab is not None and q in ab and any(x in known for x in ab if x != q)):
                    known.add(q)
                    found.add(q)
                    changed = True
    return found


class _Support:
    """Regular-input support of net bits, capped at ``cap`` elements (iterative, memoized)."""

    def __init__(self, deps: dict, params: set, cap: int):
        self.deps, self.params, self.cap = deps, params, cap
        self.memo: dict = {}
        self.pdep: dict = {}

    def of(self, bit) -> frozenset:
        """Regular input bits ``bit`` depends on (at most ``cap`` of them listed); a combinational
        loop is cut where the walk meets it again (that net counts as a boundary)."""
        if not isinstance(bit, int):
            return frozenset()
        memo, on_path = self.memo, set()
        stack = [(bit, False)]
        while stack:
            b, expanded = stack.pop()
            if b in memo:
                continue
            if b in self.params:
                memo[b] = frozenset()
                continue
            ins = self.deps.get(b)
            if ins is None:                      # a boundary: input port, register output, black box
                memo[b] = frozenset([b])
                continue
            if not expanded:
                if b in on_path:
                    continue                     # met again on its own path: a loop
                on_path.add(b)
                stack.append((b, True))
                stack.extend((x, False) for x in ins if x not in memo and x not in on_path)
                continue
            on_path.discard(b)
            acc: set = set()
            for x in ins:
                acc |= memo.get(x, frozenset([x]))
                if len(acc) >= self.cap:
                    break
            memo[b] = frozenset(list(acc)[:self.cap])
        return memo[bit]

    def param_dependent(self, bit) -> bool:
        """True when ``bit`` depends on a parameter bit through combinational cells."""
        if not isinstance(bit, int):
            return False
        stack, seen = [bit], set()
        while stack:
            b = stack.pop()
            if b in self.pdep:
                if self.pdep[b]:
                    self.pdep[bit] = True
                    return True
                continue
            if b in seen:
                continue
            seen.add(b)
            if b in self.params:
                self.pdep[bit] = True
                return True
            stack.extend(self.deps.get(b, ()))
        for b in seen:
            self.pdep[b] = False
        return False
