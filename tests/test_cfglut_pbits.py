"""Parameter bits of a ``cfglut5`` build: TLUTs whose truth table reads one PPC output become FDREs
(:func:`dcsflow.flow.cfglut.param_bit_registers`) that the chains load as shift registers
(``core.v``, :func:`dcsflow.flow.cfglut.core_verilog`).

The simulation test runs ``core.v`` under Icarus with Yosys's own FDRE and CFGLUT5 models
(``cells_sim.v``): from all-zero flip-flops and INITs it shifts the words of random parameter-bit and
INIT values in through ``CFG_CDI`` and reads the outputs, which must show the chosen values (not a
figure of the code under test)."""

from __future__ import annotations

import random

import pytest

from dcsflow.flow import cfglut
from dcsflow.flow import netlist as nl
from dcsflow.flow.simulate import icarus
from dcsflow.flow.yosys import cells_sim
from dcsflow.tools import has_tool

needs_icarus = pytest.mark.skipif(not (has_tool("iverilog") and has_tool("vvp")), reason="Icarus Verilog not installed")
ONE = "00000000000000000000000000000001"


def _tlut(k: int, ins: list, out: int, ppc: list[int]) -> dict:
    return {"hide_name": 1, "type": f"LUT{k}", "parameters": {"INIT": "0" * (1 << k)},
            "attributes": {"dcs_tlut": ONE, "dcs_ppc": ",".join(map(str, ppc)) + ","},
            "port_directions": {**{f"I{j}": "input" for j in range(k)}, "O": "output"},
            "connections": {**{f"I{j}": [b] for j, b in enumerate(ins)}, "O": [out]}}


def module_with(n_bits: int) -> dict:
    """Ports a[1:0] (input), clk, y[n_bits+1:0]: y[0] a TLUT LUT2 on a, y[1] a LUT1 TLUT on a[0],
    y[2+i] parameter bit i (a TLUT LUT1 on constant 0 with both entries one PPC output, as the front
    end writes a TLUT without input), one design FF on clk."""
    cells = {"$dcs$t0": _tlut(2, [2, 3], 10, [0, 1, 2, 3]),
             "$dcs$t1": _tlut(1, [2], 11, [4, 5])}
    for i in range(n_bits):
        cells[f"$dcs$p{i}"] = _tlut(1, ["0"], 100 + i, [6 + i, 6 + i])
    cells["ff"] = {"type": "FDRE", "parameters": {"INIT": "0"}, "attributes": {},
                   "port_directions": {"C": "input", "CE": "input", "D": "input", "Q": "output", "R": "input"},
                   "connections": {"C": [4], "CE": ["1"], "D": [10], "Q": [12], "R": ["0"]}}
    return {"ports": {"a": {"direction": "input", "bits": [2, 3]}, "clk": {"direction": "input", "bits": [4]},
                      "y": {"direction": "output", "bits": [10, 11, *(100 + i for i in range(n_bits))]},
                      "f": {"direction": "output", "bits": [12]}},
            "cells": cells, "netnames": {}}


def test_conversion_makes_linked_registers():
    m = module_with(40)
    assert cfglut.param_bit_registers(m) == 40
    bits = cfglut.pbit_cells(m)
    assert bits == [f"$dcs$p{i}" for i in range(40)]
    for i, cn in enumerate(bits):
        c = m["cells"][cn]
        assert c["type"] == "FDRE" and nl.is_pbit(c) and not nl.is_tlut(c)
        assert c["connections"]["C"] == [4] and c["connections"]["CE"] == ["0"]        # the design's clock, held
        assert c["connections"]["D"] == (["0"] if i % 32 == 0 else [100 + i - 1])      # 32 per register
    assert nl.tlut_entries(m)["$dcs$p3"] == [9]
    st = nl.stats(m)
    assert (st.luts, st.tluts, st.ffs) == (2, 2, 41)
    lay = cfglut.module_layout(m, "ab" * 32, None)
    assert lay.cfglut5s == ["$dcs$t0", "$dcs$t1"] and lay.param_bits == 40
    assert [len(ms) for _, ms in lay.registers] == [32, 8]
    assert lay.chains[-1][-1] == lay.registers[-1][0]          # the short register ends the last chain
    assert cfglut.param_bit_registers(m) == 0                  # nothing left to convert


