"""The front end is checked, not trusted: the source simulated against the netlist the front end hands on.

``verify`` proves the mapped netlist against the front end's result (``frontend/pre.json``), not
against the HDL. A front end that gets the HDL wrong — GHDL 2.0.0's ``--synth --out=verilog`` drops a
case statement's ``when others`` (GHDL bug ghdl/ghdl#2041) — would go unnoticed. Two checks close that gap:

1. :func:`check_latches` (called by the ``frontend`` stage right after ``pre.json`` is written): a
   latch cell in ``pre.json`` (``$_DLATCH_*``, ``$dlatch``, ``$adlatch``, ``$dlatchsr``, ``LDCE``,
   ``LDPE``, ``LDCPE``) is an error naming the signal it drives, as the source calls it where a name
   can be found (and, for VHDL, the source line GHDL recorded).
2. :func:`check_frontend` (called by the ``verify`` stage, :func:`run_for_build`): the source is
   simulated by a simulator independent of the front end — GHDL's simulator for VHDL, Icarus
   Verilog for Verilog — and the netlist (``pre.json`` written back as Verilog by Yosys, simulated by
   Icarus with Yosys's own simulation models ``xilinx/cells_sim.v``) beside it, both driven by the
   same stimulus file, and every output bit is compared on every cycle.

Stimulus (seeded, :func:`make_stimulus`): ``cycles`` cycles (default 2,000) in :data:`SEGMENTS`
segments. Regular inputs get random values every cycle; parameter inputs random values held for a
segment; reset inputs (:func:`reset_polarity`: names like ``rst``, ``reset``, ``rst_n``, ``nrst``,
``arst``, ``areset_n`` ...; active low when the name says so) are asserted for the first
:data:`RESET_CYCLES` cycles of each segment and deasserted otherwise; clock inputs (input ports that
drive a clock or latch-enable pin in ``pre.json``, through IBUF/BUFG/inverters) are not in the file:
the test benches toggle them. Cycle k lasts 10 ns: the clocks fall at 10k ns, the inputs of line k
are applied at 10k+2, the outputs sampled at 10k+4 (one line of the output file) and the clocks
rise at 10k+5. A design without clocks gets one input vector per cycle.

Comparison: a bit that the source simulation leaves undefined (``U``, ``X``, ``Z``, ``W``, ``-``;
``x``/``z`` in Verilog: e.g. a register without reset or initial value) is not compared and is
counted (``uncompared_bits``); ``L``/``H`` count as 0/1; every other bit must be equal. The first
difference raises :class:`FrontCheckError` naming the output bit, the cycle and both values.

VHDL record ports: GHDL 2.0.0's synthesis makes one port ``<port>_<field>`` of each field of a record
port, and one vector of a nested record, an array of records or any array port (a record's first
field in the least significant bits, an array's leftmost element in the most significant ones:
:class:`Shape`). The test bench declares a signal of the port's subtype and drives and samples its
fields bit by bit in that layout (:func:`vhdl_testbench`); the types are read from the packages of
the sources (:func:`dcsflow.flow.vhdl.package_types`).

What cannot be checked gives a result with ``passed`` None and a ``skipped`` reason (the build goes
on, the stage prints one note): a design mixing VHDL and Verilog (no one simulator here reads both),
an ``inout`` port, a VHDL port of another type than ``std_logic``, ``std_ulogic``, ``bit``,
``std_logic_vector``, ``std_ulogic_vector``, ``unsigned``, ``signed`` or ``bit_vector``, or a record or
one-dimensional array of those (at any depth) declared in a package; a record or array port whose
constraint names a generic.

Work files (``workdir``, in a build ``frontcheck/``): ``stim.txt``, ``source.out``, ``netlist.out``
(formats: docs/formats.md "Front-end check"), ``check.json`` (ports and their roles), the test
benches and the simulators' logs.
"""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Mapping, Sequence

from dcsflow.fileio import NETLIST_LIMIT, load_json_file, write_text_atomic
from dcsflow.limits import DEFAULT_LIMITS
from dcsflow.tools import failure_message, find_tool, run_tool

from .cache import cached, hdl_inputs
from .errors import FlowError

__all__ = ["DEFAULT_CYCLES", "DEFAULT_SEED", "SEGMENTS", "RESET_CYCLES", "FrontCheckError", "LatchError",
           "CheckSpec", "CheckPort", "FrontCheckResult", "check_frontend", "check_latches", "reset_polarity",
           "clock_ports", "make_stimulus", "compare_outputs", "run_for_build", "summary_line"]

#: cycles simulated by default (``--frontend-cycles``)
DEFAULT_CYCLES = 2000
#: seed of the stimulus by default (the same stimulus every run)
DEFAULT_SEED = 2041
#: parameter values: one random value per segment
SEGMENTS = 4
#: reset inputs are asserted for this many cycles at the start of each segment
RESET_CYCLES = 2

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates" / "frontcheck"

#: file names in the work folder
STIM, SOURCE_OUT, NETLIST_OUT = "stim.txt", "source.out", "netlist.out"
#: the test bench's name (entity / module)
TB = "dcsflow_frontcheck_tb"

#: VHDL port base types the test bench can drive and sample: name -> scalar?
VHDL_TYPES = {"std_logic": True, "std_ulogic": True, "bit": True, "std_logic_vector": False,
              "std_ulogic_vector": False, "unsigned": False, "signed": False, "bit_vector": False}


class FrontCheckError(FlowError):
    """The front-end check failed: an output differs (first output bit, cycle, values), or a simulator
    or Yosys run of the check failed (one line naming the log)."""


class LatchError(FlowError):
    """A latch in the front end's netlist (:func:`check_latches`)."""


# ------------------------------------------------------------------------------------ records

@dataclass(frozen=True)
class CheckSpec:
    """The source side of the check.

    language: ``"vhdl"``, ``"verilog"`` or ``"mixed"`` (skipped); sources: HDL files in order;
    top: top module / entity (as declared); chparams: Verilog parameters / VHDL generics of the top
    (name -> int or str; a str that is a VHDL literal — ``true``, ``16#ff#``, ``"0101"``, ``'1'`` —
    is passed as written, any other str as a VHDL string); defines: Verilog macros; ghdl_dir: the
    front end's GHDL folder (``frontend/ghdl``: ``src/<i>/`` holds the copies GHDL read); ghdl_options:
    extra GHDL options of the user (analysis and elaboration); vhdl_ports: the top entity's ports
    (:class:`dcsflow.flow.vhdl.Port`, for their types); vhdl_context: the top entity's context clause
    (``library``/``use`` statements of its file, as written), so that the test bench names the types
    as the design does.
    """

    language: str
    sources: tuple[Path, ...]
    top: str
    chparams: Mapping[str, int | str] = field(default_factory=dict)
    defines: Mapping[str, str] = field(default_factory=dict)
    ghdl_dir: Path | None = None
    ghdl_options: tuple[str, ...] = ()
    vhdl_ports: tuple = ()
    vhdl_context: tuple[str, ...] = ()


@dataclass(frozen=True)
class CheckPort:
    """A port of the top as the check sees it: ``name`` (the netlist's, i.e. ``pre.json``'s),
    ``direction`` (``input``/``output``/``inout``), ``width`` (bits), ``kind`` (``clock``, ``reset``,
    ``reset_n`` (active low), ``param`` or ``data``; outputs ``data``), ``msb_index``/``lsb_index``:
    the declared index of the leftmost and the rightmost bit (naming bits in messages)."""

    name: str
    direction: str
    width: int
    kind: str = "data"
    msb_index: int = 0
    lsb_index: int = 0

    def bit_name(self, pos: int) -> str:
        """``name[i]`` of the bit ``pos`` characters from the left of a value token (``name`` for
        a 1-bit port declared without a range)."""
        if self.width == 1 and self.msb_index == self.lsb_index == 0:
            return self.name
        step = -1 if self.msb_index >= self.lsb_index else 1
        return f"{self.name}[{self.msb_index + step * pos}]"


