"""Wide functions through the whole flow: an 8-bit keyed S-box (tests/data/flow/sbox8.v),
each output bit 4 TLUTs under 2 MUXF7 + 1 MUXF8 in one slice.

Independent references: UG474's slice structure (an F8 group is one slice, its four LUTs the F7s'
data inputs, no route-through needed), the frame map's size (64 INIT bits per TLUT), the RTL in
Icarus against the netlist rebuilt from frames specialized for a key (INITs decoded from the
frames, not taken from the mapper), and the SCG's own read-back of the emulated configuration memory.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from dcsflow.flow import netlist as nl
from dcsflow.flow.backend.verify import rebuild_module, specialize_frames
from dcsflow.flow.build import BuildOptions, build
from dcsflow.flow.specialize import load_build
from dcsflow.flow.yosys import cells_sim
from dcsflow.scg import cli
from dcsflow.scg.bitstream import FrameMemory

DATA = Path(__file__).parent / "data" / "flow"

TB = """
`timescale 1ns/1ps
module tb;
  reg clk = 0, load = 1; reg [7:0] key = 8'h%(key)s; reg [7:0] d = 0;
  wire [7:0] q_r, q_s;
  sbox8 rtl (.clk(clk), .load(load), .key(key), .d(d), .q(q_r));
  sbox8_frames spec (.clk(clk), .load(1'b0), .key(8'h00), .d(d), .q(q_s));
  integer i, bad = 0;
  initial begin
    #1 clk = 1; #1 clk = 0; load = 0;
    for (i = 0; i < 600; i = i + 1) begin
      d = i; #1 clk = 1; #1 clk = 0; #1;
      if (q_r !== q_s) bad = bad + 1;
    end
    $display("BAD %%0d", bad); $finish;
  end
endmodule
"""


@pytest.fixture(scope="module")
def sb(tmp_path_factory):
    out = tmp_path_factory.mktemp("sbox8") / "b"
    res = build(BuildOptions(design=str(DATA / "sbox8.v"), out=out, progress=False))
    return out, res.report


def test_tluts_sit_under_their_muxes(sb):
    out, rep = sb
    tm = json.loads((out / "tmap" / "netlist.json").read_text())
    assert tm["version"] == 3
    assert [m["type"] for m in tm["muxes"]].count("MUXF7") == 16 and [m["type"] for m in tm["muxes"]].count("MUXF8") == 8
    # 4 cofactor TLUTs per bit on d[0..5]; the selects are d[6], d[7] themselves (kb[6], kb[7] only
    # choose which quarter of the S-box each TLUT holds)
    assert len(tm["luts"]) == 32 and all("ppc" in lut and len(lut["inputs"]) == 6 for lut in tm["luts"])
    sels = {m["S"] for m in tm["muxes"]}
    assert len(sels) == 2 and sels <= set(tm["inputs"]) - set(tm["params"])
    cells = json.loads((out / "tlut" / "netlist.json").read_text())["modules"]["sbox8"]["cells"]
    types = [c["type"] for c in cells.values()]
    assert types.count("MUXF7") == 16 and types.count("MUXF8") == 8
    pl = json.loads((out / "tlut" / "placement.json").read_text())
    u = json.loads((out / "tlut" / "utilization.json").read_text())
    # UG474: one slice per F8 group, its four LUT sites the TLUTs feeding the two F7s
    assert (u["slices"], u["tluts"], u["route_throughs"], u["muxf7"], u["muxf8"]) == (8, 32, 0, 16, 8)
    assert sum(1 for s in pl["slices"] if s["muxf8"]) == 8
    for s in pl["slices"]:
        assert s["tlut"] and s["muxf8"] and [e["kind"] for e in s["luts"]] == ["tlut"] * 4
        by_bel = {e["bel"]: e["o6"] for e in s["luts"]}
        f7a, f7b = (cells[m]["connections"] for m in s["muxf7"])
        drv = {n: cells[n]["connections"]["O"][0] for n in by_bel.values()}
        assert (drv[by_bel["A6LUT"]], drv[by_bel["B6LUT"]]) in ((f7a["I0"][0], f7a["I1"][0]), (f7a["I1"][0], f7a["I0"][0]))
        assert {drv[by_bel["C6LUT"]], drv[by_bel["D6LUT"]]} == {f7b["I0"][0], f7b["I1"][0]}
    fm = json.loads((out / "tlut" / "framemap.json").read_text())
    assert len(fm["entries"]) == 32 * 64
    t = rep["tlut"]
    assert (t["luts"], t["tluts"], t["muxf7"], t["muxf8"], t["depth"]) == (32, 32, 16, 8, 1)


def test_cofactor_tluts_are_patched_as_affine_rows(sb):
    """The SCG's affine row patching (scg.affine, checked there against the PPC on random keys)
    covers every cofactor TLUT: each holds the quarter of the S-box chosen by kb[6], kb[7], index
    XORed by kb[0..5] (four candidate V0 per row)."""
    from dcsflow.scg.affine import affine_rows
    from dcsflow.scg.buildfolder import load_build as scg_load

    out, _ = sb
    tm = json.loads((out / "tmap" / "netlist.json").read_text())
    cofactors = {f"$dcs${lut['name']}" for lut in tm["luts"] if len(lut["inputs"]) == 6}
    rows, covered = affine_rows(scg_load(out))
    assert len(cofactors) == 32 and {r.name for r in rows} == cofactors and len(covered) == 32 * 64
    assert all(len(r.v0s) == 4 and len(set(r.v0s)) == 4 for r in rows)


@pytest.mark.parametrize("key,rtl_key", [(0x00, 0x00), (0x5C, 0x5C), (0xFF, 0xFF), (0x5C, 0x5D)])
def test_frames_specialized_for_a_key_match_the_rtl(sb, tmp_path, key, rtl_key):
    """Frames specialized for ``key`` against the RTL loaded with ``rtl_key`` (the last case: another
    key, which must show, so the comparison can fail)."""
    out, _ = sb
    b = load_build(out)
    pl = json.loads((out / "tlut" / "placement.json").read_text())
    fm = json.loads((out / "tlut" / "framemap.json").read_text())
    tmpl = FrameMemory.from_frm((out / "tlut" / "template.frm").read_text())
    mem = specialize_frames(tmpl, [tuple(e) for e in fm["entries"]], b.ppc.evaluate({"key": key}))
    assert not mem.ecc_mismatches()
    mod = rebuild_module(b.module, pl, mem.get_lut)
    (tmp_path / "spec.v").write_text(nl.write_verilog(mod, "sbox8_frames"))
    (tmp_path / "tb.v").write_text(TB % {"key": f"{rtl_key:02x}"})
    exe = tmp_path / "sim.vvp"
    subprocess.run(["iverilog", "-g2012", "-o", str(exe), str(tmp_path / "tb.v"), str(DATA / "sbox8.v"),
                    str(tmp_path / "spec.v"), str(cells_sim())], check=True, capture_output=True, text=True)
    r = subprocess.run(["vvp", "-n", str(exe)], check=True, capture_output=True, text=True).stdout
    bad = int(r.split("BAD ")[1].split()[0])
    assert (bad == 0) == (key == rtl_key), r


def test_scg_rekeys_and_reads_back(sb, capsys):
    out, _ = sb
    for key in ("a5", "3c"):
        rc = cli.main(["rekey", str(out), "--param", f"key={key}", "--to", "emulator", "--verify"])
        o, e = capsys.readouterr()
        assert rc == 0 and "read-back verified" in o and e == "", (o, e)


@pytest.mark.parametrize("style", ["straight", "table"])
def test_firmware_patches_quarter_rows_like_python(sb, tmp_path, style):
    """The generated C (``codegen``, quarter choice by masks) on the host: frames after each rekey
    equal the Python SCG's plan word for word (the plan evaluates the PPC entry by entry, not the
    affine rows), for keys that choose each of the four quarters."""
    import os
    import re
    import sys

    from dcsflow.flow.paths import REPO_ROOT
    from dcsflow.scg import buildfolder as bf, plan as pl

    out, _ = sb
    gen, fw = tmp_path / "gen", tmp_path / "fw"
    subprocess.run([sys.executable, "-m", "dcsflow.flow", "codegen", str(out), "--out", str(gen), "--style", style],
                   cwd=REPO_ROOT, check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    src = (gen / "scg_gen.c").read_text()
    assert "s3 = 0u - ((((e ^ 3u) - 1u) >> 31) & 1u);" in src, "the quarter choice is generated"
    subprocess.run(["make", "-s", "-C", str(REPO_ROOT / "firmware"), f"GEN={gen}", f"BUILD={fw}", "host"],
                   check=True, capture_output=True)
    keys = ["00", "40", "80", "c0", "5c", "a3"]          # bits 6, 7 choose the quarter
    cmds = ["verify on"]
    for k in keys:
        cmds += [f"rekey {k}", "dump"]
    text = subprocess.run([str(fw / "host" / "scg_host"), *cmds], capture_output=True, text=True, check=True,
                          timeout=60).stdout
    assert text.startswith("init rc=0"), text[:200]
    b = bf.load_build(out)
    dumps = [[line.split() for line in blk.strip().splitlines()] for blk in re.split(r"^rekey .*$", text, flags=re.M)[1:]]
    assert len(dumps) == len(keys)
    for k, dump in zip(keys, dumps):
        want = pl.plan(b, {"key": int(k, 16)}).frames
        got = {int(d[1], 16): [int(w, 16) for w in d[2:]] for d in dump if d and d[0] == "frame"}
        assert got == want, k
