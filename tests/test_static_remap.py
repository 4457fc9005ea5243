"""flow.static_remap: ABC re-maps a TLUT netlist's static logic, TLUTs untouched, within a LUT-depth
bound; the kept netlist is checked by simulation against the original (composed with a PPC)."""

from __future__ import annotations

import random

from dcsflow.aig import Aig
from dcsflow.flow import static_remap as sr
from dcsflow.flow.netlist import cell_levels, lut_depth
from dcsflow.tmap.netlist import Lut, Mux, TlutNetlist, compose


XOR2, AND2 = 0b0110, 0b1000


def _module(net: TlutNetlist) -> dict:
    """A Yosys-JSON-like module of ``net``: cells ``$dcs$<name>`` (what the flow's finish makes)."""
    bit = {}

    def b(x):
        if x not in bit:
            bit[x] = 10 + len(bit)
        return bit[x]

    ports = {n: {"direction": "input", "bits": [b(n)]} for n in net.inputs + net.params}
    cells = {}
    for c in net.cells():
        if isinstance(c, Mux):
            cells[f"$dcs${c.name}"] = {"type": c.kind, "connections": {"I0": [b(c.i0)], "I1": [b(c.i1)],
                                                                       "S": [b(c.s)], "O": [b(c.name)]},
                                       "port_directions": {"I0": "input", "I1": "input", "S": "input", "O": "output"}}
        else:
            k = len(c.inputs)
            conns = {f"I{j}": [b(x)] for j, x in enumerate(c.inputs)}
            conns["O"] = [b(c.name)]
            cells[f"$dcs${c.name}"] = {"type": f"LUT{max(k, 1)}", "connections": conns,
                                       "port_directions": {**{f"I{j}": "input" for j in range(k)}, "O": "output"}}
    for o, d in net.outputs:
        ports[o] = {"direction": "output", "bits": [b(d)]}
    return {"ports": ports, "cells": cells, "netnames": {}}


def _netlist() -> tuple[TlutNetlist, Aig]:
    """A TLUT t (parameter-driven entries, inputs a0..a5) feeding a badly mapped static parity chain
    over t and x0..x7: one 2-input LUT per XOR (9 LUTs, 9 levels); ABC needs 2 LUTs for it."""
    ins = [f"a{i}" for i in range(6)] + [f"x{i}" for i in range(8)]
    params = [f"p{i}" for i in range(64)]
    ppc = Aig()
    for p in params:
        ppc.add_input(p)
    for i in range(64):
        ppc.add_output(2 * (1 + i), f"e{i}")            # entry i = parameter i
    luts = [Lut("t", [f"a{i}" for i in range(6)], None, list(range(64)))]
    prev = "t"
    for i in range(8):
        luts.append(Lut(f"c{i}", [prev, f"x{i}"], XOR2))
        prev = f"c{i}"
    luts.append(Lut("g", ["c7", "a0"], AND2))
    net = TlutNetlist(6, ins, params, luts, [("y", "g"), ("z", "c3")])
    return net, ppc


def _same(n1: TlutNetlist, n2: TlutNetlist, ppc: Aig) -> bool:
    names = n1.inputs + n1.params
    g1, g2 = compose(n1, ppc, names), compose(n2, ppc, names)
    rng = random.Random(7)
    iv = {n: rng.getrandbits(256) for n in names}
    return g1.simulate(iv, width=256) == g2.simulate(iv, width=256)


def test_recover_shrinks_the_static_logic_and_keeps_the_tlut_and_the_function():
    net, ppc = _netlist()
    base = _module(net)
    assert lut_depth(base) == 10
    better, rec = sr.recover(net, _module, base, bound=None)
    assert rec["result"] == "kept" and better is not None
    assert rec["luts_before"] == 10 and rec["luts_after"] < 10 == len(net.luts)
    assert rec["depth"] <= rec["bound"] == 10
    tl = [c for c in better.luts if c.is_tlut]
    assert [(c.name, c.inputs, c.ppc) for c in tl] == [("t", [f"a{i}" for i in range(6)], list(range(64)))]
    assert all(c.name.startswith(sr.PREFIX) for c in better.luts if not c.is_tlut)
    assert _same(net, better, ppc)