@dataclass(frozen=True)
class FrontCheckResult:
    """Result of :func:`check_frontend` (report.json ``verify.frontend_check``, docs/formats.md).

    passed: True (every compared bit equal), None (skipped: ``skipped`` says why; a failing check
    raises instead); cycles: cycles simulated; simulator: the source's simulator and version
    (``ghdl 2.0.0``, ``icarus 11.0``); netlist_simulator: the netlist's; seed: of the stimulus;
    compared_bits / uncompared_bits: output bits compared, and left out because the source's value
    was undefined (U/X/Z/W/-); clocks / resets: the ports toggled / asserted as such; seconds: wall
    time.
    """

    passed: bool | None
    cycles: int = 0
    simulator: str = ""
    netlist_simulator: str = ""
    seed: int = DEFAULT_SEED
    compared_bits: int = 0
    uncompared_bits: int = 0
    clocks: list = field(default_factory=list)
    resets: list = field(default_factory=list)
    skipped: str | None = None
    seconds: float = 0.0

    def as_dict(self) -> dict:
        """The result as report.json's ``verify.frontend_check`` object."""
        d = asdict(self)
        d["seconds"] = round(self.seconds, 3)
        return d


# ------------------------------------------------------------------------------------ latches

#: cell types that are latches (Yosys fine-grained and coarse cells, Xilinx primitives)
_LATCH_PREFIXES = ("$_DLATCH", "$dlatch", "$adlatch", "$dlatchsr")
_LATCH_PRIMITIVES = {"LDCE", "LDPE", "LDCPE"}
#: names GHDL gives the nets it makes (n<number>_<suffix>), e.g. n7_o, n26_q
_GHDL_NET = re.compile(r"^n\d+_[a-z]+$")
_SRC_ATTR = re.compile(r"^(?P<file>.*):(?P<line>\d+)\.\d+(?:-\d+\.\d+)?$")
_GHDL_LOC = re.compile(r"/\*\s*(?P<file>\S.*?):(?P<line>\d+):(?P<col>\d+)\s*\*/")


def is_latch(cell_type: str) -> bool:
    """True for a latch cell type (``$_DLATCH_*``, ``$dlatch``, ``$adlatch``, ``$dlatchsr``, LDCE, LDPE, LDCPE)."""
    return cell_type.startswith(_LATCH_PREFIXES) or cell_type in _LATCH_PRIMITIVES


def _names_of_bits(module: dict) -> dict[int, list[str]]:
    names: dict[int, list[str]] = {}
    for n, v in module.get("netnames", {}).items():
        for b in v.get("bits", []):
            if isinstance(b, int):
                names.setdefault(b, []).append(n)
    return names


def _signal_name(bits: list, names: dict[int, list[str]]) -> str | None:
    """The best source name of the net(s) ``bits``: a public name that is not one GHDL made up
    (``n7_o``), else a public name, else None."""
    cands = [n for b in bits if isinstance(b, int) for n in names.get(b, []) if not n.startswith("$")]
    for pick in ([n for n in cands if not _GHDL_NET.match(n)], cands):
        if pick:
            return min(pick, key=lambda n: (len(n), n)).split("[")[0]
    return None


def _source_line(src: str, ghdl_verilog: Path | None, sources: Sequence[Path]) -> str | None:
    """``file:line`` of a cell's ``src`` attribute; for GHDL's Verilog the VHDL line GHDL recorded in
    the comment before it (``/* src/1/x.vhd:18:3 */``, ``src/<i>/`` mapped to the user's file)."""
    first = (src or "").split("|")[0]
    m = _SRC_ATTR.match(first)
    if not m:
        return None
    path, line = m["file"], int(m["line"])
    if ghdl_verilog is not None and Path(path).name == Path(ghdl_verilog).name:
        try:
            lines = Path(ghdl_verilog).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return None
        for k in range(min(line, len(lines)) - 1, -1, -1):
            g = _GHDL_LOC.search(lines[k])
            if g:
                f = g["file"]
                sm = re.match(r"^src/(\d+)/", f)
                if sm and int(sm[1]) < len(sources):
                    f = str(sources[int(sm[1])])
                return f"{f}:{g['line']}"
        return None
    return f"{path}:{line}"


def check_latches(pre: dict, top: str, language: str = "verilog", ghdl_verilog: Path | None = None,
                  sources: Sequence[Path] = ()) -> None:
    """Refuse a front-end netlist with latches (the flow maps none, and an inferred latch is almost
    always a combinational process that does not assign a signal on every path).

    Args:
        pre: ``pre.json`` (Yosys JSON); top: its top module; language: ``vhdl`` adds the hint on GHDL's
            dropped ``when others``; ghdl_verilog: GHDL's ``top.v`` (its comments give the VHDL line); sources:
            the user's files in the order GHDL read them (``src/<i>/`` copies).
    Raises:
        LatchError: one line naming the signal (and more, counted) and where it comes from.
    """
    module = pre.get("modules", {}).get(top)
    if module is None:
        return
    latches = [(n, c) for n, c in module.get("cells", {}).items() if is_latch(c.get("type", ""))]
    if not latches:
        return
    names = _names_of_bits(module)
    found: list[tuple[str, str | None]] = []
    for cname, c in sorted(latches, key=lambda nc: nc[0]):
        q = [b for pin in ("Q",) for b in c.get("connections", {}).get(pin, [])]
        name = _signal_name(q, names) or cname
        where = _source_line(c.get("attributes", {}).get("src", ""), ghdl_verilog, sources)
        if all(name != f for f, _ in found):
            found.append((name, where))
    name, where = found[0]
    more = f" (and {len(found) - 1} more: {', '.join(n for n, _ in found[1:4])}" \
           f"{', ...' if len(found) > 4 else ''})" if len(found) > 1 else ""
    loc = f" at {where}" if where else ""
    what = f"GHDL's net {name}" if _GHDL_NET.match(name) and language == "vhdl" else name
    if language == "vhdl":
        hint = ("a combinational process that does not assign it on every path, or a case statement whose "
                "'when others' GHDL 2.0.0 dropped (GHDL bug ghdl/ghdl#2041): assign it on every path; write such a case "
                "as an if/elsif chain, or use a GHDL with the fix")
    else:
        hint = ("a combinational always block that does not assign it on every path: assign it a default "
                "before the if/case")
    raise LatchError(f"frontend: latch inferred for signal {what}{loc}{more} ({hint})")


# ------------------------------------------------------------------------------------ ports

_RESET_WORDS = {"rst", "reset", "arst", "areset", "srst", "sreset", "clr", "clear", "aclr", "sclr"}
_LOW_SUFFIXES = ("n", "b", "l", "neg")


def reset_polarity(name: str) -> str | None:
    """``"high"`` or ``"low"`` when an input called ``name`` looks like a reset, else None.

    A reset word (rst, reset, arst, areset, srst, sreset, clr, clear, aclr, sclr) is one of the
    ``_``-separated parts of the name (any case), alone or with an ``n`` before or after
    (``nrst``, ``rstn``, ``resetn``); active low when the name says ``n``: ``rst_n``, ``reset_b``,
    ``rstn``, ``nrst``, ``n_reset``, ``aresetn``, ``sys_rst_n``.
    """
    parts = [p for p in name.lower().split("_") if p]
    for i, p in enumerate(parts):
        nxt = parts[i + 1] if i + 1 < len(parts) else ""
        prev = parts[i - 1] if i > 0 else ""
        if p in _RESET_WORDS:
            return "low" if nxt in _LOW_SUFFIXES or prev == "n" else "high"
        if p.endswith("n") and p[:-1] in _RESET_WORDS:
            return "low"
        if p.startswith("n") and p[1:] in _RESET_WORDS:
            return "low"
    return None


