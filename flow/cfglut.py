"""The CFGLUT5 realization of TLUTs (``dcsflow build --tlut cfglut5``): chains, netlists and loader.

Every TLUT of a ``cfglut5`` build is a CFGLUT5 (UG953: a 5-input LUT of a SLICEM whose 32 INIT bits
shift in from the fabric through CDI, 32 clock cycles per LUT, O6 the LUT output). TMAP keeps every
TLUT to at most :data:`CFGLUT5_INPUTS` regular inputs (a wider parameter-dependent function becomes
CFGLUT5s under MUXF7/MUXF8, :mod:`dcsflow.tmap.cuts`). A TLUT that reads one parameter function
is no CFGLUT5: TMAP makes it a static LUT on a parameter bit (:mod:`dcsflow.tmap.parambits`), which
the mapping stage turns into a flip-flop (:func:`param_bit_registers`), 32 of them one register
that shifts like a CFGLUT5. The outputs stage (:func:`write_outputs`) then writes, beside the
template netlist:

- ``cfglut.json``: the chains (format ``dcsflow-cfglut-layout 2``, :class:`dcsflow.scg.cfglut.Layout`):
  the TLUT cells in template order, then the registers, cut into chains of ``chain_luts`` elements;
- ``cfglut/core.v``: the netlist with every TLUT a CFGLUT5 (INIT 0) and every parameter bit an FDRE
  in its chain, module
  ``<top>_dcs_core`` with the design's ports and :data:`dcsflow.flow.netlist.CFG_CLK`, ``CFG_CE``,
  ``CFG_CDI``;
- ``cfglut/dcs_cfglut_loader.v`` and ``cfglut/dcs_cfglut_gate.v``: the loader (AXI4-Lite registers and
  word window, AXI4-Stream input) and the input-handshake gate, copied from the package;
- ``cfglut/top.v``: module ``<top>_cfglut``: the core, the loader and, when the design describes its
  input handshake (:class:`dcsflow.flow.design.Handshake`), the gate that holds it while the chains
  shift; the design's ports plus the loader's ``s_axi_*``/``s_axis_*`` ports and ``cfg_irq``.

:func:`check_harness` writes the netlist ``dcsflow check`` simulates: a module with the design's top
name and ports around the same core, loader and gate, whose sequencer streams the chain words of one
key and, after a given number of data items has started, those of a second key (the gate holds the
next item until the shift is over). Figures at the shift clock: :data:`SHIFT_MHZ`.
"""

from __future__ import annotations

from pathlib import Path

from dcsflow.fileio import write_text_atomic
from dcsflow.scg.cfglut import Layout, make_layout
from dcsflow.scg.errors import CfglutError
from dcsflow.scg.timemodel import LOADER_HZ

from . import netlist as nl
from .design import Handshake
from .errors import FlowError

#: regular inputs of a CFGLUT5 (UG953)
CFGLUT5_INPUTS = 5
#: the longest chain by default: its shift (32 cycles per CFGLUT5, plus the loader's 2) stays within
#: 1.3 us at :data:`SHIFT_MHZ`: 4 x 32 + 2 = 130 cycles (:func:`choose_chain_luts`)
MAX_DEFAULT_CHAIN_LUTS = 4
#: clock of the shift in the figures (MHz): the loader's clock of :mod:`dcsflow.scg.timemodel`
SHIFT_MHZ = LOADER_HZ.value / 1e6
#: files :func:`write_outputs` writes (relative to the build folder)
OUTPUT_FILES = ("cfglut.json", "cfglut/core.v", "cfglut/dcs_cfglut_loader.v", "cfglut/dcs_cfglut_gate.v",
                "cfglut/top.v")
_TEMPLATES = Path(__file__).resolve().parent / "templates" / "cfglut"
#: the parameter generator of a build made with ``--param-in-loader``
PARAM_FILE = "cfglut/dcs_cfglut_param.v"


class CfglutBuildError(FlowError):
    """A ``cfglut5`` build's netlist cannot be realized with CFGLUT5 chains."""


def tlut_cells(module: dict) -> list[str]:
    """The TLUT cells of a template module (Yosys JSON dict), in the module's order.

    Raises:
        CfglutBuildError: a TLUT with more than :data:`CFGLUT5_INPUTS` inputs (one line naming it).
    """
    out = []
    for cn, c in module["cells"].items():
        if not nl.is_tlut(c):
            continue
        t = c["type"]
        k = int(t[3:]) if t.startswith("LUT") and t[3:].isdigit() else None
        if k is None or not 1 <= k <= CFGLUT5_INPUTS:
            raise CfglutBuildError(f"TLUT {cn} is a {t}: a CFGLUT5 has at most {CFGLUT5_INPUTS} inputs "
                                   "(TMAP of a cfglut5 build keeps TLUTs to 5; was the netlist changed?)")
        out.append(cn)
    return out


#: name prefix of a parameter-bit register (a chain element; :mod:`dcsflow.scg.cfglut`)
REGISTER_PREFIX = "$dcs$preg"
#: parameter bits per register: one CFGLUT5's worth of shift cycles
REGISTER_BITS = 32


def design_clock(cells: dict):
    """The design's FF clock net when all its FFs have one, else None (the loader shifts on it)."""
    clocks = {c["connections"]["C"][0] for c in cells.values()
              if c.get("type") in nl.FF_TYPES and "C" in c.get("connections", {})}
    return clocks.pop() if len(clocks) == 1 else None


