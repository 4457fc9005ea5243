"""Register forms of the TLUT build's RTL: the parameters held in flip-flops the host loads.

A designer without specialization keeps a cipher key in a register that the processor writes, and
may precompute from the key whatever depends on it alone (round keys, a key state) and keep that in
the register instead. Both are conventional implementations of the same RTL the TLUT build maps, so
the conventional candidates (:mod:`dcsflow.flow.baselines`) include them, generated from the TLUT
front end's netlist (``frontend/pre.json``, the module with parameter registers folded, as
:func:`dcsflow.flow.frontend.extract_logic` makes it for TMAP):

- ``register``: every parameter bit the logic reads is the Q of a flip-flop;
- ``precomputed``: the module is cut at the frontier of its parameter-only logic — the nets that
  depend on parameter inputs (and constants) alone and are read by anything else: a gate that also
  reads a regular net, a flip-flop, a hard cell, an output port or a kept net. Each frontier net is
  the Q of a flip-flop holding its value, and the parameter-only gates are gone: this is what the
  PPC folds away, held in flip-flops instead of LUT contents (aes128_iter's 11 round keys, 1,408
  bits; for a design whose parameters feed no parameter-only logic it is the ``register`` form).

The flip-flops form a register file written through a load port that the candidate's figures
include: ``dcs_load_data`` (:data:`DATA_WIDTH` bits), ``dcs_load_addr`` (the word address, absent
for a register of one word) and ``dcs_load_we``, sampled on the design's clock (the clock of most
of its flip-flops; a design without one gets a port ``dcs_load_clk``); register bit ``i`` is bit
``i % 32`` of word ``i // 32``. The flip-flops are ``$_SDFFE_PP0P_`` cells with the reset tied
inactive (a clock-enable FDRE after synth_xilinx's FF mapping), the address decoder gate cells that
the candidate's LUT mapper maps with the rest.

:func:`register_form` returns the new netlist document and a :class:`LoadMap`: which value each
register bit holds, and for the ``precomputed`` form an AIG of the frontier functions of the
parameters (the host's precomputation; ``load.aag``), so that a candidate can be simulated with
its register loaded (:func:`load_values`).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dcsflow.aig import Aig, read_aiger, write_aiger
from dcsflow.fileio import loads_json, read_input_text, write_text_atomic

from . import frontend as fe
from .errors import FlowError

__all__ = ["FORMS", "DATA_WIDTH", "MAX_ADDR_BITS", "LOAD_FORMAT", "LoadMap", "LoadRegisterError", "register_form",
           "load_values", "write_form", "read_load_map"]

#: the generated register forms, in the order the candidates are made and reported
FORMS = ("register", "precomputed")
#: bits of the load port's data word (a 32-bit AXI4-Lite write data bus)
DATA_WIDTH = 32
#: widest word address of the load port: 2^14 words = a 64 KB AXI4-Lite address window
MAX_ADDR_BITS = 14
#: format name of ``load.json`` (docs/formats.md)
LOAD_FORMAT = "dcsflow-load-map"
#: the load port's names
DATA_PORT, ADDR_PORT, WE_PORT, CLK_PORT = "dcs_load_data", "dcs_load_addr", "dcs_load_we", "dcs_load_clk"
#: the register's flip-flop cell type before synth_xilinx's FF mapping (clock enable, reset tied inactive)
FF_TYPE = "$_SDFFE_PP0P_"
#: cell inputs that are clocks: a register the host loads cannot drive them like data
CLOCK_PINS = ("C", "CLK", "WCLK", "CLKARDCLK", "CLKBWRCLK", "RDCLK", "WRCLK", "CLKA", "CLKB")


class LoadRegisterError(FlowError):
    """A register form cannot be made for a design (one line naming the parameter): a register wider
    than the load port addresses, a parameter that reaches a clock or an inout port."""


@dataclass
class LoadMap:
    """How the host loads a register form (``load.json``, format :data:`LOAD_FORMAT` v1).

    form: ``register`` or ``precomputed``; bits: register bits; words: 32-bit words written per
    load; addr_bits: width of ``dcs_load_addr`` (0: one word, no address port); clock: the net the
    register is clocked by (a name of the netlist); sources: per register bit, what it holds: the
    parameter bit (``key[5]``) in the ``register`` form, the frontier net's name in the
    ``precomputed`` form; params: parameter port -> width (the AIG's inputs, in order);
    same_as_register: the frontier is exactly the parameter bits the logic reads (the two forms are
    the same netlist).
    """

    form: str
    bits: int
    words: int
    addr_bits: int
    clock: str
    sources: list = field(default_factory=list)
    params: dict = field(default_factory=dict)
    same_as_register: bool = False

    def to_json(self) -> str:
        """``load.json`` text."""
        return json.dumps({"format": LOAD_FORMAT, "version": 1, **asdict(self)}, indent=1) + "\n"


def _net_kinds(module: dict, pnets: set) -> tuple[dict, dict]:
    """(net -> ``param`` | ``const`` for every parameter net and every gate output that depends on
    parameter nets and constants alone, gate name -> its output net). Other nets are regular."""
    gates = {n: c for n, c in module["cells"].items() if c["type"] in fe.GATE_TYPES}
    out_of = {n: c["connections"]["Y"][0] for n, c in gates.items()}
    driver = {y: n for n, y in out_of.items()}
    readers: dict = {}
    pending: dict = {}
    for n, c in gates.items():
        ins = [b for p, bs in c["connections"].items() if p != "Y" for b in bs]
        pending[n] = sum(1 for b in ins if isinstance(b, int) and b in driver)
        for b in ins:
            if isinstance(b, int) and b in driver:
                readers.setdefault(b, []).append(n)
    kind: dict = {b: "param" for b in pnets}
    ready = [n for n, k in pending.items() if k == 0]
    while ready:                                  # topological order (extract_logic refused loops)
        n = ready.pop()
        c = gates[n]
        ks = set()
        for p, bs in c["connections"].items():
            if p == "Y":
                continue
            for b in bs:
                ks.add("const" if isinstance(b, str) else kind.get(b, "regular"))
        y = out_of[n]
        if "regular" not in ks:
            kind[y] = "param" if "param" in ks else "const"
        for r in readers.get(y, ()):
            pending[r] -= 1
            if pending[r] == 0:
                ready.append(r)
    return kind, out_of


def _readers(module: dict, skip: set) -> dict:
    """net -> [(cell name, port)] of every cell input except the cells in ``skip``."""
    readers: dict = {}
    for n, c in module["cells"].items():
        if n in skip:
            continue
        dirs = c.get("port_directions", {})
        for p, bs in c["connections"].items():
            if c["type"] in fe.GATE_TYPES:
                if p == "Y":
                    continue
            elif dirs.get(p, "output" if p in ("O", "Q", "Y") else "input") == "output":
                continue
            for b in bs:
                if isinstance(b, int):
                    readers.setdefault(b, []).append((n, p))
    return readers


def _param_nets(module: dict, pports: dict) -> tuple[dict, set, dict]:
    """(parameter net -> bit name, the IBUF cells of the parameter ports, bit name -> carrier net:
    the IBUF output if there is one, else the port bit)."""
    name_of: dict = {}
    for p, w in pports.items():
        for i, b in enumerate(module["ports"][p]["bits"]):
            if isinstance(b, int):
                name_of[b] = f"{p}[{i}]" if w > 1 else p
    port_bits = set(name_of)
    ibufs = set()
    for n, c in module["cells"].items():
        if c["type"] in ("IBUF", "IBUFG") and c["connections"]["I"][0] in port_bits:
            name_of[c["connections"]["O"][0]] = name_of[c["connections"]["I"][0]]
            ibufs.add(n)
    carrier: dict = {}
    for b, n in name_of.items():
        if n not in carrier or b not in port_bits:
            carrier[n] = b
    return name_of, ibufs, carrier


def _support_ports(module: dict, net: int, name_of: dict) -> list[str]:
    """The parameter ports that net ``net`` depends on through gates (for an error message)."""
    driver = {c["connections"]["Y"][0]: c for c in module["cells"].values() if c["type"] in fe.GATE_TYPES}
    seen, todo, ports = set(), [net], set()
    while todo:
        b = todo.pop()
        if b in seen or not isinstance(b, int):
            continue
        seen.add(b)
        if b in name_of:
            ports.add(name_of[b].split("[")[0])
        elif b in driver:
            todo += [x for p, xs in driver[b]["connections"].items() if p != "Y" for x in xs]
    return sorted(ports)


def _held_nets(module: dict, form: str, kind: dict, pports: dict, carrier: dict, ibufs: set) -> list[int]:
    """The nets the register holds, in a stable order: the parameter carriers the module reads
    (``register``), or the frontier of the parameter-only logic (``precomputed``)."""
    readers = _readers(module, ibufs)
    outs = {b for p in module["ports"].values() if p["direction"] in ("output", "inout")
            for b in p["bits"] if isinstance(b, int)}
    kept = {b for nn in module["netnames"].values()
            if any(k.lower() == "keep" and fe._is_true_attr(v) for k, v in nn.get("attributes", {}).items())
            for b in nn["bits"] if isinstance(b, int)}
    if form == "register":
        order = sorted(carrier, key=lambda n: fe._param_sort_key(n, pports))
        return [carrier[n] for n in order
                if readers.get(carrier[n]) or carrier[n] in outs or carrier[n] in kept]
    gates = module["cells"]
    held = []
    for b, k in kind.items():
        if k != "param":
            continue
        rs = readers.get(b, [])
        if (b in outs or b in kept
                or any(gates[n]["type"] not in fe.GATE_TYPES or kind.get(gates[n]["connections"]["Y"][0]) != "param"
                       for n, _ in rs)):
            held.append(b)
    return sorted(held)


def _check_drivable(module: dict, held: list, name_of: dict, readers: dict) -> None:
    """Refuse a held net that reaches a clock pin or an inout port (one line naming the parameter)."""
    inout = {b for p in module["ports"].values() if p["direction"] == "inout" for b in p["bits"]}
    for b in held:
        bad = next((f"the clock input {p} of cell {n}" for n, p in readers.get(b, []) if p in CLOCK_PINS), None)
        if bad is None and b in inout:
            bad = "an inout port"
        if bad is not None:
            who = ", ".join(_support_ports(module, b, name_of)) or "a parameter"
            raise LoadRegisterError(f"parameter {who} reaches {bad}, which a register the host loads cannot drive")


def _clock(module: dict) -> int | None:
    """The net clocking most flip-flops of the module (None: it has none)."""
    clocks = Counter(c["connections"]["C"][0] for c in module["cells"].values()
                     if fe._FF_RE.match(c["type"]) and isinstance(c["connections"].get("C", [None])[0], int))
    return clocks.most_common(1)[0][0] if clocks else None


def register_form(pre: dict, top: str, params: list[str], form: str) -> tuple[dict, LoadMap, Aig]:
    """The register form ``form`` (:data:`FORMS`) of the TLUT build's front-end netlist ``pre``
    (Yosys JSON, ``frontend/pre.json``; ``params``: its parameter ports, as the front end found
    them). Returns (the new Yosys JSON document, its :class:`LoadMap`, the AIG whose inputs are the
    parameter bits (``port[i]``) and whose output i is register bit i's value).

    Raises:
        LoadRegisterError: the register needs more than 2^:data:`MAX_ADDR_BITS` words, or a held
            net reaches a clock pin or an inout port (one line naming the parameter).
        FrontendError: from :func:`dcsflow.flow.frontend.extract_logic`.
    """
    if form not in FORMS:
        raise LoadRegisterError(f"unknown register form {form!r}; forms: {', '.join(FORMS)}")
    ext, module = fe.extract_logic(pre, top, list(params), None)
    pports = dict(ext.param_ports)
    name_of, ibufs, carrier = _param_nets(module, pports)
    kind, _ = _net_kinds(module, set(name_of))
    held = _held_nets(module, form, kind, pports, carrier, ibufs)
    reg_nets = set(_held_nets(module, "register", kind, pports, carrier, ibufs)) if form != "register" else set(held)
    readers = _readers(module, ibufs)
    _check_drivable(module, held, name_of, readers)
    words = max(1, -(-len(held) // DATA_WIDTH))
    addr_bits = (words - 1).bit_length()
    if addr_bits > MAX_ADDR_BITS:
        widest = max(pports, key=pports.get) if pports else "?"
        raise LoadRegisterError(
            f"parameter {widest} ({pports.get(widest, 0)} bits): the {form} register needs {words} words of "
            f"{DATA_WIDTH} bits, more than the load port's 2^{MAX_ADDR_BITS}-word address allows")
    aig = _frontier_aig(module, held, name_of, pports)
    names = fe.net_names(module)
    clk = _clock(module)
    _cut(module, form, held, kind, ibufs, pports)
    clk, clock_name = _add_load_port(module, held, words, addr_bits, clk, names)
    lm = LoadMap(form=form, bits=len(held), words=words if held else 0, addr_bits=addr_bits, clock=clock_name,
                 sources=[name_of.get(b) or names.get(b, f"n{b}") for b in held], params=pports,
                 same_as_register=form != "register" and set(held) == reg_nets)
    doc = {"creator": "dcsflow register form", "modules": {top: module}}
    return doc, lm, aig


def _frontier_aig(module: dict, held: list, name_of: dict, pports: dict) -> Aig:
    """The AIG of the held nets as functions of the parameter bits (inputs ``port[i]`` in port
    order, every bit of every parameter port)."""
    gates = {n: c for n, c in module["cells"].items() if c["type"] in fe.GATE_TYPES}
    gate_out = {c["connections"]["Y"][0]: n for n, c in gates.items()}
    aig = Aig()
    lit: dict = {"0": 0, "1": 1, "x": 0, "z": 0}
    by_name = {}
    for p, w in pports.items():
        for i in range(w):
            n = f"{p}[{i}]" if w > 1 else p
            by_name[n] = aig.add_input(n)
    for b, n in name_of.items():
        lit[b] = by_name[n]
    for i, b in enumerate(held):
        aig.add_output(lit[b] if b in lit else fe._gate_literal(aig, gates, gate_out, lit, b), f"r{i}")
    return aig


def _cut(module: dict, form: str, held: list, kind: dict, ibufs: set, pports: dict) -> None:
    """Remove the parameter ports, their IBUFs and (``precomputed``) the parameter-only gates."""
    cells = module["cells"]
    for n in ibufs:
        del cells[n]
    if form == "precomputed":
        for n in [n for n, c in cells.items()
                  if c["type"] in fe.GATE_TYPES and kind.get(c["connections"]["Y"][0]) == "param"]:
            del cells[n]
    for p in pports:
        del module["ports"][p]
        module["netnames"].pop(p, None)


def _add_load_port(module: dict, held: list, words: int, addr_bits: int, clk, names: dict) -> tuple[int, str]:
    """Add the load port, its IBUFs, the address decoder gates and one flip-flop per held net
    (module docstring). Returns (the clock net, its name)."""
    cells, ports, nn = module["cells"], module["ports"], module["netnames"]
    nxt = [fe._max_bit(module) + 1]

    def new() -> int:
        nxt[0] += 1
        return nxt[0] - 1

    def port(name: str, width: int) -> list[int]:
        bits = [new() for _ in range(width)]
        ports[name] = {"direction": "input", "bits": bits}
        nn[name] = {"hide_name": 0, "bits": bits, "attributes": {}}
        outs = []
        for i, b in enumerate(bits):
            o = new()
            cells[f"$dcs$load$ibuf${name}${i}"] = {
                "hide_name": 1, "type": "IBUF", "parameters": {},
                "attributes": {"keep": "00000000000000000000000000000001"},
                "port_directions": {"I": "input", "O": "output"}, "connections": {"I": [b], "O": [o]}}
            outs.append(o)
        return outs

    def gate(kind: str, ins: dict) -> int:
        y = new()
        cells[f"$dcs$load$g{y}"] = {"hide_name": 1, "type": kind, "parameters": {}, "attributes": {},
                                    "port_directions": {**{p: "input" for p in ins}, "Y": "output"},
                                    "connections": {**{p: [b] for p, b in ins.items()}, "Y": [y]}}
        return y

    if clk is None:
        clk = port(CLK_PORT, 1)[0]
        clock_name = CLK_PORT
    else:
        clock_name = names.get(clk, f"n{clk}")
    if not held:
        return clk, clock_name
    data = port(DATA_PORT, DATA_WIDTH)
    addr = port(ADDR_PORT, addr_bits) if addr_bits else []
    we = port(WE_PORT, 1)[0]
    naddr = [gate("$_NOT_", {"A": a}) for a in addr]
    for w in range(words):
        en = we
        for j, a in enumerate(addr):
            en = gate("$_AND_", {"A": en, "B": a if w >> j & 1 else naddr[j]})
        for i in range(w * DATA_WIDTH, min(len(held), (w + 1) * DATA_WIDTH)):
            cells[f"$dcs$load$reg${i}"] = {
                "hide_name": 1, "type": FF_TYPE, "parameters": {}, "attributes": {},
                "port_directions": {"C": "input", "D": "input", "E": "input", "Q": "output", "R": "input"},
                "connections": {"C": [clk], "D": [data[i % DATA_WIDTH]], "E": [en], "Q": [held[i]], "R": ["0"]}}
    nn["dcs_load_reg"] = {"hide_name": 0, "bits": list(held), "attributes": {}}
    return clk, clock_name


def write_form(folder: Path, doc: dict, lm: LoadMap, aig: Aig) -> None:
    """Write a register form into ``folder``: ``pre.json`` (the netlist), ``load.json`` and
    ``load.aag`` (the register bits as functions of the parameters)."""
    folder.mkdir(parents=True, exist_ok=True)
    write_aiger(aig, folder / "load.aag", binary=False)
    write_text_atomic(folder / "load.json", lm.to_json())
    write_text_atomic(folder / "pre.json", json.dumps(doc))


def read_load_map(folder: Path) -> LoadMap:
    """The :class:`LoadMap` of ``folder/load.json``.

    Raises:
        LoadRegisterError: missing, not this format or a field of the wrong type (one line).
    """
    p = Path(folder) / "load.json"
    try:
        d = loads_json(read_input_text(p), str(p))
        if d.get("format") != LOAD_FORMAT or d.get("version") != 1:
            raise ValueError("not a dcsflow-load-map v1")
        lm = LoadMap(**{k: d[k] for k in ("form", "bits", "words", "addr_bits", "clock", "sources", "params",
                                          "same_as_register")})
        if not all(isinstance(getattr(lm, k), int) and getattr(lm, k) >= 0 for k in ("bits", "words", "addr_bits")):
            raise ValueError("bits, words and addr_bits must be whole numbers")
        if len(lm.sources) != lm.bits:
            raise ValueError("one source per register bit")
    except (OSError, KeyError, TypeError, ValueError) as e:
        raise LoadRegisterError(f"{p}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
    return lm


def load_values(folder: Path, values: dict[str, int]) -> list[int]:
    """The register bits of the form in ``folder`` for parameter values ``values`` (port -> int,
    bit i = port bit i; missing ports 0): what the host writes, bit i of the result = register bit i.

    Raises:
        LoadRegisterError: as :func:`read_load_map`.
    """
    lm = read_load_map(folder)
    aig = read_aiger(str(Path(folder) / "load.aag"))
    bits = {}
    for p, w in lm.params.items():
        v = int(values.get(p, 0))
        for i in range(w):
            bits[f"{p}[{i}]" if w > 1 else p] = v >> i & 1
    return aig.simulate(bits)


def simulation_view(module: dict, top: str, ports: dict, folder: Path, name: str | None = None) -> str:
    """Verilog (Yosys's cells_sim.v models) of a register form's finished candidate ``module`` behind
    the interface of the design's own top (``ports``: its Yosys JSON ports, the parameter ports
    among them), for simulations that drive the parameters as ports (a design's check of the
    conventional netlist, cycle counts): module ``top`` computes the register's value from its
    parameter ports with the form's AIG (``folder/load.aag``) and holds the candidate's register
    nets (``dcs_load_reg``) at it by ``force``, as if the host had loaded it; the load port is tied
    off. The candidate itself is module ``<top>__conv`` (:func:`dcsflow.flow.netlist.write_verilog`);
    ``name``: the wrapper's module name (default ``top``).

    Raises:
        LoadRegisterError: the form's files are missing or unreadable, or the netlist has no
            ``dcs_load_reg``.
    """
    from . import netlist as nl

    lm = read_load_map(folder)
    try:
        aig = read_aiger(str(Path(folder) / "load.aag"))
    except Exception as e:            # AigerError or OSError: one line
        raise LoadRegisterError(f"{folder}/load.aag: {e}") from None
    reg = module.get("netnames", {}).get("dcs_load_reg")
    if reg is None and lm.bits:
        raise LoadRegisterError(f"the {lm.form} candidate's netlist has no dcs_load_reg")
    core = nl.write_verilog(module, f"{top}__conv")
    used = {b for c in module["cells"].values() for bs in c["connections"].values() for b in bs}
    decl, conns = [], []
    for p, d in ports.items():
        w = len(d["bits"])
        decl.append(f"  {d['direction']} {'' if w == 1 else f'[{w - 1}:0] '}{p};")
        if p in module["ports"]:
            conns.append(f".{p}({p})")
    aw = len(module["ports"].get(ADDR_PORT, {}).get("bits", ()))
    tie = {DATA_PORT: f"{DATA_WIDTH}'d0", ADDR_PORT: f"{max(1, aw)}'d0", WE_PORT: "1'b0", CLK_PORT: "1'b0"}
    conns += [f".{p}({v})" for p, v in tie.items() if p in module["ports"]]

    def lit(x: int) -> str:
        v, neg = x >> 1, "~" if x & 1 else ""
        if v == 0:
            return "1'b1" if x & 1 else "1'b0"
        if v <= aig.num_inputs:
            n = aig.input_names[v - 1]
            return f"{neg}{n}"
        return f"{neg}dcs_a{v}"

    body = [f"  wire dcs_a{aig.first_and + i} = {lit(a)} & {lit(b)};" for i, (a, b) in enumerate(aig.ands)]
    body += [f"  wire dcs_r{i} = {lit(o)};" for i, o in enumerate(aig.outputs)]
    force = [f"    force core.n{b} = dcs_r{i};" for i, b in enumerate((reg or {}).get("bits", []))
             if isinstance(b, int) and b in used and i < len(aig.outputs)]
    wrap = [f"// {top} with its {lm.form} register held at the value its parameter ports give (simulation only)",
            f"module {name or top} ({', '.join(ports)});", *decl, *body,
            f"  {top}__conv core ({', '.join(conns)});",
            "  initial begin", *force, "  end", "endmodule"]
    return core + "\n".join(wrap) + "\n"