@needs_icarus
@pytest.mark.parametrize("n_bits, chain_luts", [(3, None), (3, 2), (40, None), (40, 4)])
def test_core_loads_parameter_bits_and_inits(tmp_path, n_bits, chain_luts):
    m = module_with(n_bits)
    cfglut.param_bit_registers(m)
    lay = cfglut.module_layout(m, "ab" * 32, chain_luts)
    rng = random.Random(n_bits * 7 + (chain_luts or 0))
    entries = {n: len(e) for n, e in nl.tlut_entries(m).items()}
    inits = {n: rng.getrandbits(e) for n, e in entries.items()}
    inits["$dcs$p0"] = 1                                        # at least one bit set, one clear
    inits["$dcs$p1"] = 0
    words = lay.words_for(inits, entries)
    s, c = lay.shift_cycles, lay.n_chains
    core = cfglut.core_verilog(m, "m", lay)
    wlines = "\n".join(f"    w[{i}] = 32'h{w:08x};" for i, w in enumerate(words))
    tb = f"""`timescale 1ns/1ps
module tb;
  reg clk = 0, ce = 0; reg [1:0] a = 0; reg [{c - 1}:0] cdi = 0;
  wire [{n_bits + 1}:0] y; wire f;
  reg [31:0] w [0:{len(words) - 1}];
  integer t, g, k;
  m_dcs_core dut (.a(a), .clk(clk), .y(y), .f(f), .dcs_cfg_clk(clk), .dcs_cfg_ce(ce), .dcs_cfg_cdi(cdi));
  always #5 clk = ~clk;
  initial begin
{wlines}
    @(negedge clk);
    ce = 1;
    for (t = 0; t < {s}; t = t + 1) begin
      for (k = 0; k < {c}; k = k + 1) cdi[k] = w[(k / 32) * {s} + t][k % 32];
      @(negedge clk);
    end
    ce = 0;
    for (g = 0; g < 4; g = g + 1) begin a = g; #1 $display("Y %0d %b", g, y); end
    $finish;
  end
endmodule
"""
    assert "dcs_cfg_clk" in core and "dcs_cfg_ce" in core and "dcs_cfg_cdi" in core
    (tmp_path / "core.v").write_text(core)
    (tmp_path / "tb.v").write_text(tb)
    out = icarus([tmp_path / "tb.v", tmp_path / "core.v", cells_sim()], tmp_path, top="tb", timeout=120).stdout
    rows = {int(f[1]): f[2][::-1] for f in (ln.split() for ln in out.splitlines()) if f and f[0] == "Y"}
    assert sorted(rows) == [0, 1, 2, 3], out[-1500:]
    for g, bits in rows.items():
        assert bits[0] == str((inits["$dcs$t0"] >> g) & 1)
        assert bits[1] == str((inits["$dcs$t1"] >> (g & 1)) & 1)
        assert bits[2:] == "".join(str(inits[f"$dcs$p{i}"]) for i in range(n_bits))


@pytest.mark.parametrize("n_bits, chain_luts", [(3, None), (40, 4), (70, 1)])
def test_core_declares_every_wire_before_its_first_use(n_bits, chain_luts):
    """Verilog-2005 (IEEE 1364-2005 4.5): a net used before its declaration becomes an implicit net,
    and a tool may refuse its later declaration; the chain elements are written in cell order, not
    chain order, so each CDO wire must be declared before every cell."""
    import re

    m = module_with(n_bits)
    cfglut.param_bit_registers(m)
    lay = cfglut.module_layout(m, "ab" * 32, chain_luts)
    m["cells"] = dict(reversed(m["cells"].items()))        # cell order is not chain order
    core = cfglut.core_verilog(m, "m", lay)
    declared = re.findall(r"^\s*wire (?:\[[^\]]*\] )?(\w+);", core, re.M)
    assert any(w.startswith("dcs_cdo_") for w in declared)
    for w in declared:
        first = re.search(rf"\b{w}\b", core)
        assert re.match(r"\s*wire ", core[core.rfind("\n", 0, first.start()) + 1:]), w