#: clock or latch-enable pins: any cell type / pin names
_CLOCK_PINS = {"C", "CLK", "WCLK", "CLKARDCLK", "CLKBWRCLK", "RDCLK", "WRCLK", "RD_CLK", "WR_CLK", "CLKA", "CLKB"}
#: cells a clock passes through: type -> (input pins, output pin)
_CLOCK_BUFFERS = {"IBUF": (("I",), "O"), "IBUFG": (("I",), "O"), "BUFG": (("I",), "O"), "BUFH": (("I",), "O"),
                  "BUFR": (("I",), "O"), "BUFIO": (("I",), "O"), "BUFGCE": (("I",), "O"),
                  "BUFHCE": (("I",), "O"), "BUFGCTRL": (("I0", "I1"), "O"), "BUFGMUX": (("I0", "I1"), "O"),
                  "$_BUF_": (("A",), "Y"), "$_NOT_": (("A",), "Y")}


def _clock_pins(ctype: str) -> tuple[str, ...]:
    """The clock (latch enable) pins of a cell type: Yosys's fine-grained FFs ``C``, latches ``E``,
    coarse FFs ``CLK``, latches ``EN``, memories ``RD_CLK``/``WR_CLK``; other Yosys cells none;
    Xilinx latches ``G``, other primitives the pins of :data:`_CLOCK_PINS`."""
    if ctype.startswith("$_DLATCH"):
        return ("E",)
    if ctype.startswith(("$dlatch", "$adlatch")):
        return ("EN",)
    if ctype in _LATCH_PRIMITIVES:
        return ("G",)
    if ctype.startswith("$_"):
        return ("C",) if "FF" in ctype else ()
    if ctype.startswith("$mem"):
        return ("RD_CLK", "WR_CLK")
    if ctype.startswith("$"):
        return ("CLK",) if "ff" in ctype else ()
    return tuple(_CLOCK_PINS)


def clock_ports(module: dict) -> set[str]:
    """Input ports of a Yosys JSON module that drive a clock (or latch enable) pin of a register,
    latch, memory or DSP cell, directly or through clock buffers, IBUFs and inverters."""
    drivers: dict[int, list[int]] = {}
    for c in module.get("cells", {}).values():
        buf = _CLOCK_BUFFERS.get(c.get("type"))
        if buf:
            conn = c.get("connections", {})
            ins = [b for pin in buf[0] for b in conn.get(pin, []) if isinstance(b, int)]
            for b in conn.get(buf[1], []):
                if isinstance(b, int):
                    drivers.setdefault(b, []).extend(ins)
    todo = []
    for c in module.get("cells", {}).values():
        ctype = c.get("type", "")
        if ctype in _CLOCK_BUFFERS:
            continue
        conn = c.get("connections", {})
        for pin in _clock_pins(ctype):
            todo += [b for b in conn.get(pin, []) if isinstance(b, int)]
    seen: set[int] = set()
    while todo:
        b = todo.pop()
        if b in seen:
            continue
        seen.add(b)
        todo += drivers.get(b, [])
    return {n for n, p in module.get("ports", {}).items()
            if p.get("direction") == "input" and any(b in seen for b in p.get("bits", []))}


def _index_range(module: dict, name: str, width: int) -> tuple[int, int]:
    """(declared index of the leftmost bit, of the rightmost bit) of port ``name`` (netnames'
    ``offset``/``upto``; default ``[width-1:0]``)."""
    nn = module.get("netnames", {}).get(name, {})
    off = int(nn.get("offset", 0) or 0)
    if nn.get("upto"):
        return off, off + width - 1
    return off + width - 1, off


def netlist_ports(module: dict, params: Sequence[str]) -> list[CheckPort]:
    """The top module's ports (``pre.json`` order) with their roles: clocks (:func:`clock_ports`),
    parameter inputs (``params``, any case), resets (:func:`reset_polarity`), other inputs, outputs."""
    clocks = clock_ports(module)
    plow = {p.lower() for p in params}
    out = []
    for name, p in module.get("ports", {}).items():
        d, w = p.get("direction", "input"), len(p.get("bits", []))
        kind = "data"
        if d == "input":
            if name in clocks:
                kind = "clock"
            elif name.lower() in plow:
                kind = "param"
            else:
                pol = reset_polarity(name)
                kind = {"high": "reset", "low": "reset_n"}.get(pol, "data")
        msb, lsb = _index_range(module, name, w)
        out.append(CheckPort(name, d, w, kind, msb, lsb))
    return out


# ------------------------------------------------------------------------------------ stimulus

def make_stimulus(ports: Sequence[CheckPort], cycles: int, seed: int) -> list[list[str]]:
    """The stimulus: per cycle one binary token (most significant / leftmost bit first) per input
    port that is not a clock, in ``ports`` order (module docstring: segments, resets, parameters).

    Raises:
        ValueError: cycles < 1.
    """
    if cycles < 1:
        raise ValueError("cycles must be at least 1")
    rng = random.Random(seed)
    seg = max(1, math.ceil(cycles / SEGMENTS))
    ins = [p for p in ports if p.direction == "input" and p.kind != "clock"]
    params: dict[str, int] = {}
    rows = []
    for c in range(cycles):
        k = c % seg
        if k == 0:
            params = {p.name: rng.getrandbits(p.width) for p in ins if p.kind == "param"}
        row = []
        for p in ins:
            if p.kind == "param":
                v = params[p.name]
            elif p.kind in ("reset", "reset_n"):
                asserted = k < RESET_CYCLES
                v = (1 if asserted else 0) if p.kind == "reset" else (0 if asserted else 1)
                v = ((1 << p.width) - 1) if v else 0
            else:
                v = rng.getrandbits(p.width)
            row.append(format(v, f"0{p.width}b"))
        rows.append(row)
    return rows


def write_stimulus(path: Path, rows: list[list[str]], seed: int) -> None:
    """``stim.txt``: header ``frontcheck-stim 1 <cycles> <inputs> <seed>``, then one line per cycle."""
    n = len(rows[0]) if rows else 0
    text = f"frontcheck-stim 1 {len(rows)} {n} {seed}\n" + "".join(" ".join(r) + "\n" for r in rows)
    write_text_atomic(path, text)


# ------------------------------------------------------------------------------------ comparison

_UNDEFINED = set("UXZW-uxzw?")
_LEVEL = {"0": "0", "1": "1", "L": "0", "H": "1", "l": "0", "h": "1"}


@dataclass
class Comparison:
    """Outcome of :func:`compare_outputs`: compared and uncompared bits, the first difference
    (None: none) as (port, bit position from the left, cycle, source char, netlist char)."""

    compared: int = 0
    uncompared: int = 0
    first: tuple | None = None


def _read_lines(path: Path, cycles: int, outputs: Sequence[CheckPort], who: str) -> list[list[str]]:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as e:
        raise FrontCheckError(f"frontend check: the {who} simulation wrote no results ({path}: "
                              f"{e.strerror or e})") from None
    rows = [ln.split() for ln in lines if ln.strip()]
    if len(rows) < cycles:
        raise FrontCheckError(f"frontend check: the {who} simulation stopped after {len(rows)} of {cycles} "
                              f"cycles (results: {path})")
    widths = [p.width for p in outputs]
    for k, r in enumerate(rows[:cycles]):
        if [len(t) for t in r] != widths:
            raise FrontCheckError(f"frontend check: line {k + 1} of the {who} simulation's results {path} has "
                                  f"values of widths {[len(t) for t in r]}, expected {widths}")
    return rows[:cycles]


