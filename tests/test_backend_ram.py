"""Distributed RAM in the built-in back end: RAM64M / RAM64X1D / RAM64X1S packed into SLICEMs (UG474
"Distributed RAM"), placed on SLICEM sites outside the TLUT frame sets, counted in the utilization,
their INITs in the template; and a small register-file design through ``dcsflow build`` whose
specialized frames simulate like the RTL (Icarus, independent reference)."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from dcsflow.flow.backend.config import configure
from dcsflow.flow.backend.pack import PackError, pack
from dcsflow.flow.backend.place import ROWS_PER_REGION, place
from dcsflow.scg.device import get_device

LETTERS = "ABCD"


def _lut(k, ins, out, tlut=False):
    c = {"type": f"LUT{k}", "parameters": {"INIT": format(0x6996 % (1 << (1 << k)), f"0{1 << k}b")},
         "attributes": {}, "port_directions": {**{f"I{i}": "input" for i in range(k)}, "O": "output"},
         "connections": {**{f"I{i}": [ins[i]] for i in range(k)}, "O": [out]}}
    if tlut:
        c["attributes"] = {"dcs_tlut": "1", "dcs_ppc": ",".join(str(i % 5) for i in range(1 << k)) + ","}
    return c


def _ff(d, q, clk):
    return {"type": "FDRE", "parameters": {}, "attributes": {},
            "port_directions": {"C": "input", "CE": "input", "D": "input", "R": "input", "Q": "output"},
            "connections": {"C": [clk], "CE": ["1"], "D": [d], "R": ["0"], "Q": [q]}}


def _ram64m(base, inits, clk, we, di):
    """RAM64M with read addresses base.., outputs base+30.., INIT_A..D = ``inits``."""
    con = {f"ADDR{x}": [base + 6 * i + j for j in range(6)] for i, x in enumerate(LETTERS)}
    con.update({f"DI{x}": [di] for x in LETTERS})
    con.update({f"DO{x}": [base + 30 + i] for i, x in enumerate(LETTERS)})
    con.update({"WCLK": [clk], "WE": [we]})
    dirs = {p: ("output" if p.startswith("DO") else "input") for p in con}
    return {"type": "RAM64M", "attributes": {}, "port_directions": dirs, "connections": con,
            "parameters": {f"INIT_{x}": format(v, "064b") for x, v in zip(LETTERS, inits)}}


def _ram64x1d(base, init, clk, we, di):
    con = {**{f"A{j}": [base + j] for j in range(6)}, **{f"DPRA{j}": [base + 6 + j] for j in range(6)},
           "D": [di], "WCLK": [clk], "WE": [we], "SPO": [base + 30], "DPO": [base + 31]}
    dirs = {p: ("output" if p in ("SPO", "DPO") else "input") for p in con}
    return {"type": "RAM64X1D", "attributes": {}, "port_directions": dirs, "connections": con,
            "parameters": {"INIT": format(init, "064b")}}


def _module(n_ram=5, n_tlut=12, seed=3):
    """RAM64Ms (random INITs) + one RAM64X1D, TLUTs and static LUTs reading the RAM outputs, FFs on
    the RAM's write clock (net 2) and on a second clock (net 3). Returns (module, INIT per (cell, letter))."""
    rng = random.Random(seed)
    cells, inits = {}, {}
    outs = []
    for r in range(n_ram):
        iv = [rng.getrandbits(64) for _ in LETTERS]
        cells[f"rf{r}"] = _ram64m(1000 + 100 * r, iv, 2, 4, 5)
        inits.update({(f"rf{r}", x): v for x, v in zip(LETTERS, iv)})
        outs += [1000 + 100 * r + 30 + i for i in range(4)]
    d_init = rng.getrandbits(64)
    cells["dp"] = _ram64x1d(9000, d_init, 2, 4, 5)
    inits.update({("dp", "D"): d_init, ("dp", "C"): d_init})
    outs += [9030, 9031]
    for t in range(n_tlut):
        cells[f"t{t}"] = _lut(4, [outs[(t + j) % len(outs)] for j in range(4)], 20000 + t, tlut=True)
    for k in range(10):
        cells[f"l{k}"] = _lut(3, [outs[k % len(outs)], 20000 + k % n_tlut, outs[-1 - k % len(outs)]], 21000 + k)
    for k in range(10):
        cells[f"fa{k}"] = _ff(21000 + k, 22000 + k, 2)
        cells[f"fb{k}"] = _ff(outs[k % len(outs)], 23000 + k, 3)
    return {"cells": cells}, inits