def test_recover_keeps_nothing_that_is_deeper_than_the_bound():
    # a shallow, already small static part: ABC cannot beat it, so TMAP's netlist stays
    net = TlutNetlist(6, ["a", "b", "x"], ["p0", "p1", "p2", "p3"],
                      [Lut("t", ["a", "b"], None, [0, 1, 2, 3]), Lut("y1", ["t", "x"], XOR2)], [("y", "y1")])
    better, rec = sr.recover(net, _module, _module(net))
    assert better is None and rec["result"].startswith("not kept")
    assert all(c["depth"] > rec["bound"] or c["luts"] >= 2 for c in rec["candidates"])


def test_tlut_region_takes_the_muxes_of_wide_tluts_and_remap_leaves_them():
    ins = ["a0", "a1", "a2", "a3", "a4", "a5", "s", "x"]
    luts = [Lut("q0", ins[:6], None, list(range(64))), Lut("q1", ins[:6], None, list(range(64, 128))),
            Lut("u", ["s", "x"], XOR2), Lut("v", ["w", "x"], AND2)]
    net = TlutNetlist(6, ins, [f"p{i}" for i in range(128)], luts, [("y", "v")],
                      muxes=[Mux("w", "MUXF7", "q0", "q1", "u")])
    assert sr.tlut_region(net) == {"q0", "q1", "w"}
    kept = sr.tlut_region(net)
    got, moved, became = sr.remap(net, kept)
    assert moved == 2
    assert [m.name for m in got.muxes] == ["w"] and {"q0", "q1"} <= {c.name for c in got.luts}
    ppc = Aig()
    for p in net.params:
        ppc.add_input(p)
    for i in range(128):
        ppc.add_output(2 * (1 + i))
    assert _same(net, got, ppc)


def test_tail_cells_are_the_ends_of_the_critical_paths():
    net, _ = _netlist()
    base = _module(net)
    # critical path: t, c0..c7, g (10 levels); the last 3 levels: c6, c7, g (the TLUT is never taken)
    levels = cell_levels(base)
    assert sr.tail_cells(net, levels, 3) == {"c6", "c7", "g"}
    assert sr.tail_cells(net, levels, 0) == set()


def test_a_candidate_abc_cannot_make_is_skipped_not_fatal(monkeypatch):
    net, _ = _netlist()

    def broken(*a, **k):
        raise sr.BaselineError("ABC wrote no netlist")

    monkeypatch.setattr(sr, "_abc_map", broken)
    better, rec = sr.recover(net, _module, _module(net))
    assert better is None and rec["result"].startswith("not kept")
    assert rec["candidates"] and all(c["failed"] == "ABC wrote no netlist" for c in rec["candidates"])


def test_a_constant_the_kept_cells_read_stays_a_constant_net_not_a_lut_without_inputs():
    # k = x0 AND NOT x0 is 0: ABC makes it a constant output; the TLUT t (kept) reads it. The re-import
    # refuses a static LUT without inputs (flow.frontend._lut_cell), so the constant must stay a net.
    params = ["p0", "p1", "p2", "p3"]
    ppc = Aig()
    for p in params:
        ppc.add_input(p)
    for i in range(4):
        ppc.add_output(2 * (1 + i), f"e{i}")
    luts = [Lut("k", ["x0", "x0"], AND2 & 0b0110), Lut("t", ["k", "a"], None, [0, 1, 2, 3])]
    luts += [Lut(f"c{i}", ["t" if i == 0 else f"c{i - 1}", f"x{i + 1}"], XOR2) for i in range(4)]
    net = TlutNetlist(6, ["a"] + [f"x{i}" for i in range(5)], params, luts, [("y", "c3"), ("z", "k")])
    got = sr.remap(net, sr.tlut_region(net))
    assert got is not None
    out = got[0]
    assert all(c.inputs for c in out.luts if not c.is_tlut)
    t = next(c for c in out.luts if c.name == "t")
    assert t.inputs[0] == "0" and dict(out.outputs)["z"] == "0"
    assert _same(net, out, ppc)
