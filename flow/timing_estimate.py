"""A timing estimate of a placed implementation — an estimate, labelled as one, not a timing analysis.

The longest register-to-register path of a placed netlist (Yosys JSON of Xilinx primitives, the
built-in back end's placement) under a simple delay model, read from ``backend/xc7_delays.json``
(format ``dcsflow-delays`` v1, docs/formats.md):

- cell arcs from Project X-Ray's timing database of a -1 part as Yosys's ``cells_sim.v`` quotes it:
  each LUT input pin to its output, MUXF7/MUXF8, every CARRY4 arc, flip-flop clock to Q and setup,
  distributed RAM and block RAM clock to out and setup;
- a net delay per placed Manhattan distance: nothing inside a slice or along the carry chain, else
  a fixed cost for leaving the slice plus a cost per slice of distance between the two slices (an
  assumed model, the estimate's least certain part; the data file says so).

Paths from input ports start at 0 ns at the port's buffer and paths to output ports end there
with no setup (as ``set_input_delay 0`` / ``set_output_delay 0`` would have them; pad and buffer
delays left out), so that logic between a port and a register counts too. Not timed: paths through
DSP48E1 (the source gives no delays for it); clock skew and routing congestion are not modelled. :func:`estimate` returns the period, the LUT levels of the critical path and its
cells; :func:`estimate_build` does it for both implementations of a build folder.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict, deque
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from .errors import FlowError

#: the delay model's data file (format dcsflow-delays v1)
DELAYS_FILE = Path(__file__).resolve().parent / "backend" / "xc7_delays.json"
DELAYS_FORMAT, DELAYS_VERSION = "dcsflow-delays", 1

_FF = re.compile(r"^FD[RSCP]E(_1)?$")
_LUT = re.compile(r"^LUT[1-6]$")
_LUTRAM = re.compile(r"^(RAM\d+X1[SD]|RAM\d+M|SRL16E?|SRLC16E?|SRLC32E)$")
_BRAM = re.compile(r"^RAMB(18|36)E1$")
#: input pins of a distributed RAM / shift register whose value reaches the output combinationally
_READ_PIN = re.compile(r"^(A\d?|DPRA\d?|ADDR[A-D])$")
#: clock pins: no path ends or starts there
_CLOCK_PIN = re.compile(r"^(C|CLK|WCLK|CLKARDCLK|CLKBWRCLK|REGCLK.*)$")
_SITE = re.compile(r"^SLICE_X(\d+)Y(\d+)")


class TimingEstimateError(FlowError):
    """The delay model's data file cannot be read."""


@lru_cache(maxsize=1)
def load_delays() -> dict:
    """The delay model (``backend/xc7_delays.json``). Raises TimingEstimateError (one line)."""
    try:
        d = json.loads(DELAYS_FILE.read_text(encoding="utf-8"))
        if d.get("format") != DELAYS_FORMAT or d.get("version") != DELAYS_VERSION:
            raise ValueError(f"not {DELAYS_FORMAT} v{DELAYS_VERSION}")
        for k in ("lut", "muxf7", "muxf8", "carry4", "ff", "lutram", "bram", "net"):
            if not isinstance(d.get(k), dict):
                raise ValueError(f"no {k!r} table")
        return d
    except (OSError, ValueError) as e:
        raise TimingEstimateError(f"{DELAYS_FILE}: unreadable delay model ({e})") from None


@dataclass
class PathStep:
    """One step of the critical path: a cell's arc or the net into it.

    Attributes:
        cell: cell name; type: its primitive; site: ``SLICE_X..Y../BEL`` or "" when unplaced;
        what: ``clock to Q``, ``I3 -> O``, ``net, 12 slices``, ``setup D``; incr_ns, at_ns: the
        step's delay and the arrival time after it (ns).
    """

    cell: str
    type: str
    site: str
    what: str
    incr_ns: float
    at_ns: float