def test_rams_take_whole_slicems_and_are_counted():
    m, inits = _module()
    p = pack(m)
    ram_slices = [s for s in p.slices if s.ram]
    assert len(ram_slices) == 6                                  # 5 RAM64M + 1 RAM64X1D, one SLICEM each
    assert all(s.slicem and not s.tlut for s in ram_slices)
    u = p.utilization()
    assert u["ram_slices"] == 6 and u["rams"] == {"RAM64M": 5, "RAM64X1D": 1}
    assert u["lutram_sites"] == 5 * 4 + 2
    assert u["slicem"] == 6                                      # nothing else needs a SLICEM here
    assert u["luts"] == 12 + 10                                  # logical LUTs: RAM ports not among them
    assert u["lut_sites"] >= 22 + u["lutram_sites"] - 5 * 2      # every RAM site is a LUT site
    for s in ram_slices:
        kinds = [x.kind if x else None for x in s.luts]
        if m["cells"][s.ram]["type"] == "RAM64M":
            assert kinds == ["ram"] * 4
        else:
            assert kinds == [None, None, "ram", "ram"]           # UG474: RAM64X1D in LUTs C (DPO) and D (SPO)
        for f, _ in s.ffs:                                       # one CLK per slice: the RAM's write clock
            assert m["cells"][f]["connections"]["C"] == [2]
    # each read port's pins are its address bits in order
    a = next(s for s in ram_slices if s.ram == "rf1")
    assert a.luts[2].pins == m["cells"]["rf1"]["connections"]["ADDRC"]


