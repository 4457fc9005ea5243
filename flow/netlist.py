"""Netlists of Xilinx 7-series primitives in Yosys JSON form: statistics and a Verilog writer.

A module dict is one entry of a Yosys JSON document's ``modules`` (``ports``, ``cells``, ``netnames``;
net bits are integers, constants the strings "0", "1", "x", "z").
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, asdict

LUT_TYPES = {"LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "INV", "LUT6_2"}
FF_TYPES = {"FDRE", "FDSE", "FDCE", "FDPE", "FDRE_1", "FDSE_1", "FDCE_1", "FDPE_1", "LDCE", "LDPE"}
SRL_TYPES = {"SRL16E", "SRLC16E", "SRLC32E"}
#: cells through which combinational paths run when counting LUT depth (weight 0)
PASS_TYPES = {"CARRY4", "MUXF7", "MUXF8", "MUXCY", "XORCY", "BUFG"}


@dataclass
class NetlistStats:
    """Resource counts of a mapped netlist.

    luts: LUT1..LUT6 (+ INV, a LUT1); tluts: those with attribute ``dcs_tlut``; ffs: FD*/LD*;
    carry4, muxf7, muxf8, srls, brams (RAMB*), dsps (DSP48*); depth: :func:`lut_depth` (LUT levels
    between registers/ports; CARRY4 and MUXF7/F8 pass through with weight 0; a distributed RAM or
    SRL read counts one level).
    """

    luts: int
    tluts: int
    ffs: int
    carry4: int
    muxf7: int
    muxf8: int
    srls: int
    brams: int
    dsps: int
    depth: int
    cells: dict

    def as_dict(self) -> dict:
        """Plain dict (for report.json)."""
        return asdict(self)


def is_tlut(cell: dict) -> bool:
    """True for a TLUT cell (attribute ``dcs_tlut``)."""
    return "dcs_tlut" in cell.get("attributes", {})


def is_pbit(cell: dict) -> bool:
    """True for a parameter-bit flip-flop of a ``cfglut5`` build (attribute ``dcs_pbit``): an FDRE
    holding one PPC output, loaded by the CFGLUT5 chains (:func:`dcsflow.flow.cfglut.param_bit_registers`)."""
    return "dcs_pbit" in cell.get("attributes", {})


def tlut_entries(module: dict) -> dict[str, list[int]]:
    """TLUT cell name -> PPC output index of each INIT bit (the ``dcs_ppc`` attribute, bit 0 first);
    a parameter-bit flip-flop (:func:`is_pbit`) has one entry, its INIT."""
    return {cn: [int(x) for x in str(c["attributes"]["dcs_ppc"]).strip().rstrip(",").split(",")]
            for cn, c in module["cells"].items() if is_tlut(c) or is_pbit(c)}


def stats(module: dict) -> NetlistStats:
    """Count resources and LUT depth of a module dict."""
    cells = module["cells"]
    cnt = Counter(c["type"] for c in cells.values())
    luts = sum(v for t, v in cnt.items() if t in LUT_TYPES)
    tluts = sum(1 for c in cells.values() if c["type"] in LUT_TYPES and is_tlut(c))
    return NetlistStats(
        luts=luts, tluts=tluts, ffs=sum(v for t, v in cnt.items() if t in FF_TYPES),
        carry4=cnt.get("CARRY4", 0), muxf7=cnt.get("MUXF7", 0), muxf8=cnt.get("MUXF8", 0),
        srls=sum(v for t, v in cnt.items() if t in SRL_TYPES),
        brams=sum(v for t, v in cnt.items() if t.startswith("RAMB")),
        dsps=sum(v for t, v in cnt.items() if t.startswith("DSP48")),
        depth=lut_depth(module), cells=dict(sorted(cnt.items())))


def _read_paths() -> dict[str, dict[str, tuple[str, ...]]]:
    a6 = tuple(f"A{i}" for i in range(6))
    a5 = a6[:5]
    d6 = tuple(f"DPRA{i}" for i in range(6))
    quad = {f"DO{x}": (f"ADDR{x}",) for x in "ABCD"}
    return {"RAM64M": quad, "RAM32M": quad,
            "RAM64X1D": {"SPO": a6, "DPO": d6}, "RAM32X1D": {"SPO": a5, "DPO": d6[:5]},
            "RAM128X1D": {"SPO": ("A",), "DPO": ("DPRA",)},
            "RAM64X1S": {"O": a6}, "RAM32X1S": {"O": a5}, "RAM128X1S": {"O": (*a6, "A6")},
            "SRL16E": {"Q": a6[:4]}, "SRLC16E": {"Q": a6[:4]}, "SRLC32E": {"Q": ("A",)}}


#: asynchronous read paths of distributed RAM and SRL primitives: type -> {output port: the address
#: ports it reads through}. A LUT RAM read (or an SRL's addressed tap) is the LUT's combinational path
#: (UG474, "Distributed RAM": "the read operation is asynchronous"; its delay is the LUT's T_ILO), so
#: it counts as one LUT level; data, write-enable and clock pins are synchronous and cut the path.
READ_PATHS = _read_paths()


class _TimingGraph:
    """The LUT-level timing graph of a module dict (see :func:`lut_depth`): nodes are combinational
    cells (names) and RAM/SRL read outputs ``(cell, port)``; ``preds[x]`` the nodes driving ``x``'s
    path pins; ``weight[x]`` its levels (1 or 0); ``ends`` the nodes whose value is read (a RAM/SRL
    output nothing reads ends no path)."""

    def __init__(self, module: dict):
        cells = module["cells"]
        driver: dict[int, object] = {}            # net bit -> node or cell name
        for n, c in cells.items():
            dirs = c.get("port_directions", {})
            ram = READ_PATHS.get(c["type"])
            for p, bits in c["connections"].items():
                if dirs.get(p) == "output":
                    for b in bits:
                        if isinstance(b, int):
                            driver[b] = (n, p) if ram is not None else n

        def node_ok(x) -> bool:
            if isinstance(x, tuple):
                return x[1] in READ_PATHS[cells[x[0]]["type"]]
            t = cells[x]["type"]
            return (t in LUT_TYPES or t in PASS_TYPES) and t != "BUFG"

        nodes = [x for x in dict.fromkeys(driver.values()) if node_ok(x)]
        self.preds: dict[object, list] = {}
        self.weight: dict[object, int] = {}
        for x in nodes:
            if isinstance(x, tuple):
                c = cells[x[0]]
                bits = [b for p in READ_PATHS[c["type"]][x[1]] for b in c["connections"].get(p, [])]
            else:
                c = cells[x]
                dirs = c.get("port_directions", {})
                bits = [b for p, bs in c["connections"].items() if dirs.get(p) != "output" for b in bs]
            ps = [driver[b] for b in bits if isinstance(b, int) and b in driver]
            self.preds[x] = [m for m in ps if node_ok(m)]
            self.weight[x] = 1 if isinstance(x, tuple) or cells[x]["type"] in LUT_TYPES else 0
        read = {b for c in cells.values() for p, bs in c["connections"].items()
                if c.get("port_directions", {}).get(p) != "output" for b in bs if isinstance(b, int)}
        read.update(b for p in module.get("ports", {}).values() if p.get("direction") != "input"
                    for b in p.get("bits", []) if isinstance(b, int))
        used = {x for b, x in driver.items() if isinstance(x, tuple) and b in read}
        self.ends = [x for x in nodes if not isinstance(x, tuple) or x in used]
        self.order = self._topo(nodes)

    def _topo(self, nodes: list) -> list:
        """Nodes in topological order (iterative post-order DFS; a back edge of a loop is ignored)."""
        done: set = set()
        visiting: set = set()
        order = []
        for root in nodes:
            if root in done:
                continue
            stack = [(root, False)]
            while stack:
                n, expanded = stack.pop()
                if n in done:
                    continue
                if not expanded:
                    if n in visiting:
                        continue
                    visiting.add(n)
                    stack.append((n, True))
                    stack.extend((m, False) for m in self.preds[n] if m not in done and m not in visiting)
                else:
                    visiting.discard(n)
                    done.add(n)
                    order.append(n)
        return order

    def arrival(self) -> dict:
        """Node -> LUT levels of the longest path ending at its output (its own level included)."""
        pos = {x: i for i, x in enumerate(self.order)}
        arr: dict = {}
        for x in self.order:
            arr[x] = self.weight[x] + max((arr[m] for m in self.preds[x] if pos[m] < pos[x]), default=0)
        return arr


def lut_depth(module: dict) -> int:
    """Largest number of LUT levels on a combinational path between registers and ports.

    A LUT counts one level; CARRY4 and MUXF7/MUXF8 pass with weight 0; a distributed RAM or SRL
    output counts one level behind the address pins it is read through (:data:`READ_PATHS`), and
    its other pins end paths (an output nothing reads ends none); registers, ports and other cells
    cut paths. A combinational loop's back edge counts 0.
    """
    g = _TimingGraph(module)
    arr = g.arrival()
    return max((arr[x] for x in g.ends), default=0)


def cell_levels(module: dict) -> dict[str, tuple[int, int]]:
    """Combinational cell name -> (LUT levels of the longest path ending at its output, its own
    included; LUT levels of the longest path after its output), counted as :func:`lut_depth`."""
    g = _TimingGraph(module)
    arr = g.arrival()
    pos = {x: i for i, x in enumerate(g.order)}
    down: dict = {x: 0 for x in g.order}          # levels after the node's output
    ends = set(g.ends)
    for x in reversed(g.order):
        if x not in ends and not down[x]:         # an unread RAM/SRL output ends no path
            continue
        for m in g.preds[x]:
            if pos[m] < pos[x]:
                down[m] = max(down[m], down[x] + g.weight[x])
    return {x: (arr[x], down[x]) for x in g.order if not isinstance(x, tuple)}


def path_levels(module: dict) -> dict[str, int]:
    """Combinational cell name -> LUT levels of the longest path through it (registers/ports to
    registers/ports, :func:`cell_levels` summed; its maximum is the module's LUT depth). A cell is
    on a critical path when its figure equals :func:`lut_depth`."""
    return {x: a + d for x, (a, d) in cell_levels(module).items()}


# ---------------------------------------------------------------------------------------------
# Verilog writer

_ID_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


#: reserved keywords of IEEE 1364-2005 (Annex B) and IEEE 1800-2012 (Annex B, SystemVerilog): a net
#: or port of that name (e.g. a VHDL port ``table``) is written as an escaped identifier
VERILOG_KEYWORDS = frozenset("""
always and assign automatic begin buf bufif0 bufif1 case casex casez cell cmos config deassign default defparam
design disable edge else end endcase endconfig endfunction endgenerate endmodule endprimitive endspecify endtable
endtask event for force forever fork function generate genvar highz0 highz1 if ifnone incdir include initial inout
input instance integer join large liblist library localparam macromodule medium module nand negedge nmos nor
noshowcancelled not notif0 notif1 or output parameter pmos posedge primitive pull0 pull1 pulldown pullup
pulsestyle_ondetect pulsestyle_onevent rcmos real realtime reg release repeat rnmos rpmos rtran rtranif0 rtranif1
scalared showcancelled signed small specify specparam strong0 strong1 supply0 supply1 table task time tran
tranif0 tranif1 tri tri0 tri1 triand trior trireg unsigned use uwire vectored wait wand weak0 weak1 while wire
wor xnor xor
accept_on alias always_comb always_ff always_latch assert assume before bind bins binsof bit break byte chandle
checker class clocking const constraint context continue cover covergroup coverpoint cross dist do endchecker
endclass endclocking endgroup endinterface endpackage endprogram endproperty endsequence enum eventually expect
export extends extern final first_match foreach forkjoin global iff ignore_bins illegal_bins implements implies
import inside int interconnect interface intersect join_any join_none let local logic longint matches modport
nettype new nexttime null package packed priority program property protected pure rand randc randcase
randsequence ref reject_on restrict return s_always s_eventually s_nexttime s_until s_until_with sequence
shortint shortreal soft solve static string strong struct super sync_accept_on sync_reject_on tagged this
throughout timeprecision timeunit type typedef union unique unique0 until until_with untyped var virtual void
wait_order weak wildcard with within
""".split())


def _id(name: str) -> str:
    return name if _ID_RE.match(name) and name not in VERILOG_KEYWORDS else "\\" + name + " "


def _param_value(v) -> str:
    if isinstance(v, int):
        return str(v)
    s = str(v)
    if s and set(s) <= set("01xz"):
        return f"{len(s)}'b{s}"
    return '"' + s.rstrip(" ").replace("\\", "\\\\").replace('"', '\\"') + '"'


def parameter_lines(module: dict) -> list[str]:
    """``parameter`` declarations of the RTL's parameters (``parameter_default_values``), kept unused in a
    written netlist so that a test bench instantiating the RTL with parameters fits it."""
    return [f"  parameter {_id(pn)} = {_param_value(v) if not (isinstance(v, str) and set(v) <= set('01')) else int(v, 2)};"
            for pn, v in module.get("parameter_default_values", {}).items()]


def port_lines(module: dict) -> list[str]:
    """Verilog-2001 port declarations (``input [w-1:0] name;``) of a module dict's ports, in order."""
    out = []
    for pn, p in module["ports"].items():
        w = len(p["bits"])
        rng = f"[{w - 1}:0] " if w > 1 else ""
        out.append(f"  {p['direction']} {rng}{_id(pn)};")
    return out


def verilog_id(name: str) -> str:
    """``name`` as a Verilog identifier (escaped when it is not a simple one or is a keyword)."""
    return _id(name)


#: extra ports of a netlist written with CFGLUT5 chains (:func:`write_verilog` ``cfglut_chains``)
CFG_CLK, CFG_CE, CFG_CDI = "dcs_cfg_clk", "dcs_cfg_ce", "dcs_cfg_cdi"


def write_verilog(module: dict, name: str, init_override: dict[str, int] | None = None,
                  cfglut_chains: list[list[str]] | None = None, cfglut_registers: dict | None = None) -> str:
    """Structural Verilog of a flat module of primitives (simulates with Yosys's cells_sim.v).

    Args:
        module: Yosys JSON module dict.
        name: Verilog module name.
        init_override: cell name -> INIT value (int) replacing the cell's INIT (specialized TLUTs).
        cfglut_chains: write these TLUT cells (LUT1..LUT5, chains of cell names as in
            :mod:`dcsflow.scg.cfglut`) as CFGLUT5 (UG953) with INIT 0, their unused inputs tied
            to 0, O6 the LUT's output; the module gets the ports :data:`CFG_CLK`, :data:`CFG_CE`
            and :data:`CFG_CDI` ``[chains-1:0]``: ``CFG_CDI[c]`` feeds chain c's first CDI, each
            CDO the next CDI. A register whose INIT is undefined (``x``) then starts at 0, as it
            does in the device (UG470: the start-up's global set/reset loads every register's INIT,
            0 unless given): Yosys's CFGLUT5 model reads its truth table by index, so an unknown
            input makes its output unknown where a LUTk model gives the value both entries agree on,
            and registers that only start unknown in simulation would spread it.
        cfglut_registers: chain elements of ``cfglut_chains`` that are parameter-bit registers:
            name -> member cells (parameter-bit FDREs, :func:`is_pbit`), written as a shift register
            on ``CFG_CLK``/``CFG_CE``: member 0's D the element's CDI, member b's D member b-1's Q,
            the element's CDO the last member's Q (:mod:`dcsflow.scg.cfglut`).
    Raises:
        ValueError: a chained cell that is not a LUT of at most 5 inputs.
    """
    init_override = init_override or {}
    chained, pbits = _chain_positions(cfglut_chains, cfglut_registers or {})
    used = _used_nets(module)
    ports = module["ports"]
    extra = [CFG_CLK, CFG_CE, CFG_CDI] if cfglut_chains is not None else []
    out = ["// dcsflow netlist of Xilinx 7-series primitives (simulate with Yosys xilinx/cells_sim.v)",
           f"module {_id(name)} ({', '.join([*(_id(p) for p in ports), *extra])});"]
    out += parameter_lines(module) + port_lines(module)
    if extra:
        nch = len(cfglut_chains)
        out.append(f"  input {CFG_CLK};\n  input {CFG_CE};\n  input {f'[{nch - 1}:0] ' if nch > 1 else ''}{CFG_CDI};")
    for b in sorted(used):
        out.append(f"  wire n{b};")
    # every chain element's CDO before any cell: an element may come before the one it reads
    out += [f"  wire dcs_cdo_{c}_{j};" for c, chain in enumerate(cfglut_chains or ()) for j in range(len(chain))]
    out += _port_assigns(ports)
    for cn, c in module["cells"].items():
        if cn in chained:
            out.append(_cfglut5(cn, c, chained[cn], cfglut_chains, _vec))
        elif cn in pbits:
            out.append(_pbit_ff(cn, c, pbits[cn], module["cells"], cfglut_chains, _vec))
        else:
            out.append(_cell_line(cn, c, bool(chained), init_override))
    out.append("endmodule")
    return "\n".join(out) + "\n"


def _chain_positions(chains: list[list[str]] | None, regs: dict) -> tuple[dict, dict]:
    """Where each chain element of :func:`write_verilog`'s ``cfglut_chains`` sits: TLUT cell name ->
    (chain, index), and parameter-bit FDRE name -> (chain, index, member, the register's members)
    for the elements that are registers (``regs``, ``cfglut_registers``)."""
    chained = {}
    pbits = {}
    for c, chain in enumerate(chains or ()):
        for j, cn in enumerate(chain):
            if cn in regs:
                for b, m in enumerate(regs[cn]):
                    pbits[m] = (c, j, b, regs[cn])
            else:
                chained[cn] = (c, j)
    return chained, pbits


def _net(b) -> str:
    """A Yosys JSON bit as a Verilog net: wire ``n<bit>`` or a constant (``x`` for any other string)."""
    if isinstance(b, int):
        return f"n{b}"
    return {"0": "1'b0", "1": "1'b1"}.get(b, "1'bx")


def _vec(bits) -> str:
    """A list of Yosys JSON bits (LSB first) as a Verilog expression: one net or a concatenation."""
    parts = [_net(b) for b in reversed(bits)]
    return parts[0] if len(parts) == 1 else "{" + ", ".join(parts) + "}"


def _used_nets(module: dict) -> set[int]:
    """The net numbers a module dict's cells or ports connect to."""
    used = set()
    for c in module["cells"].values():
        for bits in c["connections"].values():
            used.update(b for b in bits if isinstance(b, int))
    for p in module["ports"].values():
        used.update(b for b in p["bits"] if isinstance(b, int))
    return used


def _port_assigns(ports: dict) -> list[str]:
    """The ``assign`` lines joining each port bit to its net: input port -> net (constant bits of an
    input need none), net or constant -> output port."""
    out = []
    for pn, p in ports.items():
        w = len(p["bits"])
        for i, b in enumerate(p["bits"]):
            ref = f"{_id(pn)}[{i}]" if w > 1 else _id(pn)
            if p["direction"] == "input":
                if isinstance(b, int):
                    out.append(f"  assign n{b} = {ref};")
            else:
                out.append(f"  assign {ref} = {_net(b)};")
    return out


def _cell_line(cn: str, c: dict, chained: bool, init_override: dict[str, int]) -> str:
    """The instance line of an ordinary cell (:func:`write_verilog`): its parameters (INIT replaced from
    ``init_override``; an undefined register INIT written as 0 when the netlist has CFGLUT5 chains,
    ``chained``) and its connections."""
    params = dict(c.get("parameters", {}))
    if chained and c["type"] in FF_TYPES and params.get("INIT") == "x":
        params["INIT"] = "0"
    if cn in init_override:
        k = len(params.get("INIT", "0")) if isinstance(params.get("INIT"), str) else 64
        params["INIT"] = format(init_override[cn], f"0{k}b")
    ptxt = ""
    if params:
        ptxt = " #(" + ", ".join(f".{k}({_param_value(v)})" for k, v in params.items()) + ")"
    conns = ", ".join(f".{p}({_vec(bits)})" for p, bits in c["connections"].items())
    return f"  {c['type']}{ptxt} {_id(cn)} ({conns});"


def _chain_cdi(chains: list[list[str]], ch: int, j: int) -> str:
    """The net feeding element j of chain ``ch``: the loader's ``CFG_CDI`` bit or the CDO before it."""
    if j:
        return f"dcs_cdo_{ch}_{j - 1}"
    return f"{CFG_CDI}[{ch}]" if len(chains) > 1 else CFG_CDI


def _pbit_ff(cn: str, c: dict, pos: tuple, cells: dict, chains: list[list[str]], vec) -> str:
    """The FDRE of parameter bit ``cn`` (:func:`write_verilog`), member b of the register at
    (chain, index) = ``pos[:2]``; the last member's Q is the register's CDO ``dcs_cdo_<chain>_<index>``."""
    if c["type"] != "FDRE" or not is_pbit(c):
        raise ValueError(f"register member {cn}: a parameter-bit FDRE expected, got a {c['type']}")
    ch, j, b, members = pos
    d = _chain_cdi(chains, ch, j) if b == 0 else vec(cells[members[b - 1]]["connections"]["Q"])
    q = vec(c["connections"]["Q"])
    line = (f"  FDRE #(.INIT(1'b0)) {_id(cn)} (.C({CFG_CLK}), .CE({CFG_CE}), .R(1'b0), .D({d}), .Q({q}));")
    if b == len(members) - 1:
        line += f"\n  assign dcs_cdo_{ch}_{j} = {q};"
    return line


def _cfglut5(cn: str, c: dict, pos: tuple[int, int], chains: list[list[str]], vec) -> str:
    """The CFGLUT5 instance replacing TLUT cell ``cn`` (:func:`write_verilog`), at position ``pos``
    = (chain, index) of ``chains``; its CDO drives wire ``dcs_cdo_<chain>_<index>``."""
    t = c["type"]
    k = int(t[3:]) if t.startswith("LUT") and t[3:].isdigit() else 0
    if not 1 <= k <= 5:
        raise ValueError(f"TLUT {cn}: a {t} cannot be a CFGLUT5 (at most 5 inputs)")
    ch, j = pos
    cdi = _chain_cdi(chains, ch, j)
    cdo = f"dcs_cdo_{ch}_{j}"
    conns = c["connections"]
    zero = "1'b0"
    pins = ", ".join(f".I{i}({vec(conns[f'I{i}']) if i < k else zero})" for i in range(5))
    return (f"  CFGLUT5 #(.INIT(32'h00000000)) {_id(cn)} (.CDI({cdi}), .CDO({cdo}), .CE({CFG_CE}), "
            f".CLK({CFG_CLK}), {pins}, .O6({vec(conns['O'])}), .O5());")