def compare_outputs(source: list[list[str]], netlist: list[list[str]], outputs: Sequence[CheckPort]) -> Comparison:
    """Compare the output values, cycle by cycle and bit by bit (module docstring: undefined source
    bits are counted, not compared). Stops at the first difference."""
    res = Comparison()
    for cycle, (srow, nrow) in enumerate(zip(source, netlist)):
        for p, s, n in zip(outputs, srow, nrow):
            if s == n and not s.strip("01"):
                res.compared += len(s)
                continue
            for pos, (a, b) in enumerate(zip(s, n)):
                if a in _UNDEFINED:
                    res.uncompared += 1
                    continue
                res.compared += 1
                if _LEVEL.get(a) != _LEVEL.get(b, b):
                    res.first = (p, pos, cycle, a, b)
                    return res
    return res


# ------------------------------------------------------------------------------------ templates

@lru_cache(maxsize=None)
def _environment():
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True, autoescape=False)


def _render(name: str, context: dict) -> str:
    """Render template ``name`` of ``flow/templates/frontcheck``. Raises FrontCheckError (one line)."""
    import jinja2

    try:
        return _environment().get_template(name).render(context)
    except jinja2.TemplateError as e:
        raise FrontCheckError(f"frontend check: template {name}: {e}") from None


def _vlog_ident(name: str) -> str:
    """``name`` as a Verilog escaped identifier (any name; ``\\clk `` is ``clk``)."""
    return f"\\{name} "


def _vlog_value(v: int | str) -> str:
    return str(v) if isinstance(v, int) else '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


_VHDL_LITERAL = re.compile(r'^(?:true|false|[0-9][0-9_]*(?:\.[0-9_]+)?(?:[eE][+-]?[0-9]+)?|[0-9]+#[0-9a-fA-F_]+#'
                           r'|\'.\'|".*"|[bBoOxX]".*")$', re.IGNORECASE)


def _vhdl_value(v: int | str) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    s = str(v)
    return s if _VHDL_LITERAL.match(s) else '"' + s.replace('"', '""') + '"'


def verilog_testbench(ports: Sequence[CheckPort], top: str, cycles: int, parameters: Mapping[str, int | str],
                      stim: str, out: str) -> str:
    """The Verilog test bench (``flow/templates/frontcheck/tb.v.j2``) driving module ``top``."""
    rows = []
    for i, p in enumerate(ports):
        rows.append({"name": p.name, "ref": _vlog_ident(p.name), "signal": f"p{i}_{p.direction[0]}",
                     "direction": p.direction, "kind": p.kind,
                     "range": f"[{p.width - 1}:0] " if p.width > 1 else "",
                     "high": f"{{{p.width}{{1'b1}}}}" if p.width > 1 else "1'b1"})
    return _render("tb.v.j2", {
        "top": top, "top_ref": _vlog_ident(top), "tb": TB, "ports": rows, "cycles": cycles, "stim": stim, "out": out,
        "clocks": [r for r in rows if r["kind"] == "clock"],
        "inputs": [r for r in rows if r["direction"] == "input" and r["kind"] != "clock"],
        "outputs": [r for r in rows if r["direction"] == "output"],
        "parameters": [{"name": k, "value": _vlog_value(v)} for k, v in parameters.items()]})


def vhdl_base_type(type_text: str) -> str | None:
    """The type mark of a VHDL subtype indication as written by the scanner (``std_logic_vector ( 7
    downto 0 )`` -> ``std_logic_vector``; ``ieee . numeric_std . unsigned ( ... )`` ->
    ``ieee.numeric_std.unsigned``), or None when it is none of :data:`VHDL_TYPES`."""
    head = type_text.split("(")[0].replace(" ", "")
    if not head or head.split(".")[-1].lower() not in VHDL_TYPES:
        return None
    return head


# ------------------------------------------------------------------------------------ VHDL records

#: VHDL types the test bench drives element by element: name -> the scalar type of the elements
#: (None: the type is itself a scalar of that kind)
_SCALARS = {"std_logic": "std_ulogic", "std_ulogic": "std_ulogic", "bit": "bit"}
_VECTORS = {"std_logic_vector": "std_ulogic", "std_ulogic_vector": "std_ulogic", "unsigned": "std_ulogic",
            "signed": "std_ulogic", "unresolved_unsigned": "std_ulogic", "unresolved_signed": "std_ulogic",
            "u_unsigned": "std_ulogic", "u_signed": "std_ulogic", "bit_vector": "bit"}
#: words of a constraint that name no object (the rest must be record field names)
_CONSTRAINT_WORDS = {"to", "downto", "open", "others"}


@dataclass(frozen=True)
class Shape:
    """The structure of a VHDL type as GHDL 2.0.0's synthesis packs it into bits: ``scalar``
    (``base`` ``std_ulogic`` or ``bit``; one bit), ``array`` (one dimension; ``element``; the
    rightmost element in the least significant bits, as in a ``std_logic_vector``) or ``record``
    (``fields`` in declaration order; the first field in the least significant bits). ``name``:
    the type as written, for messages."""

    kind: str
    name: str = ""
    base: str = ""
    element: "Shape | None" = None
    fields: tuple = ()

    def field_names(self) -> set[str]:
        """Lower-case names of the record fields at any depth."""
        out = {f.lower() for f, _ in self.fields}
        for _, sh in self.fields:
            out |= sh.field_names()
        if self.element is not None:
            out |= self.element.field_names()
        return out


class UnsupportedVhdlType(ValueError):
    """A VHDL type the front-end check's test bench cannot drive (:func:`vhdl_shape`); the message
    names it and says why."""


def _type_mark(text: str) -> tuple[str, str]:
    """(package or "", type mark) of a subtype indication as the scanner writes it (``work . p . t (
    3 downto 0 )`` -> ``("p", "t")``; ``integer range 0 to 7`` -> ``("", "integer")``; a resolution
    function before the mark is dropped)."""
    head = text.split("(")[0]
    head = re.split(r"\s+range\s+", " " + head + " ", flags=re.IGNORECASE)[0].strip()
    words = head.replace(" . ", ".").split()
    mark = words[-1] if words else ""
    parts = mark.split(".")
    return (parts[-2] if len(parts) > 1 else ""), parts[-1]


def vhdl_shape(type_text: str, types: Mapping[str, list], _seen: tuple[str, ...] = ()) -> Shape:
    """The :class:`Shape` of a VHDL subtype indication (as :class:`dcsflow.flow.vhdl.Port` writes it),
    with the packages' types ``types`` (:func:`dcsflow.flow.vhdl.package_types`).

    Raises:
        UnsupportedVhdlType: a type that is not std_logic, std_ulogic, bit, one of their vectors (std_logic_vector,
            std_ulogic_vector, unsigned, signed, bit_vector), or a record or one-dimensional array of
            those (at any depth); a type declared in several packages; a recursive type.
    """
    pkg, mark = _type_mark(type_text)
    low = mark.lower()
    if low in _SCALARS:
        return Shape("scalar", type_text, base=_SCALARS[low])
    if low in _VECTORS:
        return Shape("array", type_text, element=Shape("scalar", _VECTORS[low], base=_VECTORS[low]))
    decls = [d for d in types.get(low, []) if not pkg or d.package.lower() == pkg.lower()]
    if not decls:
        raise UnsupportedVhdlType(f"type {type_text.replace(' . ', '.')}")
    if len({(d.kind, d.fields, d.element, d.dimensions, d.indication) for d in decls}) > 1:
        raise UnsupportedVhdlType(f"type {mark}, declared differently in packages "
                           + ", ".join(dict.fromkeys(d.package for d in decls)))
    d = decls[0]
    if low in _seen:
        raise UnsupportedVhdlType(f"type {mark}, which refers to itself")
    seen = (*_seen, low)
    if d.kind == "subtype":
        return vhdl_shape(d.indication, types, seen)
    if d.kind == "record":
        return Shape("record", type_text, fields=tuple((f, vhdl_shape(t, types, seen)) for f, t in d.fields))
    if d.kind == "array":
        if d.dimensions != 1:
            raise UnsupportedVhdlType(f"type {mark}, an array of {d.dimensions} dimensions")
        return Shape("array", type_text, element=vhdl_shape(d.element, types, seen))
    raise UnsupportedVhdlType(f"type {mark} ({d.path}:{d.line}: an enumeration, integer or other scalar type)")