def param_bit_registers(module: dict) -> int:
    """Turn every TLUT cell of the template ``module`` whose entries all name one PPC output (its
    output does not depend on its inputs: a parameter bit, which TMAP makes of a TLUT that reads one
    parameter function, :mod:`dcsflow.tmap.parambits`) into a parameter-bit flip-flop, in place: an
    FDRE (INIT 0, attribute ``dcs_pbit``, ``dcs_ppc`` its one entry) that holds its value (CE 0),
    clocked by the design's clock (:func:`design_clock`; constant 0 without one). Every
    :data:`REGISTER_BITS` of them in module order make one register, member b's D member b-1's Q, as
    the chains shift them (:func:`module_layout`): the template packs and simulates as the device
    holds them, a CFGLUT5 per parameter bit would shift 32 bits for one. Returns their number."""
    clk = design_clock(module["cells"]) or "0"
    n, prev = 0, "0"
    for cn, ent in nl.tlut_entries(module).items():
        c = module["cells"][cn]
        if not nl.is_tlut(c) or len(set(ent)) != 1:
            continue
        q = c["connections"]["O"]
        module["cells"][cn] = {
            "hide_name": c.get("hide_name", 1), "type": "FDRE", "parameters": {"INIT": "0"},
            "attributes": {"dcs_pbit": "00000000000000000000000000000001", "dcs_ppc": f"{ent[0]},"},
            "port_directions": {"C": "input", "CE": "input", "D": "input", "Q": "output", "R": "input"},
            "connections": {"C": [clk], "CE": ["0"], "D": [prev if n % REGISTER_BITS else "0"], "Q": list(q),
                            "R": ["0"]}}
        prev = q[0]
        n += 1
    return n


def pbit_cells(module: dict) -> list[str]:
    """The parameter-bit flip-flops of a template module (:func:`param_bit_registers`), in order."""
    return [cn for cn, c in module["cells"].items() if nl.is_pbit(c)]