@dataclass
class TimingEstimate:
    """The estimate of one implementation (:func:`estimate`).

    Attributes:
        period_ns: the longest register-to-register path, clock to Q and setup included (ns);
        fmax_mhz: 1000 / period_ns; lut_levels: LUTs on that path; path: its steps;
        endpoints: register inputs timed; untimed: reason -> count of what is left out;
        placed: True when every cell of the path (port buffers aside) had a placed site.
    """

    period_ns: float
    fmax_mhz: float
    lut_levels: int
    path: list = field(default_factory=list)
    endpoints: int = 0
    untimed: dict = field(default_factory=dict)
    placed: bool = True

    def as_dict(self) -> dict:
        """Plain dict (JSON)."""
        return asdict(self)


def _sites(placement: dict | None) -> dict[str, str]:
    cells = (placement or {}).get("cells")
    return {str(k): str(v) for k, v in cells.items()} if isinstance(cells, dict) else {}


def _xy(site: str) -> tuple[int, int] | None:
    m = _SITE.match(site or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def _net_ps(d: dict, drv: tuple, sink: tuple, sites: dict) -> tuple[int, str]:
    """Delay and label of the net from output ``drv`` (cell, type, port) to input ``sink``."""
    a, b = sites.get(drv[0], ""), sites.get(sink[0], "")
    pa, pb = _xy(a), _xy(b)
    if drv[1] == "CARRY4" and drv[2] == "CO" and sink[1] == "CARRY4" and sink[2] == "CI":
        return 0, "carry chain"
    if pa is not None and pa == pb:
        return 0, "inside the slice"
    n = d["net"]
    if pa is None or pb is None:
        return n["leave_slice"], "net (unplaced end)"
    dist = abs(pa[0] - pb[0]) + abs(pa[1] - pb[1])
    return n["leave_slice"] + n["per_slice_step"] * dist, f"net, {dist} slice{'' if dist == 1 else 's'} apart"


def _arc_ps(d: dict, ctype: str, inp: str, i: int, out: str, o: int) -> int | None:
    """The delay from input pin (``inp``, bit ``i``) to output pin (``out``, bit ``o``) of a
    combinational cell, or None when there is no such arc."""
    if _LUT.match(ctype) and inp.startswith("I"):
        return d["lut"][ctype][int(inp[1:])]
    if ctype == "INV":
        return d["lut"]["LUT1"][0]
    if ctype in ("MUXF7", "MUXF8"):
        return d[ctype.lower()].get(inp)
    if ctype == "CARRY4":
        key = f"{inp}{'' if inp in ('CI', 'CYINIT') else i}>{out}{o}"
        return d["carry4"].get(key)
    if _LUTRAM.match(ctype) and _READ_PIN.match(inp):
        return d["lutram"]["read"]
    return None


def _kind(ctype: str) -> str:
    """``comb``, ``ff``, ``lutram`` (a start, an end and a read arc), ``bram``, ``io``, or ``untimed``."""
    if _LUT.match(ctype) or ctype in ("INV", "MUXF7", "MUXF8", "CARRY4"):
        return "comb"
    if _FF.match(ctype):
        return "ff"
    if _LUTRAM.match(ctype):
        return "lutram"
    if _BRAM.match(ctype):
        return "bram"
    if ctype in ("IBUF", "OBUF", "IOBUF", "OBUFT", "BUFG", "BUFGCTRL", "IBUFG"):
        return "io"
    return "untimed"


class _Graph:
    """The netlist as drivers and sinks of each net bit."""

    def __init__(self, module: dict):
        self.cells = module.get("cells") or {}
        self.driver: dict = {}                  # bit -> (cell, port, index)
        self.sinks: dict = defaultdict(list)    # bit -> [(cell, port, index)]
        for name, c in self.cells.items():
            dirs = c.get("port_directions") or {}
            for port, bits in (c.get("connections") or {}).items():
                for i, bit in enumerate(bits):
                    if not isinstance(bit, int):
                        continue                # a constant
                    if dirs.get(port) == "output":
                        self.driver[bit] = (name, port, i)
                    else:
                        self.sinks[bit].append((name, port, i))

    def type(self, cell: str) -> str:
        return str(self.cells[cell].get("type", ""))

    def order(self) -> tuple[list[str], int]:
        """Combinational cells in topological order, and how many sit on a loop (left out)."""
        comb = [n for n, c in self.cells.items() if _kind(str(c.get("type", ""))) in ("comb", "lutram")]
        deps = {n: 0 for n in comb}
        users = defaultdict(list)
        for n in comb:
            for port, bits in (self.cells[n].get("connections") or {}).items():
                if (self.cells[n].get("port_directions") or {}).get(port) == "output":
                    continue
                for bit in bits:
                    drv = self.driver.get(bit) if isinstance(bit, int) else None
                    if drv and drv[0] in deps:
                        deps[n] += 1
                        users[drv[0]].append(n)
        ready = deque(n for n, k in deps.items() if k == 0)
        out = []
        while ready:
            n = ready.popleft()
            out.append(n)
            for u in users[n]:
                deps[u] -= 1
                if deps[u] == 0:
                    ready.append(u)
        return out, len(comb) - len(out)


def _start(g: _Graph, d: dict, bit: int):
    """Arrival record of ``bit`` when a register drives it (clock to out), else None."""
    cell, port, _ = g.driver[bit]
    t, k = g.type(cell), _kind(g.type(cell))
    if k == "ff" and port == "Q":
        return (d["ff"]["clk_to_q"], None, cell, "clock to Q", d["ff"]["clk_to_q"], 0, "")
    if k in ("lutram", "bram"):
        ps = d[k]["clk_to_out"]
        return (ps, None, cell, f"clock to {port}", ps, 0, "")
    if t in ("IBUF", "IBUFG") and port == "O":
        return (0, None, cell, "input port", 0, 0, "")
    return None


def _propagate(g: _Graph, d: dict, sites: dict, cell: str, arr: dict) -> None:
    """Arrival times of ``cell``'s outputs from those of its inputs (the latest input wins)."""
    c, ctype = g.cells[cell], g.type(cell)
    conns, dirs = c.get("connections") or {}, c.get("port_directions") or {}
    for out, obits in conns.items():
        if dirs.get(out) != "output":
            continue
        for o, obit in enumerate(obits):
            if not isinstance(obit, int):
                continue
            best = arr.get(obit)                # a distributed RAM's clock to out
            for inp, ibits in conns.items():
                if dirs.get(inp) == "output" or _CLOCK_PIN.match(inp):
                    continue
                for i, ibit in enumerate(ibits):
                    arc = _arc_ps(d, ctype, inp, i, out, o) if isinstance(ibit, int) else None
                    if arc is None:
                        continue
                    a = arr.get(ibit)
                    if a is None:            # fed by an input port or an untimed cell
                        continue
                    drv = g.driver[ibit]
                    net, label = _net_ps(d, (drv[0], g.type(drv[0]), drv[1]), (cell, ctype, inp), sites)
                    t = a[0] + net + arc
                    if best is None or t > best[0]:
                        best = (t, ibit, cell, f"{inp}{'' if len(ibits) == 1 else f'[{i}]'} -> {out}"
                                f"{'' if len(obits) == 1 else f'[{o}]'}", arc, net, label)
            if best is not None:
                arr[obit] = best


def _setup_ps(d: dict, ctype: str, port: str) -> int | None:
    """Setup time of an input pin of a register (None: the pin ends no path)."""
    k = _kind(ctype)
    if _CLOCK_PIN.match(port):
        return None
    if ctype in ("OBUF", "OBUFT") and port == "I":
        return 0
    if k == "ff":
        return d["ff"]["setup"].get(port, 0)
    if k == "bram":
        return d["bram"]["setup"]
    if k == "lutram" and not _READ_PIN.match(port):
        return d["lutram"]["setup"]
    return None


def _trace(g: _Graph, arr: dict, sites: dict, end: tuple) -> list[PathStep]:
    """The steps of the path that ends at ``end`` = (total, bit, sink cell, port, net, label, setup)."""
    total, bit, sink, port, net, label, setup = end
    rev = [(sink, f"setup {port}", setup), (sink, label, net)]
    while bit is not None:
        ps, prev, cell, what, arc, net_in, net_label = arr[bit]
        rev.append((cell, what, arc))
        if prev is not None:
            rev.append((cell, net_label, net_in))
        bit = prev
    steps, at = [], 0
    for cell, what, ps in reversed(rev):
        at += ps
        steps.append(PathStep(cell, g.type(cell), sites.get(cell, ""), what, round(ps / 1000, 3), round(at / 1000, 3)))
    return steps


def estimate(module: dict, placement: dict | None, delays: dict | None = None) -> TimingEstimate | None:
    """The timing estimate of one placed implementation (module docstring).

    Args:
        module: the netlist, a Yosys JSON module of Xilinx primitives.
        placement: ``placement.json`` of the built-in back end (``cells``: cell -> ``SITE/BEL``), or
            None (every net then costs a slice exit, and the estimate says it is unplaced).
        delays: the delay model (default :func:`load_delays`).
    Returns:
        :class:`TimingEstimate`, or None when the netlist has no register-to-register path.
    Raises:
        TimingEstimateError: the delay model cannot be read.
    """
    d = delays or load_delays()
    g, sites = _Graph(module), _sites(placement)
    arr, untimed = {}, {}
    for bit in g.driver:
        rec = _start(g, d, bit)
        if rec is not None:
            arr[bit] = rec
    order, loops = g.order()
    if loops:
        untimed["combinational cells on a loop"] = loops
    for cell in order:
        _propagate(g, d, sites, cell, arr)
    best, endpoints = None, 0
    for bit, sinks in g.sinks.items():
        for cell, port, _ in sinks:
            setup = _setup_ps(d, g.type(cell), port)
            if setup is None:
                continue
            if bit not in arr:
                key = "register inputs with no timed path into them"
                untimed[key] = untimed.get(key, 0) + 1
                continue
            endpoints += 1
            drv = g.driver[bit]
            net, label = _net_ps(d, (drv[0], g.type(drv[0]), drv[1]), (cell, g.type(cell), port), sites)
            total = arr[bit][0] + net + setup
            if best is None or total > best[0]:
                best = (total, bit, cell, port, net, label, setup)
    dsp = sum(1 for c in g.cells.values() if str(c.get("type", "")).startswith("DSP48"))
    if dsp:
        untimed["DSP48E1 cells (no delays in the source)"] = dsp
    if best is None:
        return None
    path = _trace(g, arr, sites, best)
    levels = sum(1 for s in path if (_LUT.match(s.type) or s.type == "INV" or _LUTRAM.match(s.type))
                 and "->" in s.what)
    period = best[0] / 1000
    return TimingEstimate(round(period, 3), round(1000 / period, 1), levels, path, endpoints, untimed,
                          all(s.site for s in path if _kind(s.type) != "io"))


def _module(path: Path) -> dict | None:
    """The one module of a Yosys JSON netlist file, or None when it is missing or unreadable."""
    from dcsflow.fileio import JSON_LIMIT, load_json_file

    try:
        mods = load_json_file(path, JSON_LIMIT).get("modules") or {}
    except (OSError, ValueError, AttributeError, RecursionError, UnicodeDecodeError):
        return None
    return next(iter(mods.values()), None) if len(mods) == 1 else None


def estimate_build(build_dir, report: dict, tlut_placement: dict | None = None) -> dict:
    """:func:`estimate` for both implementations of a build folder: ``{"tlut": TimingEstimate or
    None, "conventional": ..., "missing": {impl: why}}``. The TLUT implementation is
    ``template.json`` placed by ``tlut/placement.json``; the conventional one is the chosen
    candidate's netlist (``baselines/<name>/netlist.json``) placed by ``conv/placement.json``.

    Raises:
        TimingEstimateError: the delay model cannot be read.
    """
    from dcsflow.fileio import JSON_LIMIT, load_json_file

    b = Path(build_dir)
    chosen = str((report.get("conventional") or {}).get("baseline") or "yosys-abc")
    sources = {"tlut": (b / "template.json", b / "tlut" / "placement.json"),
               "conventional": (b / "baselines" / chosen / "netlist.json", b / "conv" / "placement.json")}
    out: dict = {"missing": {}}
    for impl, (net, pl) in sources.items():
        module = _module(net)
        if module is None:
            out[impl] = None
            out["missing"][impl] = f"no netlist ({net.relative_to(b)})"
            continue
        placement = tlut_placement if impl == "tlut" and tlut_placement is not None else None
        if placement is None:
            try:
                placement = load_json_file(pl, JSON_LIMIT)
            except (OSError, ValueError, RecursionError, UnicodeDecodeError):
                placement = None
        out[impl] = estimate(module, placement if isinstance(placement, dict) else None)
        if out[impl] is None:
            out["missing"][impl] = "no path between registers or ports"
    return out