@dataclass(frozen=True)
class VhdlTarget:
    """What a netlist port of a VHDL design is in the entity: the VHDL ``port``
    (:class:`dcsflow.flow.vhdl.Port`), the record ``field`` GHDL made it of (None: the whole port) and
    the ``shape`` the test bench drives (None: the whole port is of a type of :data:`VHDL_TYPES`)."""

    port: object
    field: str | None = None
    shape: Shape | None = None

    @property
    def vhdl_name(self) -> str:
        """The port (``p``) or record field (``p.f``) as the VHDL names it."""
        return f"{self.port.name}.{self.field}" if self.field else self.port.name


def _drive_lines(target: str, shape: Shape, var: str, depth: int = 0) -> list[str]:
    """Statements that assign ``target`` from bits ``var(off)`` upwards (``off`` advanced past them),
    in GHDL's packing (:class:`Shape`)."""
    if shape.kind == "scalar":
        bit = f"{var}(off)"
        return [f"{target} <= {'to_bit(' + bit + ')' if shape.base == 'bit' else bit}; off := off + 1;"]
    if shape.kind == "array":
        k = f"k{depth}"
        inner = _drive_lines(f"{target}({k})", shape.element, var, depth + 1)
        return [f"for {k} in {target}'reverse_range loop", *("  " + ln for ln in inner), "end loop;"]
    return [ln for f, sh in shape.fields for ln in _drive_lines(f"{target}.{f}", sh, var, depth)]


def _sample_lines(target: str, shape: Shape, depth: int = 0) -> list[str]:
    """Statements that write ``target`` onto line ``lo``, most significant bit first (GHDL's packing)."""
    if shape.kind == "scalar":
        return [f"write(lo, to_string({target}));"]
    if shape.kind == "array":
        k = f"k{depth}"
        inner = _sample_lines(f"{target}({k})", shape.element, depth + 1)
        return [f"for {k} in {target}'range loop", *("  " + ln for ln in inner), "end loop;"]
    return [ln for f, sh in reversed(shape.fields) for ln in _sample_lines(f"{target}.{f}", sh, depth)]


def _constraint_names(type_text: str, shape: Shape) -> list[str]:
    """Identifiers in the constraint of a subtype indication that are no record field names (e.g.
    a generic): a test bench cannot declare a signal of that subtype."""
    if "(" not in type_text:
        return []
    rest = type_text[type_text.index("("):]
    fields = shape.field_names()
    return [w for w in re.findall(r"[A-Za-z][A-Za-z0-9_]*", rest)
            if w.lower() not in _CONSTRAINT_WORDS and w.lower() not in fields]


def vhdl_testbench(ports: Sequence[CheckPort], vhdl_ports: Mapping[str, VhdlTarget], top: str, cycles: int,
                   generics: Mapping[str, int | str], context: Sequence[str], stim: str, out: str) -> str:
    """The VHDL test bench (``flow/templates/frontcheck/tb.vhd.j2``) driving entity ``top``.

    vhdl_ports: netlist port name -> :class:`VhdlTarget` (every port is there: :func:`_vhdl_port_problem`
    first). A port of a type of :data:`VHDL_TYPES` gets a signal of its own; a record or array port
    one signal of its subtype as written, whose parts (a record field per netlist port, as GHDL
    flattens a record port) are driven and sampled bit by bit in GHDL's packing (:class:`Shape`).
    """
    rows, signals, whole = [], {}, {}
    for i, p in enumerate(ports):
        t = vhdl_ports[p.name]
        vp = t.port
        var = f"v{i}"
        row = {"name": p.name, "kind": p.kind, "direction": p.direction, "var": var}
        if t.shape is None:
            base = vhdl_base_type(vp.type)
            low = base.split(".")[-1].lower()
            scalar = VHDL_TYPES[low]
            if low == "bit":
                convert = "to_bit({v})"
            elif low == "bit_vector":
                convert = "to_bitvector({v})"
            elif low in ("std_logic", "std_ulogic", "std_ulogic_vector"):
                convert = "{v}"
            else:
                convert = base + "({v})"
            sig = f"s{i}_{p.direction[0]}"
            low_v, high_v = ("'0'", "'1'") if scalar else ("(others => '0')", "(others => '1')")
            signals[vp.name.lower()] = {"name": vp.name, "signal": sig, "init": low_v if p.kind == "clock" else "",
                                        "decl": base if scalar else f"{base}({p.width - 1} downto 0)"}
            row.update(var_decl="std_ulogic" if scalar else f"std_ulogic_vector({p.width - 1} downto 0)",
                       drive=[f"{sig} <= {convert.format(v=var)};"], sample=[f"write(lo, to_string({sig}));"],
                       low=f"{sig} <= {low_v};", high=f"{sig} <= {high_v};")
        else:
            key = vp.name.lower()
            if key not in whole:
                whole[key] = f"r{len(whole)}_{p.direction[0]}"
                signals[key] = {"name": vp.name, "signal": whole[key], "decl": vp.type, "init": ""}
            target = whole[key] + (f".{t.field}" if t.field else "")
            one = t.shape.kind == "scalar" and p.width == 1
            if one:
                drive = [f"{target} <= {'to_bit(' + var + ')' if t.shape.base == 'bit' else var};"]
            else:
                drive = ["off := 0;", *_drive_lines(target, t.shape, var),
                         f"if off /= {p.width} then",
                         f"  report \"dcsflow front-end check: {vp.name}: the test bench drives \" "
                         f"& integer'image(off) & \" bits of netlist port {p.name}, which has {p.width}\" "
                         "severity failure;",
                         "  std.env.stop(1);", "end if;"]
            row.update(var_decl="std_ulogic" if one else f"std_ulogic_vector({p.width - 1} downto 0)", drive=drive,
                       sample=_sample_lines(target, t.shape), low=f"{target} <= '0';", high=f"{target} <= '1';")
        rows.append(row)
    return _render("tb.vhd.j2", {
        "top": top, "tb": TB, "signals": list(signals.values()), "cycles": cycles, "stim": stim, "out": out,
        "context": list(context), "packed": bool(whole),
        "clocks": [r for r in rows if r["kind"] == "clock"],
        "inputs": [r for r in rows if r["direction"] == "input" and r["kind"] != "clock"],
        "outputs": [r for r in rows if r["direction"] == "output"],
        "generics": [{"name": k, "value": _vhdl_value(v)} for k, v in generics.items()]})


# ------------------------------------------------------------------------------------ simulators

def _version(cmd: list[str], pattern: str, label: str) -> str:
    try:
        r = run_tool(cmd, tool=Path(cmd[0]).name, what=" ".join(cmd[1:]), timeout=DEFAULT_LIMITS["version"])
    except OSError:
        return label
    m = re.search(pattern, r.stdout + r.stderr)
    return f"{label} {m[1]}" if m else label


@lru_cache(maxsize=None)
def icarus_version() -> str:
    """``icarus <version>`` (``iverilog -V``), e.g. ``icarus 11.0``."""
    return _version([find_tool("iverilog"), "-V"], r"Icarus Verilog version (\S+)", "icarus")