def choose_chain_luts(n_tluts: int, longest: int = MAX_DEFAULT_CHAIN_LUTS) -> int:
    """The default chain length for ``n_tluts`` CFGLUT5s: of the lengths 1..``longest`` (the shift-time
    bound), the one that needs the fewest chain words (one AXI4-Lite write each; words = groups of 32
    chains x 32 x length, :func:`dcsflow.scg.cfglut.word_count`), the longest of those (fewest chains
    and loader memories). E.g. 174 CFGLUT5s: 3 (58 chains, 192 words) rather than 4 (256 words)."""
    from dcsflow.scg.cfglut import word_count

    n = max(1, n_tluts)
    return min(range(1, longest + 1), key=lambda L: (word_count(-(-n // L), L), -L))


def plan_chains(cells: list[str], chain_luts: int) -> list[list[str]]:
    """``cells`` cut into chains of ``chain_luts`` (the last one may be shorter), in order.

    Raises:
        CfglutBuildError: no TLUT at all, or ``chain_luts`` below 1.
    """
    if chain_luts < 1:
        raise CfglutBuildError(f"chain length {chain_luts}: at least one CFGLUT5 per chain")
    if not cells:
        raise CfglutBuildError("the build has no TLUT: nothing to realize as CFGLUT5 chains")
    return [cells[i:i + chain_luts] for i in range(0, len(cells), chain_luts)]


def _template(name: str) -> str:
    return (_TEMPLATES / name).read_text()


def _gate_params(hs: Handshake) -> str:
    return f"#(.HAS_LAST({1 if hs.last else 0}), .HAS_DONE({1 if hs.done else 0}))"


def _ref(name: str | None) -> str:
    return nl.verilog_id(name) if name else "1'b0"


def _check_handshake(module: dict, hs: Handshake) -> None:
    ports = module["ports"]
    want = {"valid": ("input", hs.valid), "ready": ("output", hs.ready), "last": ("input", hs.last),
            "done": ("output", hs.done), "out_valid": ("output", hs.out_valid), "out_ready": ("input", hs.out_ready),
            "clock": ("input", hs.clock), "reset": ("input", hs.reset)}
    for role, (direction, name) in want.items():
        if name is None:
            continue
        p = ports.get(name)
        if p is None or p.get("direction") != direction or len(p.get("bits", ())) != 1:
            raise CfglutBuildError(f"handshake {role} {name!r}: the top has no one-bit {direction} of that name")
    if hs.done is None and (hs.out_valid is None or hs.out_ready is None):
        raise CfglutBuildError("handshake: give done, or out_valid and out_ready")


def _body(module: dict, top: str, layout: Layout, hs: Handshake | None, hold: str) -> list[str]:
    """Verilog lines instantiating the core, the loader (``ld``) and the gate (``gate``, when ``hs``)
    inside a module with the design's ports; the loader's ports are wires ``ld_*`` except those
    the caller connects (AXI), ``hold`` the expression the gate holds on."""
    ports = module["ports"]
    clk = nl.verilog_id(hs.clock) if hs else "ld_clk"
    lines = ["  wire ld_hold, ld_busy, ld_done, ld_irq, ld_ce, ld_idle;",
             f"  wire [{layout.n_chains - 1}:0] ld_cdi;"]
    conns = []
    for pn in ports:
        v = nl.verilog_id(pn)
        if hs and pn == hs.valid:
            conns.append(f".{v}(core_s_valid)")
        elif hs and pn == hs.ready:
            conns.append(f".{v}(core_s_ready)")
        else:
            conns.append(f".{v}({v})")
    conns += [f".{nl.CFG_CLK}({clk})", f".{nl.CFG_CE}(ld_ce)", f".{nl.CFG_CDI}(ld_cdi)"]
    if hs:
        lines += ["  wire core_s_valid, core_s_ready, gate_start;",
                  f"  dcs_cfglut_gate {_gate_params(hs)} gate (.clk({clk}), .rst({_ref(hs.reset)}), .hold({hold}), "
                  f".s_valid({_ref(hs.valid)}), .s_ready({_ref(hs.ready)}), .s_valid_core(core_s_valid), "
                  f".s_ready_core(core_s_ready), .s_last({_ref(hs.last)}), .done({_ref(hs.done)}), "
                  f".m_valid({_ref(hs.out_valid)}), .m_ready({_ref(hs.out_ready)}), .idle(ld_idle), .start(gate_start));"]
    else:
        lines.append("  assign ld_idle = 1'b1;")
    lines.append(f"  {nl.verilog_id(top + '_dcs_core')} core ({', '.join(conns)});")
    return lines


def addr_width(layout: Layout) -> int:
    """The loader's ``ADDR_WIDTH`` for ``layout``: its smallest, at least 16 (the default); the
    runtime's rule (:func:`dcsflow.scg.cfglut.addr_width`), so its driver maps what the build made."""
    return layout.addr_width


def _loader(layout: Layout, clk: str, axi: dict) -> str:
    aw = addr_width(layout)
    conns = {"clk": clk, "rstn": "1'b1", **axi, "cdi": "ld_cdi", "ce": "ld_ce", "hold": "ld_hold",
             "idle": "ld_idle", "busy": "ld_busy", "done": "ld_done", "irq": "ld_irq"}
    return (f"  dcs_cfglut_loader #(.CHAINS({layout.n_chains}), .CHAIN_LUTS({layout.chain_luts}), "
            f".BUILD_ID(32'h{layout.build_id:08x}), .ADDR_WIDTH({aw})) ld ("
            + ", ".join(f".{k}({v})" for k, v in conns.items()) + ");")


_AXI_PORTS = (("s_axi_awaddr", "input", "AW"), ("s_axi_awvalid", "input", 1), ("s_axi_awready", "output", 1),
              ("s_axi_wdata", "input", 32), ("s_axi_wstrb", "input", 4), ("s_axi_wvalid", "input", 1),
              ("s_axi_wready", "output", 1), ("s_axi_bresp", "output", 2), ("s_axi_bvalid", "output", 1),
              ("s_axi_bready", "input", 1), ("s_axi_araddr", "input", "AW"), ("s_axi_arvalid", "input", 1),
              ("s_axi_arready", "output", 1), ("s_axi_rdata", "output", 32), ("s_axi_rresp", "output", 2),
              ("s_axi_rvalid", "output", 1), ("s_axi_rready", "input", 1), ("s_axis_tdata", "input", 32),
              ("s_axis_tvalid", "input", 1), ("s_axis_tready", "output", 1), ("s_axis_tlast", "input", 1))


def _axi_lite_ports() -> str:
    """Port declarations of the parameter generator's AXI4-Lite slave (the ``s_axi_*`` ports of
    :data:`_AXI_PORTS`, as the loader has them; address ``ADDR_WIDTH`` bits), one per line with a
    trailing comma: outputs are ``reg`` starting at 0, except ``s_axi_rresp`` (always OKAY)."""
    lines = []
    for n, d, w in _AXI_PORTS:
        if not n.startswith("s_axi_"):
            continue
        rng = "[ADDR_WIDTH-1:0]" if w == "AW" else f"[{w - 1}:0]" if w > 1 else ""
        kind = "reg " if d == "output" and n != "s_axi_rresp" else "wire"
        init = f" = {32 if w == 'AW' else w}'d0" if kind == "reg " else ""
        lines.append(f"  {d:<6} {kind} {rng:<16} {n}{init},")
    return "\n".join(lines)


def top_verilog(module: dict, top: str, layout: Layout, hs: Handshake | None, param: bool = False) -> str:
    """Module ``<top>_cfglut`` (``cfglut/top.v``): the design's ports, the loader's AXI4-Lite slave
    ``s_axi_*`` and AXI4-Stream input ``s_axis_*`` (docs/formats.md), ``cfg_irq`` and, without a
    handshake description, ``cfg_hold`` (gate the design's input with it) and ``cfg_idle`` (tie high
    when no item is in flight). One clock: the handshake's clock port, else ``cfg_clk``. With
    ``param``, the parameter generator ``dcs_cfglut_param`` (:func:`param_generator_verilog`) drives
    the loader's stream input and its AXI4-Lite slave is ``s_axi_param_*`` (8 address bits)
    instead of ``s_axis_*``."""
    aw = addr_width(layout)
    axi = [(n, d, w) for n, d, w in _AXI_PORTS if not (param and n.startswith("s_axis_"))]
    if param:
        axi += [(n.replace("s_axi_", "s_axi_param_"), d, 8 if w == "AW" else w) for n, d, w in _AXI_PORTS
                if n.startswith("s_axi_")]
    extra = [(n, d, aw if w == "AW" else w) for n, d, w in axi] + [("cfg_irq", "output", 1)]
    if hs is None:
        extra += [("cfg_clk", "input", 1), ("cfg_hold", "output", 1), ("cfg_idle", "input", 1)]
    names = [nl.verilog_id(p) for p in module["ports"]] + [n for n, _, _ in extra]
    out = [f"// dcsflow: {top} with CFGLUT5 TLUTs and their loader (docs/formats.md, \"CFGLUT5 chain words and "
           "loader, version 1\"). Files: core.v, dcs_cfglut_loader.v, dcs_cfglut_gate.v.",
           f"module {nl.verilog_id(top + '_cfglut')} ({', '.join(names)});"]
    out += nl.port_lines(module)
    out += [f"  {d} {f'[{w - 1}:0] ' if w > 1 else ''}{n};" for n, d, w in extra]
    body = _body(module, top, layout, hs, "ld_hold")
    if hs is None:
        body = [ln for ln in body if ln != "  assign ld_idle = 1'b1;"]
        body += ["  wire ld_clk = cfg_clk;", "  assign cfg_hold = ld_hold;", "  assign ld_idle = cfg_idle;"]
    out += body
    clk = nl.verilog_id(hs.clock) if hs else "ld_clk"
    lconns = {n: n for n, _, _ in _AXI_PORTS}
    if param:
        lconns.update({"s_axis_tdata": "g_tdata", "s_axis_tvalid": "g_tvalid", "s_axis_tready": "g_tready",
                       "s_axis_tlast": "g_tlast"})
        gconns = {n: n.replace("s_axi_", "s_axi_param_") for n, _, _ in _AXI_PORTS if n.startswith("s_axi_")}
        gconns.update({"clk": clk, "rstn": "1'b1", "m_axis_tdata": "g_tdata", "m_axis_tvalid": "g_tvalid",
                       "m_axis_tready": "g_tready", "m_axis_tlast": "g_tlast"})
        out += ["  wire [31:0] g_tdata;", "  wire g_tvalid, g_tready, g_tlast;",
                "  dcs_cfglut_param gen (" + ", ".join(f".{k}({v})" for k, v in gconns.items()) + ");"]
    out.append(_loader(layout, clk, lconns))
    out += ["  assign cfg_irq = ld_irq;", "endmodule"]
    return "\n".join(out) + "\n"


def write_outputs(out: Path, module: dict, top: str, design_hash: str, chain_luts: int | None,
                  hs: Handshake | None, param: tuple | None = None) -> Layout:
    """Write the ``cfglut5`` build's files (module docstring, :data:`OUTPUT_FILES`) into ``out``;
    ``chain_luts`` None: :func:`choose_chain_luts`; with ``param`` = (PPC AIG, TLUT entries, parameter
    widths) also ``cfglut/dcs_cfglut_param.v``
    (:func:`param_generator_verilog`), wired into ``cfglut/top.v``.

    Raises:
        CfglutBuildError: a TLUT wider than a CFGLUT5, no TLUT, a handshake the top does not have;
            ParamInLoaderError: ``param`` with a PPC that has AND nodes.
    """
    layout = module_layout(module, design_hash, chain_luts)
    srcs = sources(module, top, layout, hs, param)
    import json

    (out / "cfglut").mkdir(exist_ok=True)
    if param is None:
        (out / PARAM_FILE).unlink(missing_ok=True)      # an earlier run's generator: not this build's
    write_text_atomic(out / "cfglut.json", json.dumps(layout.to_json_obj(), indent=1) + "\n")
    for name, text in srcs.items():
        write_text_atomic(out / "cfglut" / name, text)
    return layout


def synth_cost(reads: str, top: str, workdir: Path, name: str, what: str) -> dict:
    """Cells of module ``top`` as Yosys's ``synth_xilinx -flatten`` maps it after the ``reads``
    commands: LUTs, FFs, MUXF7, MUXF8, CARRY4, RAMB18 (a RAMB36E1 counts two), CFGLUT5. Raises
    YosysError."""
    import json

    from .yosys import run_script, script_path

    stat = workdir / f"{name}_stat.json"
    run_script(f"{reads}synth_xilinx -top {top} -flatten\ntee -q -o {script_path(stat, workdir)} stat -json\n",
               workdir, name, what=what)
    doc = json.loads(stat.read_text())
    cells = (doc.get("design") or {}).get("num_cells_by_type") or {}
    return {"luts": sum(v for t, v in cells.items() if t in nl.LUT_TYPES),
            "ffs": sum(v for t, v in cells.items() if t in nl.FF_TYPES),
            "muxf7": cells.get("MUXF7", 0), "muxf8": cells.get("MUXF8", 0), "carry4": cells.get("CARRY4", 0),
            "ramb18": cells.get("RAMB18E1", 0) + 2 * cells.get("RAMB36E1", 0), "cfglut5": cells.get("CFGLUT5", 0)}


def generator_cost(path: Path, workdir: Path) -> dict:
    """Resources of the parameter generator ``path`` (:func:`param_generator_verilog`) as Yosys's
    ``synth_xilinx -flatten`` maps it alone: LUTs, FFs, MUXF7, MUXF8, CARRY4 (``workdir`` receives
    the script and its log). Raises YosysError."""
    from .yosys import script_path

    cost = synth_cost(f"read_verilog {script_path(path, workdir)}\n", "dcs_cfglut_param", workdir, "param_cost",
                       "parameter generator: LUT cost (synth_xilinx)")
    cost.pop("ramb18")
    cost.pop("cfglut5")
    return cost


def loader_cost(build: Path, top: str, workdir: Path, with_core: bool = False) -> dict:
    """Resources a ``cfglut5`` build adds around its core: ``cfglut/top.v`` (module ``<top>_cfglut``)
    with the core a black box, i.e. the loader, the gate and (``--param-in-loader``) the parameter
    generator with the build's parameters, as Yosys's ``synth_xilinx -flatten`` maps them: LUTs, FFs,
    MUXF7, MUXF8, CARRY4, RAMB18 (:func:`synth_cost`; ``workdir`` receives the script and its log;
    CFGLUT5 0 unless ``with_core``, for comparison). Not part of the build's slice figures, which
    are the core's. Raises YosysError."""
    from .yosys import script_path

    d = Path(build) / "cfglut"
    srcs = [d / n for n in ("dcs_cfglut_loader.v", "dcs_cfglut_gate.v", "dcs_cfglut_param.v", "top.v")
            if (d / n).exists()]
    lib = "" if with_core else "-lib "
    reads = f"read_verilog {lib}{script_path(d / 'core.v', workdir)}\n" + "".join(
        f"read_verilog {script_path(p, workdir)}\n" for p in srcs)
    return synth_cost(reads, f"{top}_cfglut", workdir, "loader_cost", "CFGLUT5 loader and gate (synth_xilinx)")


def module_layout(module: dict, design_hash: str, chain_luts: int | None) -> Layout:
    """The CFGLUT5 chains of the template ``module``: its TLUT cells in order, then its
    parameter-bit registers (:data:`REGISTER_BITS` parameter-bit flip-flops each, in module order,
    as :func:`param_bit_registers` linked them), ``chain_luts`` elements per chain (None:
    :func:`choose_chain_luts`), ``cfglut.json``'s layout.

    Raises:
        CfglutBuildError: a TLUT wider than a CFGLUT5, no TLUT or parameter bit, ``chain_luts`` below
            1 or so short that a partial register would sit inside a chain.
    """
    cells = tlut_cells(module)
    bits = pbit_cells(module)
    regs = {f"{REGISTER_PREFIX}{r}": bits[i:i + REGISTER_BITS] for r, i in enumerate(range(0, len(bits), REGISTER_BITS))}
    elements = cells + list(regs)          # a shorter last register ends the last chain
    try:
        return make_layout(plan_chains(elements, chain_luts or choose_chain_luts(len(elements))), design_hash, regs)
    except CfglutError as e:
        raise CfglutBuildError(str(e)) from None


def core_verilog(module: dict, top: str, layout: Layout) -> str:
    """``core.v``: module ``<top>_dcs_core``, the netlist with the chained TLUTs as CFGLUT5s and the
    parameter bits as shift registers (:func:`dcsflow.flow.netlist.write_verilog`)."""
    return nl.write_verilog(module, top + "_dcs_core", cfglut_chains=[list(c) for c in layout.chains],
                            cfglut_registers={n: list(m) for n, m in layout.registers})


#: the Verilog files of a ``cfglut5`` build (:func:`sources`), in the order a tool reads them
SOURCE_FILES = ("core.v", "dcs_cfglut_loader.v", "dcs_cfglut_gate.v", "top.v")


def sources(module: dict, top: str, layout: Layout, hs: Handshake | None, param: tuple | None = None) -> dict[str, str]:
    """The Verilog of a ``cfglut5`` build by file name (:data:`SOURCE_FILES`): ``core.v`` (the
    netlist with every TLUT a CFGLUT5 in its chain of ``layout``), the loader, the gate and ``top.v``
    (:func:`top_verilog`, module ``<top>_cfglut``), as ``cfglut/`` holds them; with ``param`` = (PPC
    AIG, TLUT entries, parameter widths) also ``dcs_cfglut_param.v`` (:func:`param_generator_verilog`),
    wired into ``top.v``.

    Raises:
        CfglutBuildError: a handshake the top does not have; ParamInLoaderError: ``param`` with a PPC
            that has AND nodes.
    """
    if hs is not None:
        _check_handshake(module, hs)
    out = {"core.v": core_verilog(module, top, layout),
           "dcs_cfglut_loader.v": _template("dcs_cfglut_loader.v"),
           "dcs_cfglut_gate.v": _template("dcs_cfglut_gate.v")}
    if param is not None:
        out[Path(PARAM_FILE).name] = param_generator_verilog(layout, *param)
    out["top.v"] = top_verilog(module, top, layout, hs, param is not None)
    return out


def param_bit_luts(tmap_netlist: dict) -> int:
    """How many LUTs of TMAP's netlist (``tmap/netlist.json``, format ``dcsflow-tlut-netlist``) read a
    parameter bit (a TLUT without inputs): the TLUTs that read one parameter function and became
    static LUTs on a parameter bit (:func:`dcsflow.tmap.parambits.split_param_bits`)."""
    luts = tmap_netlist.get("luts") or []
    bits = {t["name"] for t in luts if "ppc" in t and not t.get("inputs")}
    return sum(1 for t in luts if "ppc" not in t and bits.intersection(t.get("inputs") or ()))


def summary(layout: Layout, n_luts: int, pbit_luts: int = 0) -> dict:
    """The report's ``cfglut`` entry: CFGLUT5s, parameter bits and their registers, ``param_bit_luts``
    (``pbit_luts``: TLUTs that became static LUTs on parameter bits, :func:`param_bit_luts`), chains,
    chain length (elements), chain words, shift cycles and
    microseconds at :data:`SHIFT_MHZ` (the loader's START to DONE: S + 2 cycles), and ``luts`` the
    build's LUTs."""
    cycles = layout.shift_cycles + 2
    return {"cfglut5": len(layout.cfglut5s), "param_bits": layout.param_bits, "param_bit_luts": pbit_luts,
            "registers": len(layout.registers),
            "chains": layout.n_chains, "chain_luts": layout.chain_luts, "words": layout.words,
            "shift_cycles": cycles, "shift_us": round(cycles / SHIFT_MHZ, 3), "shift_mhz": SHIFT_MHZ,
            "build_id": f"{layout.build_id:08x}", "luts": n_luts}


def check_harness(module: dict, top: str, layout: Layout, hs: Handshake, words: list[list[int]],
                  switch_after: int, param_words: bool = False) -> str:
    """Verilog for ``dcsflow check`` of a ``cfglut5`` build (simulation only): module ``top`` with the
    design's parameters and ports around the core (every CFGLUT5 starts at INIT 0), the loader and
    the gate, and a sequencer that loads the first key before any data item may enter and the second
    (when given) once ``switch_after`` data items have started: the gate holds the next item until
    that shift is done. ``words[k]``: the chain words of key k, streamed into the loader as one
    AXI4-Stream packet; with ``param_words``, the key's raw parameter words instead, written over
    AXI4-Lite into the parameter generator (:func:`param_generator_verilog`, module
    ``dcs_cfglut_param`` to be compiled with it), which streams the chain words into the loader.
    Prepend ``core.v``, the loader and the gate (:func:`harness_sources`)."""
    nw = layout.words
    n = len(words[0])
    for w in words:
        if len(w) != (n if param_words else nw):
            raise CfglutBuildError(f"{len(w)} chain words for a layout of {nw}")
    names = [nl.verilog_id(p) for p in module["ports"]]
    out = ["// dcsflow check harness of a cfglut5 build: loads keys through the CFGLUT5 loader",
           f"module {nl.verilog_id(top)} ({', '.join(names)});"]
    out += nl.parameter_lines(module) + nl.port_lines(module)
    clk = nl.verilog_id(hs.clock)
    aw = addr_width(layout)
    out += [f"  localparam NW = {n};", f"  localparam NKEYS = {len(words)};",
            f"  localparam SWITCH = {switch_after};",
            "  reg [31:0] words [0:NKEYS*NW-1];",
            "  reg loading = 1'b1, switched = 1'b0;",
            "  reg [31:0] starts = 32'd0;",
            "  wire seq_hold = loading | (NKEYS > 1 && starts >= SWITCH && !switched);",
            "  reg [31:0] tdata = 32'd0;", "  reg tvalid = 1'b0, tlast = 1'b0;", "  wire tready;",
            "  reg [7:0] pa = 8'd0;", "  reg [31:0] pd = 32'd0;", "  reg pv = 1'b0;", "  wire pready;",
            "  wire [31:0] g_tdata;", "  wire g_tvalid, g_tlast;",
            "  integer si, sk;"]
    out += _body(module, top, layout, hs, "ld_hold | seq_hold")
    out.append(f"  always @(posedge {clk}) if (gate_start) starts <= starts + 32'd1;")
    stream = ({"s_axis_tdata": "g_tdata", "s_axis_tvalid": "g_tvalid", "s_axis_tready": "tready",
               "s_axis_tlast": "g_tlast"} if param_words else
              {"s_axis_tdata": "tdata", "s_axis_tvalid": "tvalid", "s_axis_tready": "tready", "s_axis_tlast": "tlast"})
    zero_axi = {"s_axi_awaddr": f"{aw}'d0", "s_axi_awvalid": "1'b0", "s_axi_awready": "", "s_axi_wdata": "32'd0",
                "s_axi_wstrb": "4'd0", "s_axi_wvalid": "1'b0", "s_axi_wready": "", "s_axi_bresp": "",
                "s_axi_bvalid": "", "s_axi_bready": "1'b1", "s_axi_araddr": f"{aw}'d0", "s_axi_arvalid": "1'b0",
                "s_axi_arready": "", "s_axi_rdata": "", "s_axi_rresp": "", "s_axi_rvalid": "", "s_axi_rready": "1'b1",
                **stream}
    out.append(_loader(layout, clk, zero_axi))
    if param_words:
        out.append(f"  dcs_cfglut_param gen (.clk({clk}), .rstn(1'b1), .s_axi_awaddr(pa), .s_axi_awvalid(pv), "
                   ".s_axi_awready(pready), .s_axi_wdata(pd), .s_axi_wstrb(4'hf), .s_axi_wvalid(pv), .s_axi_wready(), "
                   ".s_axi_bresp(), .s_axi_bvalid(), .s_axi_bready(1'b1), .s_axi_araddr(8'd0), .s_axi_arvalid(1'b0), "
                   ".s_axi_arready(), .s_axi_rdata(), .s_axi_rresp(), .s_axi_rvalid(), .s_axi_rready(1'b1), "
                   ".m_axis_tdata(g_tdata), .m_axis_tvalid(g_tvalid), .m_axis_tready(tready), .m_axis_tlast(g_tlast));")
    init = ["  initial begin"]
    for k, ws in enumerate(words):
        init += [f"    words[{k * n + i}] = 32'h{w:08x};" for i, w in enumerate(ws)]
    init.append("  end")
    out += init
    if param_words:       # one AXI4-Lite write per parameter word (the last one starts the stream)
        send = ["      for (si = 0; si < NW; si = si + 1) begin",
                "        pa <= 4 * si; pd <= words[sk*NW+si]; pv <= 1'b1;",
                f"        @(posedge {clk}); while (!pready) @(posedge {clk});",
                "        pv <= 1'b0;",
                f"        @(posedge {clk});",
                "      end"]
    else:
        send = ["      for (si = 0; si < NW; si = si + 1) begin",
                "        tvalid <= 1'b1; tdata <= words[sk*NW+si]; tlast <= (si == NW-1);",
                f"        @(posedge {clk}); while (!tready) @(posedge {clk});",
                "      end",
                "      tvalid <= 1'b0; tlast <= 1'b0;"]
    out += ["  initial begin",
            "    for (sk = 0; sk < NKEYS; sk = sk + 1) begin",
            "      if (sk > 0) wait (starts >= SWITCH);",
            f"      @(posedge {clk});",
            *send,
            f"      while (!ld_busy) @(posedge {clk});",
            f"      while (ld_busy) @(posedge {clk});",
            "      if (sk == 0) loading <= 1'b0; else switched <= 1'b1;",
            "    end",
            "  end",
            "endmodule"]
    return "\n".join(out) + "\n"


def harness_sources(module: dict, top: str, layout: Layout) -> str:
    """The core (module ``<top>_dcs_core``), the loader and the gate as one Verilog text, for
    :func:`check_harness`."""
    return (core_verilog(module, top, layout)
            + _template("dcs_cfglut_loader.v") + _template("dcs_cfglut_gate.v"))


# ---- the parameter evaluated in the loader's logic -------------------------------------------------------
#: register of the parameter generator (:func:`param_generator_verilog`): STATUS, after the parameter words
PARAM_STATUS = 0x80


class ParamInLoaderError(CfglutBuildError):
    """The PPC cannot be evaluated in the loader's logic (it has AND nodes)."""


def chain_literals(layout: Layout, ppc_aig, entries: dict[str, list[int]], param_widths: dict[str, int]) -> list[list[int]]:
    """Per chain word (word order, :func:`dcsflow.scg.cfglut.chain_words`) the 32 bit sources, each a
    literal over the packed parameter word: ``-1`` constant 0, ``-2`` constant 1, ``2*i`` parameter
    bit i, ``2*i + 1`` its complement. Parameter bit i: the ports of ``param_widths`` in order, each
    from bit 0, packed into 32-bit words (port ``key`` of 128 bits: words 0..3 = key[31:0] ..
    key[127:96]).

    Raises:
        ParamInLoaderError: the PPC has AND nodes (its outputs are no literals of the parameters).
    """
    if ppc_aig.num_ands:
        raise ParamInLoaderError(f"the PPC has {ppc_aig.num_ands} AND nodes: only a PPC of parameter literals "
                                 "(0 AND nodes) can be evaluated in the loader; load the chain words instead")
    offset, pos = {}, 0
    for port, w in param_widths.items():
        offset[port] = pos
        pos += w
    src = {}
    for j, name in enumerate(ppc_aig.input_names):
        port, _, rest = name.partition("[")
        src[j + 1] = offset[port] + (int(rest.rstrip("]")) if rest else 0)

    def lit_of(out_index: int) -> int:
        lit = ppc_aig.outputs[out_index]
        v, neg = lit >> 1, lit & 1
        if v == 0:
            return -2 if neg else -1
        return 2 * src[v] + neg

    s = layout.shift_cycles
    bsrc = layout.bit_sources(entries)
    words = [[-1] * 32 for _ in range(layout.words)]
    for c, chain in enumerate(layout.chains):
        base, k = (c // 32) * s, c % 32
        for t in range(s):
            p = s - 1 - t
            j, b = divmod(p, 32)
            if j < len(chain) and bsrc[chain[j]][b] is not None:
                words[base + t][k] = lit_of(bsrc[chain[j]][b])
    return words


def param_words(values: dict[str, int], param_widths: dict[str, int]) -> list[int]:
    """The raw parameter words the generator (:func:`param_generator_verilog`) takes for the circuit
    parameter values ``values``: the ports of ``param_widths`` in order, each from bit 0, packed into
    32-bit words (at least one)."""
    v, pos = 0, 0
    for port, w in param_widths.items():
        v |= (values[port] & ((1 << w) - 1)) << pos
        pos += w
    return [(v >> (32 * i)) & 0xFFFFFFFF for i in range(max(1, (pos + 31) // 32))]


def param_generator_verilog(layout: Layout, ppc_aig, entries: dict[str, list[int]],
                            param_widths: dict[str, int]) -> str:
    """Module ``dcs_cfglut_param`` (Verilog-2005): the chain words computed in logic from the raw
    parameter, for a PPC without AND nodes (:func:`chain_literals`). An AXI4-Lite slave takes the
    parameter words at byte offsets ``4*i`` (i < PW = ceil(parameter bits / 32)); the write of the
    last one starts an AXI4-Stream packet ``m_axis_*`` of every chain word (one per cycle while
    ``m_axis_tready``), which the loader's stream input takes and which starts its shift. Register
    :data:`PARAM_STATUS` reads [0] BUSY (streaming); a parameter write while busy is refused
    (SLVERR). One clock, ``rstn`` synchronous active low.

    Raises:
        ParamInLoaderError: the PPC has AND nodes.
    """
    lits = chain_literals(layout, ppc_aig, entries, param_widths)
    nbits = sum(param_widths.values())
    pw = max(1, (nbits + 31) // 32)
    nw = layout.words
    iw = max(1, (nw - 1).bit_length())

    cases = "\n".join(f"      {iw}'d{i}: w = {{{', '.join(_literal_term(x) for x in reversed(ws))}}};"
                      for i, ws in enumerate(lits))
    return f"""// dcsflow: CFGLUT5 chain words from the raw parameter (PPC of parameter literals evaluated in logic),
// version 1 (docs/formats.md, "CFGLUT5 chain words and loader, version 1"). Generated for one build:
// {layout.n_chains} chains of up to {layout.chain_luts} CFGLUT5s, {nw} chain words, {nbits} parameter bits in {pw} words.
module dcs_cfglut_param #(
  parameter ADDR_WIDTH = 8
) (
  input  wire                  clk,
  input  wire                  rstn,
{_axi_lite_ports()}
  output wire [31:0]           m_axis_tdata,
  output reg                   m_axis_tvalid = 1'b0,
  input  wire                  m_axis_tready,
  output wire                  m_axis_tlast
);
  localparam PW = {pw};
  localparam [{iw - 1}:0] LAST = {iw}'d{nw - 1};
  reg [PW*32-1:0] p = {{(PW*32){{1'b0}}}};
  reg [{iw - 1}:0] idx = {iw}'d0;
  reg [31:0] w;
  assign s_axi_rresp = 2'b00;
  always @* begin
    case (idx)
{cases}
      default: w = 32'd0;
    endcase
  end
""" + _param_generator_logic(iw)


def _literal_term(x: int) -> str:
    """A chain-word literal of :func:`chain_literals` as a Verilog term: a constant, or parameter bit
    ``p[x >> 1]`` (inverted when ``x`` is odd)."""
    if x < 0:
        return "1'b1" if x == -2 else "1'b0"
    return f"{'~' if x & 1 else ''}p[{x >> 1}]"


def _param_generator_logic(iw: int) -> str:
    """The clocked part of module ``dcs_cfglut_param`` (:func:`param_generator_verilog`), to its
    ``endmodule``: the AXI4-Lite parameter writes and status read, and the AXI4-Stream of chain
    words (``iw``: width of the word index)."""
    return f"""  wire aw_fire = s_axi_awvalid && s_axi_wvalid && !s_axi_awready && !s_axi_bvalid;
  wire [ADDR_WIDTH-3:0] aw_i = s_axi_awaddr[ADDR_WIDTH-1:2];
  wire aw_param = aw_i < PW;
  wire go = aw_fire && aw_param && !m_axis_tvalid && aw_i == PW - 1;
  integer k;
  always @(posedge clk) begin
    if (!rstn) begin
      s_axi_awready <= 1'b0; s_axi_wready <= 1'b0; s_axi_bvalid <= 1'b0; s_axi_arready <= 1'b0;
      s_axi_rvalid <= 1'b0; m_axis_tvalid <= 1'b0; idx <= {iw}'d0;
    end else begin
      s_axi_awready <= 1'b0; s_axi_wready <= 1'b0;
      if (s_axi_bvalid && s_axi_bready) s_axi_bvalid <= 1'b0;
      if (aw_fire) begin
        s_axi_awready <= 1'b1; s_axi_wready <= 1'b1; s_axi_bvalid <= 1'b1;
        s_axi_bresp <= (aw_param && m_axis_tvalid) ? 2'b10 : 2'b00;
        if (aw_param && !m_axis_tvalid)
          for (k = 0; k < PW; k = k + 1)
            if (aw_i == k) p[32*k +: 32] <= s_axi_wdata;
      end
      // stream: word idx on the bus from the cycle after go; one word per accepted beat
      if (go) begin
        m_axis_tvalid <= 1'b1; idx <= {iw}'d0;
      end else if (m_axis_tvalid && m_axis_tready) begin
        if (m_axis_tlast) m_axis_tvalid <= 1'b0;
        idx <= idx + 1'b1;
      end
      s_axi_arready <= 1'b0;
      if (s_axi_rvalid && s_axi_rready) s_axi_rvalid <= 1'b0;
      if (s_axi_arvalid && !s_axi_arready && !s_axi_rvalid) begin
        s_axi_arready <= 1'b1; s_axi_rvalid <= 1'b1;
        s_axi_rdata <= (s_axi_araddr == {PARAM_STATUS}) ? {{31'd0, m_axis_tvalid}} : 32'd0;
      end
    end
  end
  assign m_axis_tdata = w;
  assign m_axis_tlast = m_axis_tvalid && idx == LAST;
endmodule
"""