def test_ram_slices_placed_on_slicem_outside_tlut_frame_sets_with_init_in_template():
    dev = get_device("xc7z020")
    m, inits = _module()
    p = pack(m)
    pl = place(p, m, dev, seed=2, effort=0.3)
    tl_sets = {(dev.sites[pl.sites[i]].x, dev.sites[pl.sites[i]].y // ROWS_PER_REGION)
               for i, s in enumerate(p.slices) if s.tlut}
    conf = configure(p, pl, dev)
    for i, s in enumerate(p.slices):
        if not s.ram:
            continue
        site = dev.sites[pl.sites[i]]
        assert site.kind == "SLICEM"
        assert (site.x, site.y // ROWS_PER_REGION) not in tl_sets
        for li, ls in enumerate(s.luts):
            if ls is not None:
                # INIT bit a = the word at address a, address bit j on pin A(j+1): the INIT as given
                assert conf.memory.get_lut(pl.sites[i], f"{LETTERS[li]}6LUT") == inits[(s.ram, LETTERS[li])]
    # no RAM bit in the frame map, every TLUT bit is
    assert len(conf.entries) == 64 * 12


def test_many_rams_fit_the_slicem_budget_of_the_region():
    """More RAM slices than the SLICEM sites a greedy fill would leave (the ppe register file case)."""
    dev = get_device("xc7z020")
    m, _ = _module(n_ram=70, n_tlut=40)
    for k in range(300):
        m["cells"][f"x{k}"] = _lut(2, [1000 + (k % 70) * 100 + 30, 20000 + k % 40], 30000 + k)
    p = pack(m)
    pl = place(p, m, dev, seed=1, effort=0.05)
    assert len(set(pl.sites)) == len(pl.sites)
    assert all(dev.sites[pl.sites[i]].kind == "SLICEM" for i, s in enumerate(p.slices) if s.slicem)


def test_unsupported_distributed_ram_named():
    m, _ = _module(n_ram=1, n_tlut=1)
    m["cells"]["q"] = {"type": "RAM32M", "parameters": {}, "attributes": {}, "port_directions": {}, "connections": {}}
    with pytest.raises(PackError, match="RAM32M.*no model.*RAM64M"):
        pack(m)
    m, _ = _module(n_ram=1, n_tlut=1)
    m["cells"]["rf0"]["parameters"]["IS_WCLK_INVERTED"] = "1"
    with pytest.raises(PackError, match="inverted write clock"):
        pack(m)


RFX = """module rfx (input clk, input we, input [5:0] wa, input [5:0] ra, input [5:0] rb, input [7:0] wd,
            (* PARAM *) input [7:0] key, output [7:0] qa, output reg [7:0] qb);
  reg [7:0] rf [0:63];
  always @(posedge clk) if (we) rf[wa] <= wd ^ key;
  assign qa = rf[ra];
  always @(posedge clk) qb <= rf[rb] ^ {key[3:0], key[7:4]};
endmodule
"""

TB = """`timescale 1ns/1ps
module tb;
  reg clk = 0, we = 0; reg [5:0] wa = 0, ra = 0, rb = 0; reg [7:0] wd = 0;
  wire [7:0] qa_r, qb_r, qa_s, qb_s;
  rfx rtl (.clk(clk), .we(we), .wa(wa), .ra(ra), .rb(rb), .wd(wd), .key(8'h%(key)s), .qa(qa_r), .qb(qb_r));
  rfx_frames spec (.clk(clk), .we(we), .wa(wa), .ra(ra), .rb(rb), .wd(wd), .key(8'h00), .qa(qa_s), .qb(qb_s));
  integer i, bad = 0, seen = 0;
  initial begin
    for (i = 0; i < 64; i = i + 1) begin we = 1; wa = i; wd = $random; #1 clk = 1; #1 clk = 0; end
    for (i = 0; i < 400; i = i + 1) begin
      we = $random; wa = $random; wd = $random; ra = $random; rb = $random; #1 clk = 1; #1 clk = 0; #1;
      if (qa_r !== qa_s || qb_r !== qb_s) bad = bad + 1;
      if (qa_r !== 8'h00) seen = seen + 1;
    end
    $display("BAD %%0d SEEN %%0d", bad, seen); $finish;
  end
endmodule
"""


@pytest.fixture(scope="module")
def rfx(tmp_path_factory):
    from dcsflow.flow.build import BuildOptions, build

    d = tmp_path_factory.mktemp("rfx")
    (d / "rfx.v").write_text(RFX)
    res = build(BuildOptions(design=str(d / "rfx.v"), out=d / "b", progress=False))
    return d, d / "b", res.report


def test_register_file_design_through_the_back_end(rfx):
    d, out, rep = rfx
    # reference count from the TLUT netlist itself, not from the packer
    mod = next(iter(json.loads((out / "tlut" / "netlist.json").read_text())["modules"].values()))
    n_ram = sum(1 for c in mod["cells"].values() if c["type"] == "RAM64M")
    assert n_ram >= 2
    u = rep["backend"]["tlut"]
    assert u["ram_slices"] == n_ram and u["rams"] == {"RAM64M": n_ram} and u["lutram_sites"] == 4 * n_ram
    assert u["slicem"] >= n_ram and u["slices"] > n_ram
    dev = get_device("xc7z020")
    pl = json.loads((out / "tlut" / "placement.json").read_text())
    ram_sites = [s["site"] for s in pl["slices"] if s.get("ram")]
    assert len(ram_sites) == n_ram and all(dev.sites[x].kind == "SLICEM" for x in ram_sites)
    fm = json.loads((out / "tlut" / "framemap.json").read_text())
    # no frame a rekey writes holds a RAM's LUT bits
    ram_fars = {far for x in ram_sites for b in "ABCD" for far, _, _ in dev.lut_bits(x, f"{b}6LUT")}
    assert ram_fars.isdisjoint({e[0] for e in fm["entries"]})


@pytest.mark.parametrize("key", [0x00, 0x5A])
def test_register_file_specialized_frames_simulate_like_rtl(rfx, key):
    from dcsflow.flow import netlist as nl
    from dcsflow.flow.backend.verify import rebuild_module, specialize_frames
    from dcsflow.flow.specialize import load_build
    from dcsflow.flow.yosys import cells_sim
    from dcsflow.scg.bitstream import FrameMemory

    d, out, _ = rfx
    b = load_build(out)
    pl = json.loads((out / "tlut" / "placement.json").read_text())
    fm = json.loads((out / "tlut" / "framemap.json").read_text())
    tmpl = FrameMemory.from_frm((out / "tlut" / "template.frm").read_text())
    mem = specialize_frames(tmpl, [tuple(e) for e in fm["entries"]], b.ppc.evaluate({"key": key}))
    module = b.module
    rebuilt = rebuild_module(module, pl, mem.get_lut)
    assert sum(1 for c in rebuilt["cells"].values() if c["type"] == "RAM64M") == \
        sum(1 for c in module["cells"].values() if c["type"] == "RAM64M")
    text = nl.write_verilog(rebuilt, "rfx_frames")
    w = d / f"k{key}"
    w.mkdir()
    (w / "spec.v").write_text(text)
    (w / "tb.v").write_text(TB % {"key": f"{key:02x}"})
    subprocess.run(["iverilog", "-g2012", "-o", str(w / "sim.vvp"), str(w / "tb.v"), str(d / "rfx.v"),
                    str(w / "spec.v"), str(cells_sim())], check=True, capture_output=True, text=True)
    res = subprocess.run(["vvp", "-n", str(w / "sim.vvp")], check=True, capture_output=True, text=True).stdout
    assert "BAD 0" in res and "SEEN 0" not in res