@lru_cache(maxsize=None)
def ghdl_sim_version() -> str:
    """``ghdl <version>`` (``ghdl --version``), e.g. ``ghdl 2.0.0``."""
    return _version([find_tool("ghdl"), "--version"], r"GHDL (\S+)", "ghdl")


def _icarus_name(path: Path, workdir: Path, links: dict) -> str:
    """How Icarus, running in ``workdir``, is given ``path``: relative when it is in ``workdir``,
    absolute when plain, else through a symbolic link ``workdir/_paths/<k>`` (Icarus writes file
    names into its ``.vvp`` file unescaped: a double quote or backslash breaks it)."""
    path = Path(path).resolve()
    try:
        rel = path.relative_to(workdir.resolve())
        if not any(c in str(rel) for c in '"\\\n'):
            return str(rel)
    except ValueError:
        pass
    if not any(c in str(path) for c in '"\\\n'):
        return str(path)
    if path not in links:
        d = workdir / "_paths"
        d.mkdir(exist_ok=True)
        link = d / f"{len(links)}{path.suffix if re.fullmatch(r'[.][A-Za-z0-9]+', path.suffix) else ''}"
        link.symlink_to(path)
        links[path] = str(link.relative_to(workdir))
    return links[path]


def _icarus(sources: list[Path], workdir: Path, name: str, who: str, defines: Mapping[str, object] | None = None,
            include_dirs: Sequence[Path] = ()) -> None:
    """Compile and run a test bench with Icarus (:func:`dcsflow.flow.simulate.icarus`) in ``workdir``;
    logs in ``workdir/<name>.log``. Raises FrontCheckError naming the simulation."""
    from .simulate import SimulatorError, icarus

    links: dict = {}
    srcs = [_icarus_name(s, workdir, links) for s in sources]
    incs = [f"-I{_icarus_name(d, workdir, links)}" for d in include_dirs]
    try:
        r = icarus(srcs, workdir, top=TB, name=name, generation="2012", defines=defines, extra_args=incs,
                   cwd=workdir)
    except SimulatorError as e:
        raise FrontCheckError(f"frontend check: the {who} simulation failed: {e} (files: {workdir}; "
                              "--no-frontend-check skips the check)") from None
    finally:
        (workdir / f"{name}.vvp").unlink(missing_ok=True)
    write_text_atomic(workdir / f"{name}.log", r.stdout + r.stderr)


def _write_netlist_verilog(pre_json: Path, workdir: Path) -> Path:
    """``pre.json`` as Verilog (Yosys ``read_json; opt_clean; splitnets; write_verilog -noattr
    -simple-lhs``).

    ``opt_clean`` moves each register's ``init`` value onto the wire ``write_verilog`` declares as
    the reg (else the initial value is lost); ``splitnets`` makes every internal bit its own wire:
    Icarus re-evaluates every reader of a vector when one of its bits changes, which made the
    bit-level netlist of picipher take 255 s for 2,000 cycles instead of 5 s. ``-simple-lhs`` writes
    the module's connections one assignment per wire instead of one ``assign {a, b, ...} = {x, y,
    ...}`` per connection: Icarus builds such a concatenation as one vector that it rebuilds and
    sends to every bit of the left-hand side whenever one bit changes (time quadratic in its
    width). keccak's netlist has connections of up to 2,112 bits; they made its 2,000 cycles take
    61 s instead of 6 s."""
    from .yosys import YosysError, quote, run_script, script_path

    out = workdir / "netlist.v"
    src = script_path(Path(pre_json).resolve(), workdir)
    try:
        run_script(f"read_json {quote(src)}\nopt_clean\nsplitnets\nwrite_verilog -noattr -simple-lhs netlist.v\n",
                   workdir, "netlist")
    except YosysError as e:
        raise FrontCheckError(f"frontend check: writing the netlist as Verilog failed: {e}") from None
    return out


def _ghdl_safe(folder: Path) -> bool:
    return not any(c in str(folder.resolve()) for c in '"\\\n\r')


def _run_ghdl_source(spec: CheckSpec, workdir: Path) -> None:
    """GHDL: import the front end's source copies (``ghdl_dir/src``) and the test bench into a fresh
    library, make and run it; ``source.out`` lands in ``workdir``. (The front end's own library
    cannot be reused as it is: GHDL's mcode back end re-reads the sources from the absolute folder
    recorded in it, which may be a temporary folder gone since.)"""
    from .vhdl import ghdl_error, ghdl_options

    ghdl = find_tool("ghdl")
    if spec.ghdl_dir is None:
        raise FrontCheckError("frontend check: a VHDL design needs the front end's GHDL folder (CheckSpec.ghdl_dir)")
    run_dir, tmp = workdir, None
    if not _ghdl_safe(workdir):
        tmp = Path(tempfile.mkdtemp(prefix="dcsflow-frontcheck-"))
        run_dir = tmp
    try:
        src = Path(spec.ghdl_dir) / "src"
        if not src.is_dir():
            raise FrontCheckError(f"frontend check: {src} missing: run the 'frontend' stage first (--from frontend)")
        shutil.copytree(src, run_dir / "src", dirs_exist_ok=True)
        if run_dir != workdir:
            for name in ("tb.vhd", STIM):
                shutil.copy(workdir / name, run_dir / name)
        (run_dir / "work").mkdir(exist_ok=True)
        files = sorted(p.relative_to(run_dir).as_posix() for p in (run_dir / "src").rglob("*") if p.is_file())
        names = {}                               # GHDL's copy src/<i>/<file> -> the user's file
        for f in files:
            m = re.match(r"^src/(\d+)/", f)
            if m and int(m[1]) < len(spec.sources):
                names[f] = str(spec.sources[int(m[1])])
        opts = [*ghdl_options(spec.ghdl_options), "--workdir=work"]
        log = []
        for args, doing in ((["-i", *opts, *files, "tb.vhd"], "importing the sources"),
                            (["-m", *opts, TB], "analysing the test bench"),
                            (["--elab-run", *opts, TB, "--assert-level=none", "--ieee-asserts=disable"],
                             "simulating the VHDL")):
            try:
                r = run_tool([ghdl, *args], tool="ghdl", what=doing, cwd=run_dir)
            except OSError as e:
                raise FrontCheckError(f"frontend check: ghdl ({ghdl}) could not be started: {e.strerror or e}") from None
            log.append(f"$ ghdl {' '.join(args)}\n{r.stdout}{r.stderr}")
            write_text_atomic(workdir / "ghdl.log", "".join(log))
            if r.returncode != 0:
                out = r.stderr + r.stdout
                msg = ghdl_error(out, names, workdir / "ghdl.log")
                if r.returncode < 0 or msg.startswith("GHDL failed"):
                    msg = failure_message("ghdl", r.returncode, out, doing)
                raise FrontCheckError(f"frontend check: GHDL failed {doing}: {msg} (log: {workdir / 'ghdl.log'}; "
                                      "--no-frontend-check skips the check)")
    finally:
        if tmp is not None:
            if (tmp / SOURCE_OUT).exists():
                shutil.copy(tmp / SOURCE_OUT, workdir / SOURCE_OUT)
            shutil.rmtree(tmp, ignore_errors=True)


# ------------------------------------------------------------------------------------ the check

