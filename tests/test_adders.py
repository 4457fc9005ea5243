"""Parameters through arithmetic: every way of marking a parameter input reaches the multiplier
rewrite, adders fed by parameter inputs go to the LUT mapper where each output bit fits one TLUT
(``--adders``), and a parameter reaching a DSP48E1 is one clear error.

Independent references: the ripple-carry techmap is proved equal to Yosys's own ``$add``/``$sub``
by Yosys's SAT solver; the support figures of :func:`dcsflow.flow.adders.decide` are counted by
hand from the netlists written below; the TLUT figures of the tree multiplier (one TLUT per product
bit, LUT depth 1) are the published TLUT flow's for a 4-bit regular operand at K = 4 (each product
bit is a function of the 4 regular bits). Every build verifies its own netlists (PPC o template
== extracted logic, and the front-end check simulates the RTL against the front end's netlist).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from dcsflow.flow.adders import AdderError, check_mode, decide, name_pattern, ripple_map
from dcsflow.tools import find_tool

MULP = """module mulp (
  input clk,
  input [7:0] x,
{open}  input [7:0] coef,{close}
  output reg [15:0] y
);
  always @(posedge clk) y <= x * coef;
endmodule
"""

#: 4-bit regular operand times an 8-bit parameter: rows summed by a tree of adders (no `*`)
TREE4 = """module tree4 (input [3:0] a, (* PARAM *) input [7:0] b, output [11:0] p);
  wire [11:0] r0 = a[0] ? {4'd0, b} : 12'd0;
  wire [11:0] r1 = a[1] ? {3'd0, b, 1'd0} : 12'd0;
  wire [11:0] r2 = a[2] ? {2'd0, b, 2'd0} : 12'd0;
  wire [11:0] r3 = a[3] ? {1'd0, b, 3'd0} : 12'd0;
  wire [11:0] s0 = r0 + r1;
  wire [11:0] s1 = r2 + r3;
  assign p = s0 + s1;
endmodule
"""


def _cells(netlist: Path) -> dict[str, int]:
    doc = json.loads(netlist.read_text())
    (mod,) = doc["modules"].values()
    out: dict[str, int] = {}
    for c in mod["cells"].values():
        out[c["type"]] = out.get(c["type"], 0) + 1
    return out


# ------------------------------------------------------------------------------ units

def test_ripple_techmap_equals_yosys_adders(tmp_path):
    """SAT proof (Yosys miter): the techmapped copy equals $add/$sub, signed and unsigned, with
    operands narrower and wider than the result."""
    (tmp_path / "t.v").write_text("""
module t(input [5:0] a, input [3:0] b, input signed [4:0] sa, input signed [2:0] sb,
         output [6:0] y1, output [5:0] y2, output signed [5:0] y3, output signed [6:0] y4, output [2:0] y5);
  assign y1 = a + b;
  assign y2 = a - b;
  assign y3 = sa + sb;
  assign y4 = sa - sb;
  assign y5 = a - b;
endmodule
""")
    script = f"""read_verilog t.v
proc
copy t g
techmap -map "{ripple_map()}" g
tee -o left.txt select -count g/t:$add g/t:$sub
miter -equiv -flatten -make_assert t g m
sat -verify -prove-asserts m
"""
    (tmp_path / "t.ys").write_text(script)
    r = subprocess.run([find_tool("yosys"), "-q", "-s", "t.ys"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 objects" in (tmp_path / "left.txt").read_text()


def _cell(t, conns, dirs, **par):
    return {"type": t, "connections": conns, "port_directions": dirs, "parameters": par, "attributes": {}}


ADD = {"A": "input", "B": "input", "Y": "output"}
AND = ADD


def test_decide_partial_products_fit_a_tlut_and_a_regular_sum_does_not():
    """r0 = x0 & P[1:0], r1 = x1 & P[1:0] (bits 2..7 and 10..11 as nets): r0 + r1 depends on x0, x1 only
    (support 2 <= K); x[1:0] + P[1:0] depends on x0..x1 at its top bit, x[3:0] + P depends on 4 regular
    bits: with K = 3 the first two go to logic, the 4-bit one stays a chain; an adder without a parameter
    is not listed."""
    x = [20, 21, 22, 23]
    p = [2, 3]
    cells = {
        "and0": _cell("$and", {"A": [x[0], x[0]], "B": p, "Y": [4, 5]}, AND),
        "and1": _cell("$and", {"A": [x[1], x[1]], "B": p, "Y": [6, 7]}, AND),
        "rows": _cell("$add", {"A": [4, 5], "B": [6, 7], "Y": [8, 9, 10]}, ADD),
        "xp2": _cell("$add", {"A": x[:2], "B": p, "Y": [11, 12, 13]}, ADD),
        "xp4": _cell("$add", {"A": x, "B": p, "Y": [14, 15, 16, 17, 18]}, ADD),
        "plain": _cell("$add", {"A": x[:2], "B": x[2:], "Y": [30, 31]}, ADD),
    }
    d = decide({"cells": cells}, set(p), 3)
    assert sorted(d.logic) == ["rows", "xp2"] and d.carry == ["xp4"]
    assert d.support == {"rows": 2, "xp2": 2, "xp4": 4}


def test_decide_follows_a_key_buffer_register():
    """A load-enable register of the parameter (Q = en ? P : Q) is a parameter register: an adder of
    it and one regular bit fits a TLUT."""
    p, q, x = [2], [3], [9]
    cells = {
        "mux": _cell("$mux", {"A": q, "B": p, "S": [8], "Y": [4]}, {"A": "input", "B": "input", "S": "input",
                                                                  "Y": "output"}),
        "reg": _cell("$dff", {"CLK": [7], "D": [4], "Q": q}, {"CLK": "input", "D": "input", "Q": "output"}),
        "add": _cell("$add", {"A": x, "B": q, "Y": [10, 11]}, ADD),
    }
    d = decide({"cells": cells}, set(p), 1)
    assert d.logic == ["add"] and d.support == {"add": 1}


def test_mode_and_name_pattern():
    assert check_mode("auto") == "auto"
    with pytest.raises(AdderError, match="--adders 'ripple': use one of auto, carry, logic"):
        check_mode("ripple")
    assert name_pattern("$flatten\\mul.$add$/x y/top.v:80$5") == "c:$flatten?mul.$add$/x?y/top.v:80$5"


# ------------------------------------------------------------------------------ builds

@pytest.mark.parametrize("mode", ["auto", "carry"])
def test_tree_multiplier_adders(dcsflow, tmp_path, mode):
    """auto: the three adders go to the LUT mapper; every product bit is one TLUT of the 4 regular
    bits, LUT depth 1, no CARRY4 (the published figure: 12 LUTs, depth 1). carry: CARRY4 chains stay
    and the TLUT implementation needs more LUTs."""
    (tmp_path / "tree4.v").write_text(TREE4)
    out = tmp_path / "b"
    r = dcsflow("build", tmp_path / "tree4.v", "--out", out, "--adders", mode, "--quiet", "-j", "1",
                "--baselines", "yosys-abc", "--no-static-remap")
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "report.json").read_text())
    assert rep["adders"]["mode"] == mode and rep["adders"]["fed_by_parameters"] == 3
    cells = _cells(out / "template.json")
    if mode == "auto":
        assert rep["adders"]["logic"] == 3 and rep["adders"]["carry"] == 0
        assert "CARRY4" not in cells
        assert rep["tlut"]["tluts"] == 12 and rep["tlut"]["luts"] == 12 and rep["tlut"]["depth"] == 1
        assert "adders fed by parameter inputs: 3 to the LUT mapper as logic (--adders auto)" in r.stderr
    else:
        assert rep["adders"]["logic"] == 0 and rep["adders"]["carry"] == 3 and cells.get("CARRY4", 0) > 0
        assert rep["tlut"]["luts"] > 12
        assert rep["param_fed_cells"].get("CARRY4", 0) > 0
        assert "CARRY4 cells: the chains stay in the template" in r.stderr
    conv = json.loads((out / "stages" / "tmap.json").read_text())
    assert conv["data"]["baselines"][0]["name"] == "yosys-abc"


MARKS = {
    "attribute": ("(* PARAM *)", "", []),
    "param_option": ("", "", ["--param", "coef"]),
    "param_block": ("//PARAM\n", "\n//PARAM", []),
}


@pytest.mark.parametrize("form", sorted(MARKS) + ["project", "vhdl"])
def test_every_mark_reaches_the_multiplier_rewrite(dcsflow, tmp_path, form):
    """However coef is marked, the front end builds x * coef from chunk products (no DSP48E1 in
    pre.json) and the conventional build gets its own soft multiplier."""
    out = tmp_path / "b"
    if form == "vhdl":
        (tmp_path / "mulp.vhd").write_text("""library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
entity mulp is
  port (clk : in std_logic; x : in std_logic_vector(7 downto 0);
        coef : in std_logic_vector(7 downto 0); --PARAM
        y : out std_logic_vector(15 downto 0));
end entity;
architecture rtl of mulp is
begin
  process (clk) begin
    if rising_edge(clk) then y <= std_logic_vector(unsigned(x) * unsigned(coef)); end if;
  end process;
end architecture;
""")
        args = [tmp_path / "mulp.vhd"]
    elif form == "project":
        (tmp_path / "mulp.v").write_text(MULP.format(open="", close=""))
        (tmp_path / "dcsflow.toml").write_text('[design]\nname = "mulp"\nsources = ["mulp.v"]\nparams = ["coef"]\n')
        args = ["-p", tmp_path / "dcsflow.toml"]
    else:
        attr, close, extra = MARKS[form]
        if form == "attribute":
            text = MULP.replace("  input [7:0] coef,", "  (* PARAM *) input [7:0] coef,").format(open="", close="")
        else:
            text = MULP.format(open=attr, close=close)
        (tmp_path / "mulp.v").write_text(text)
        args = [tmp_path / "mulp.v", *extra]
    r = dcsflow("build", *args, "--out", out, "--quiet", "--to", "frontend")
    assert r.returncode == 0, r.stderr
    assert "parameter input coef: 8 bits" in r.stderr
    pre = _cells(out / "frontend" / "pre.json")
    assert "DSP48E1" not in pre and pre.get("CARRY4", 0) > 0
    assert (out / "frontend" / "pre_conventional.json").is_file()


def test_parameter_reaching_a_dsp_is_one_error(dcsflow, tmp_path):
    """coef ^ 0x5a is no parameter port: the multiplier is not rewritten, becomes a DSP48E1, and the
    build stops with one line naming it."""
    (tmp_path / "mulx.v").write_text(MULP.format(open="", close="").replace("x * coef", "x * (coef ^ 8'h5a)"))
    r = dcsflow("build", tmp_path / "mulx.v", "--param", "coef", "--out", tmp_path / "b", "--quiet")
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "a parameter input reaches DSP48E1 cell" in lines[0] and "cannot turn into logic" in lines[0]
    assert "mulx.v:7:" in lines[0]


def test_bad_adders_value_is_one_line(dcsflow, tmp_path):
    (tmp_path / "tree4.v").write_text(TREE4)
    r = dcsflow("build", tmp_path / "tree4.v", "--adders", "ripple", "--out", tmp_path / "b")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "'ripple' is not one of 'auto', 'carry', 'logic'" in r.stderr
    assert not (tmp_path / "b").exists()


def test_published_bench_builds_the_4_bit_tree_multiplier_at_k4(tmp_path):
    """benchmarks/published_bench.py's build of tree_mult.vhd (4-bit operand, 8-bit parameter) at
    K = 4 through dcsflow build: the published TLUT flow's figure, 12 LUTs at depth 1, with no more
    slices than the conventional implementation."""
    import importlib.util
    import sys

    bench = Path(__file__).resolve().parents[1] / "benchmarks" / "published_bench.py"
    spec = importlib.util.spec_from_file_location("published_bench_builds", bench)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    (d,) = [d for d in mod.BUILDS if d.name == "tree_mult4"]
    row = mod.build_one(d, 4, tmp_path)
    assert (row["luts"], row["depth"], row["carry4"]) == (12, 1, 0), row
    assert row["target"] is True and row["slices"] <= row["conv_slices"]
    assert row["adders"] == {"mode": "auto", "K": 4, "fed_by_parameters": 3, "logic": 3, "carry": 0}