def _vhdl_port_problem(ports: Sequence[CheckPort], vhdl_ports: Sequence,
                       sources: Sequence[Path] = ()) -> tuple[dict, str | None]:
    """Map netlist ports to the entity's ports (case-insensitive; :class:`VhdlTarget`): a port of a
    type of :data:`VHDL_TYPES` by its name; a port of a record or array type (:func:`vhdl_shape`,
    types declared in the packages of ``sources``) by its name, or, for a record port, one netlist
    port ``<port>_<field>`` per field, as GHDL 2.0.0's synthesis flattens it. Returns the mapping and
    the reason the check must be skipped, or None."""
    by_low = {vp.name.lower(): vp for vp in vhdl_ports}
    types = None
    shapes: dict[str, Shape] = {}

    def shape_of(vp) -> Shape:
        nonlocal types
        if vp.name.lower() not in shapes:
            if types is None:
                from .vhdl import package_types

                types = package_types(tuple(sources))
            shapes[vp.name.lower()] = vhdl_shape(vp.type, types)
        return shapes[vp.name.lower()]

    fields: dict[str, tuple] = {}                  # "<port>_<field>" -> (VHDL port, field, shape)
    for vp in vhdl_ports:
        if vhdl_base_type(getattr(vp, "type", "") or "") is not None:
            continue
        try:
            sh = shape_of(vp)
        except UnsupportedVhdlType as e:
            part = "" if str(e) == f"type {vp.type.replace(' . ', '.')}" else f" ({e})"
            return {}, (f"port {vp.name} has type {vp.type or '?'}{part}; the test bench drives only "
                        + ", ".join(VHDL_TYPES) + ", and records and one-dimensional arrays of them")
        for f, fsh in sh.fields:
            fields[f"{vp.name}_{f}".lower()] = (vp, f, fsh)
    mapping = {}
    for p in ports:
        vp = by_low.get(p.name.lower())
        if vp is None and p.name.lower() in fields:
            vp, f, fsh = fields[p.name.lower()]
            mapping[p.name] = VhdlTarget(vp, f, fsh)
        elif vp is None:
            return mapping, f"netlist port {p.name} is no port of the VHDL entity"
        elif vhdl_base_type(getattr(vp, "type", "") or "") is None:
            mapping[p.name] = VhdlTarget(vp, None, shape_of(vp))
        else:
            base = vhdl_base_type(vp.type)
            if VHDL_TYPES[base.split(".")[-1].lower()] and p.width != 1:
                return mapping, f"port {vp.name}: a {base} with {p.width} bits in the netlist"
            mapping[p.name] = VhdlTarget(vp)
            continue
        t = mapping[p.name]
        if p.kind == "clock" and not (t.shape.kind == "scalar" and p.width == 1):
            return mapping, f"clock {p.name} ({t.vhdl_name}) of type {t.shape.name} is not one bit"
        names = _constraint_names(vp.type, shapes[vp.name.lower()])
        if names:
            return mapping, (f"port {vp.name} has subtype {vp.type}, whose constraint names {names[0]}: the test "
                             "bench cannot declare a signal of it")
    mapped = {(t.port.name.lower(), (t.field or "").lower()) for t in mapping.values()}
    for vp, f, _ in fields.values():
        if (vp.name.lower(), "") not in mapped and (vp.name.lower(), f.lower()) not in mapped:
            return mapping, (f"field {f} of record port {vp.name} has no netlist port {vp.name}_{f} (GHDL's name "
                             "for it)")
    return mapping, None


def _check_inputs(spec: CheckSpec, pre_json: Path, *a, **k) -> list:
    """The files the front-end check reads (the job cache's inputs): the netlist and the sources."""
    return [pre_json, *hdl_inputs(spec.sources), *([spec.ghdl_dir] if spec.ghdl_dir is not None else [])]


@cached(base=lambda spec, pre_json, top, params, workdir, *a, **k: Path(workdir).parent, inputs=_check_inputs,
        outputs=lambda spec, pre_json, top, params, workdir, *a, **k: [Path(workdir).name],
        key=lambda spec, pre_json, top, params, workdir, cycles=DEFAULT_CYCLES, seed=DEFAULT_SEED, step=None:
            [spec, top, list(params), cycles, seed])
def check_frontend(spec: CheckSpec, pre_json: Path, top: str, params: Sequence[str], workdir: Path,
                   cycles: int = DEFAULT_CYCLES, seed: int = DEFAULT_SEED,
                   step: Callable[[str], None] | None = None) -> FrontCheckResult:
    """Simulate the source and the front end's netlist on the same random stimulus, compare every
    output every cycle (module docstring).

    Args:
        spec: the source side (:class:`CheckSpec`); pre_json: the front end's netlist (Yosys JSON);
        top: its top module; params: parameter input names (any case); workdir: work folder
        (emptied first); cycles: cycles to simulate (>= 1); seed: of the stimulus; step: progress
        callback ``step(text)``.
    Returns:
        FrontCheckResult: passed True, or passed None with the reason when the design cannot be
        checked here (mixed languages, inout ports, VHDL port types the test bench cannot drive).
    Raises:
        FrontCheckError: an output differs (the first: output bit, cycle, both values); a simulation,
            the test bench's compilation or Yosys failed (one line naming the log).
        ToolMissing: Yosys, Icarus or GHDL missing.
        ValueError: cycles < 1.
    """
    t0 = time.perf_counter()
    step = step or (lambda s: None)
    if cycles < 1:
        raise ValueError("cycles must be at least 1")

    def skip(why: str) -> FrontCheckResult:
        return FrontCheckResult(passed=None, cycles=0, seed=seed, skipped=why, seconds=time.perf_counter() - t0)

    if spec.language not in ("vhdl", "verilog"):
        return skip("the design mixes VHDL and Verilog; no one simulator here reads both")
    try:
        pre = load_json_file(Path(pre_json), NETLIST_LIMIT)
        module = pre["modules"][top]
    except (OSError, ValueError, KeyError) as e:
        raise FrontCheckError(f"frontend check: cannot read module {top} of {pre_json} ({e})") from None
    ports = netlist_ports(module, params)
    if any(p.direction == "inout" for p in ports):
        return skip("inout port " + next(p.name for p in ports if p.direction == "inout"))
    outputs = [p for p in ports if p.direction == "output"]
    if not outputs:
        return skip("the top has no outputs")
    vmap: dict = {}
    if spec.language == "vhdl":
        vmap, why = _vhdl_port_problem(ports, spec.vhdl_ports, spec.sources)
        if why:
            return skip(why)

    workdir = Path(workdir)
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    rows = make_stimulus(ports, cycles, seed)
    write_stimulus(workdir / STIM, rows, seed)
    write_text_atomic(workdir / "check.json", json.dumps(
        {"format": "dcsflow-frontcheck", "version": 1, "top": top, "cycles": cycles, "seed": seed,
         "ports": [asdict(p) for p in ports]}, indent=1) + "\n")
    net_sim = _simulate_netlist(Path(pre_json), workdir, ports, top, cycles, step)
    sim, who = _simulate_source(spec, workdir, ports, vmap, top, cycles, step, net_sim)
    src_rows = _read_lines(workdir / SOURCE_OUT, cycles, outputs, "source")
    net_rows = _read_lines(workdir / NETLIST_OUT, cycles, outputs, "netlist")
    cmp = compare_outputs(src_rows, net_rows, outputs)
    if cmp.first is not None:
        p, pos, cycle, a, b = cmp.first
        t = vmap.get(p.name)
        part = f" (of {t.vhdl_name} in the VHDL)" if t is not None and t.shape is not None else ""
        raise FrontCheckError(
            f"frontend check: output {p.bit_name(pos)}{part} differs at cycle {cycle}: source {a}, netlist {b} "
            f"({who} vs. the front end's netlist {Path(pre_json).name}; seed {seed}, stimulus and both "
            f"simulations' outputs in {workdir}; --no-frontend-check skips the check)")
    return FrontCheckResult(passed=True, cycles=cycles, simulator=sim, netlist_simulator=net_sim, seed=seed,
                            compared_bits=cmp.compared, uncompared_bits=cmp.uncompared,
                            clocks=[p.name for p in ports if p.kind == "clock"],
                            resets=[p.name for p in ports if p.kind in ("reset", "reset_n")],
                            seconds=time.perf_counter() - t0)


def _simulate_netlist(pre_json: Path, workdir: Path, ports, top: str, cycles: int, step) -> str:
    """The netlist's simulation: pre.json written as Verilog by Yosys, simulated by Icarus with
    Yosys's models (``netlist.out``). Returns the simulator's name and version."""
    from .yosys import cells_sim

    step("front-end check: netlist to Verilog (yosys)")
    net_v = _write_netlist_verilog(pre_json, workdir)
    write_text_atomic(workdir / "tb_netlist.v", verilog_testbench(ports, top, cycles, {}, STIM, NETLIST_OUT))
    step(f"front-end check: simulating the netlist, {cycles} cycles (icarus)")
    _icarus([net_v, cells_sim(), workdir / "tb_netlist.v"], workdir, "netlist", "netlist")
    return icarus_version()


def _simulate_source(spec: CheckSpec, workdir: Path, ports, vmap: dict, top: str, cycles: int, step,
                     net_sim: str) -> tuple[str, str]:
    """The source's simulation (``source.out``): GHDL for VHDL, Icarus for Verilog. Returns (the
    simulator's name and version, what was simulated, for a message)."""
    if spec.language == "vhdl":
        step(f"front-end check: simulating the VHDL, {cycles} cycles (ghdl)")
        write_text_atomic(workdir / "tb.vhd", vhdl_testbench(ports, vmap, spec.top, cycles, spec.chparams,
                                                             spec.vhdl_context, STIM, SOURCE_OUT))
        _run_ghdl_source(spec, workdir)
        return ghdl_sim_version(), "GHDL simulation of the VHDL"
    step(f"front-end check: simulating the Verilog source, {cycles} cycles (icarus)")
    write_text_atomic(workdir / "tb_source.v", verilog_testbench(ports, top, cycles, spec.chparams, STIM,
                                                                 SOURCE_OUT))
    incs = list(dict.fromkeys(Path(s).resolve().parent for s in spec.sources))
    _icarus([*spec.sources, workdir / "tb_source.v"], workdir, "source", "source",
            defines=dict(spec.defines), include_dirs=incs)
    return net_sim, "Icarus simulation of the Verilog"


# ------------------------------------------------------------------------------------ the build's glue

#: the work folder of the check in a build folder
BUILD_DIR = "frontcheck"


def vhdl_context(entity) -> tuple[str, ...]:
    """The ``library``/``use``/``context`` statements of the file declaring ``entity`` (a
    :class:`dcsflow.flow.vhdl.Entity`) before its declaration, as written (one statement per item)."""
    from .vhdl import read_source, tokenize

    text = read_source(entity.path)
    toks, _ = tokenize(text)
    out: list[str] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.line >= entity.line and t.low == "entity":
            break
        if t.low in ("library", "use", "context") and (i == 0 or toks[i - 1].text == ";"):
            j = i
            while j < len(toks) and toks[j].text != ";":
                j += 1
            if j < len(toks):
                stmt = " ".join(x.text for x in toks[i:j]) + ";"
                if not (t.low == "context" and j - i > 1 and toks[i + 1].text == "is"):
                    out.append(stmt.replace(" . ", "."))
            i = j + 1
            continue
        i += 1
    return tuple(dict.fromkeys(out))


def spec_for_build(ctx) -> CheckSpec:
    """The :class:`CheckSpec` of a build (:class:`dcsflow.flow.stages.Context`)."""
    d = ctx.design
    language = d.language
    if language != "vhdl" or ctx.vhdl is None:
        return CheckSpec(language=language, sources=tuple(d.sources), top=ctx.top or "", chparams=dict(d.chparams))
    vt = ctx.vhdl
    ent = next((e for e in reversed(vt.entities) if e.name.lower() == vt.top.lower()), None)
    return CheckSpec(language="vhdl", sources=tuple(d.sources), top=vt.top, chparams=dict(d.chparams),
                     ghdl_dir=ctx.out / "frontend" / "ghdl",
                     ghdl_options=tuple(getattr(ctx.options, "ghdl_options", ()) or ()),
                     vhdl_ports=tuple(ent.ports) if ent else (), vhdl_context=vhdl_context(ent) if ent else ())


def submit_for_build(ctx, front):
    """Start the front-end check of a build as a job of the build's job runner (``ctx.jobs``), so
    that it runs beside the rest of the build (the frontend stage starts it once the TLUT build's
    front end is extracted); the ``verify`` stage collects it (:func:`run_for_build`
    with the returned future). None when the check is off or no runner is there. The work folder
    ``frontcheck/`` of an earlier run is removed first.

    Raises:
        FrontCheckError: ``frontend_cycles`` < 1.
    """
    opts = ctx.options
    if ctx.jobs is None or not getattr(opts, "frontend_check", True):
        return None
    cycles = _cycles(opts)
    shutil.rmtree(ctx.out / BUILD_DIR, ignore_errors=True)
    return ctx.jobs.submit("front-end check", check_frontend, spec_for_build(ctx), ctx.out / "frontend" / "pre.json",
                           front.top, list(front.params), ctx.out / BUILD_DIR, cycles=cycles, under="verify",
                           priority=4)


def _cycles(opts) -> int:
    cycles = int(getattr(opts, "frontend_cycles", DEFAULT_CYCLES))
    if cycles < 1:
        raise FrontCheckError(f"frontend_cycles {cycles}: the front-end check needs at least 1 cycle")
    return cycles


def run_for_build(ctx, front, started=None) -> dict:
    """The ``verify`` stage's front-end check of a build: report.json's ``verify.frontend_check``.

    Off with ``BuildOptions.frontend_check`` False (``{"passed": null, "skipped": "--no-frontend-check"}``);
    cycles from ``BuildOptions.frontend_cycles``. A skipped check prints one note on stderr. The work
    folder ``frontcheck/`` of an earlier run is removed first. ``started``: the future of
    :func:`submit_for_build` when the check already runs (its result is taken).

    Raises:
        FrontCheckError: as :func:`check_frontend`; ``frontend_cycles`` < 1.
    """
    import sys

    opts = ctx.options
    if started is not None:
        res = started.result()
    else:
        shutil.rmtree(ctx.out / BUILD_DIR, ignore_errors=True)     # an earlier run's files
        if not getattr(opts, "frontend_check", True):
            return FrontCheckResult(passed=None, skipped="--no-frontend-check").as_dict()
        res = check_frontend(spec_for_build(ctx), ctx.out / "frontend" / "pre.json", front.top, list(front.params),
                             ctx.out / BUILD_DIR, cycles=_cycles(opts), step=ctx.step)
    if res.skipped:
        print(f"note: front-end check skipped: {res.skipped}", file=sys.stderr)
    return res.as_dict()


def summary_line(report: dict) -> str:
    """One line on the front-end check of a build's report.json (at most 80 columns for the usual
    simulator names), e.g. ``front-end check: passed, 2000 cycles, ghdl 2.0.0, 4 bits uncompared``
    (uncompared: undefined in the source's simulation); '' when the report has none."""
    c = (report.get("verify") or {}).get("frontend_check")
    if not c:
        return ""
    if c.get("skipped"):
        return f"front-end check: skipped ({c['skipped']})"
    if c.get("passed") is not True:
        return "front-end check: NOT passed"
    line = f"front-end check: passed, {c['cycles']} cycles, {c['simulator']}"
    if c.get("uncompared_bits"):
        line += f", {c['uncompared_bits']} bits uncompared"
    return line
