"""Multipliers with a parameter operand: chunk-product techmap, selection, front end.

Independent references: Yosys's own ``$mul`` semantics in its SAT solver (``sat -prove``), ABC's
LUT mapping (``tmap.abc.baseline``), Python integer multiplication, and the unmodified synth_xilinx
script (``mul_chunk=0``).
"""

from __future__ import annotations

import json
import random

import pytest

from dcsflow.flow import frontend as fe
from dcsflow.flow.param_arith import (ParamArithError, param_mul_commands, param_mul_map, param_wire_selection,
                              parse_count)
from dcsflow.flow.yosys import cells_sim, run_script

#: (A_WIDTH, B_WIDTH) pairs of the formal check; each with Y in {A+B, A+B-2, A+B+3}
_WIDTHS = [(1, 1), (1, 5), (2, 6), (2, 7), (3, 2), (4, 7), (5, 5), (6, 4), (7, 1), (7, 3)]


def _mul_module(name: str, aw: int, bw: int, yw: int, a_signed: int, b_signed: int, param: str | None) -> str:
    """RTLIL of a module with one ``$mul`` cell; ``param`` ("a"/"b") gets the PARAM attribute."""
    attr = {p: ("  attribute \\PARAM 1\n" if p == param else "") for p in "ab"}
    return (f"module \\{name}\n"
            f"{attr['a']}  wire width {aw} input 1 \\a\n"
            f"{attr['b']}  wire width {bw} input 2 \\b\n"
            f"  wire width {yw} output 3 \\y\n"
            "  cell $mul $m\n"
            f"    parameter \\A_SIGNED {a_signed}\n    parameter \\A_WIDTH {aw}\n"
            f"    parameter \\B_SIGNED {b_signed}\n    parameter \\B_WIDTH {bw}\n"
            f"    parameter \\Y_WIDTH {yw}\n"
            "    connect \\A \\a\n    connect \\B \\b\n    connect \\Y \\y\n"
            "  end\nend\n")


def _cases(signed: bool) -> list[tuple[int, int, int, int, int, str, int]]:
    """(aw, bw, yw, a_signed, b_signed, parameter side, chunk) combinations."""
    out = []
    i = 0
    for aw, bw in _WIDTHS:
        for yw in (aw + bw, aw + bw - 2, aw + bw + 3):
            if yw < 1:
                continue
            side = "ab"[i % 2]
            chunk = (2, 3)[(i // 2) % 2]
            out.append((aw, bw, yw, int(signed), int(signed), side, chunk))
            i += 1
    return out   # (Yosys's cell checker requires A_SIGNED == B_SIGNED for $mul)


@pytest.mark.parametrize("signed", [False, True])
def test_techmap_equals_yosys_mul(signed, tmp_path):
    """Formal: chunk-product techmap == Yosys ``$mul`` (SAT proof), parameter on A and on B."""
    cases = _cases(signed)
    rtlil = []
    script = ["read_rtlil design.il"]
    for n, (aw, bw, yw, sa, sb, side, chunk) in enumerate(cases):
        rtlil.append(_mul_module(f"gold{n}", aw, bw, yw, sa, sb, None))
        rtlil.append(_mul_module(f"gate{n}", aw, bw, yw, sa, sb, side))
    (tmp_path / "design.il").write_text("".join(rtlil))
    # the selection only reaches the gate modules (PARAM attribute); chunk differs per case
    for n, (aw, bw, yw, sa, sb, side, chunk) in enumerate(cases):
        cell = "$__DCS_PMUL_A" if side == "a" else "$__DCS_PMUL"
        script += [f"chtype -set {cell} gate{n}/t:$mul", f"setparam -set CHUNK {chunk} gate{n}/t:{cell}"]
    script += [f"techmap -map {param_mul_map()}",
               "select -assert-none gate*/t:$mul gate*/t:$__DCS_*",    # the rewrite happened
               "select -assert-min 1 gate*/t:$_AND_"]
    for n in range(len(cases)):
        script += [f"miter -equiv -flatten -make_assert gold{n} gate{n} miter{n}",
                   f"sat -verify -prove-asserts miter{n}"]
    run_script("\n".join(script) + "\n", tmp_path, "formal")
    assert (tmp_path / "formal.log").read_text().count("SUCCESS!") == len(cases)


def test_wrong_map_is_caught(tmp_path):
    """The formal check can fail: a techmap with one wrong partial product is refuted."""
    bad = param_mul_map().read_text().replace(".B(B[j - i])", ".B(B[(j - i + 1) % B_WIDTH])")
    assert bad != param_mul_map().read_text()
    (tmp_path / "bad.v").write_text(bad)
    (tmp_path / "d.il").write_text(_mul_module("gold", 4, 4, 8, 0, 0, None) + _mul_module("gate", 4, 4, 8, 0, 0, "b"))
    script = ["read_rtlil d.il", "chtype -set $__DCS_PMUL gate/t:$mul", "setparam -set CHUNK 2 gate/t:$__DCS_PMUL",
              "techmap -map bad.v", "miter -equiv -flatten -make_assert gold gate miter",
              "sat -verify -prove-asserts miter"]
    with pytest.raises(Exception, match="proof did fail"):
        run_script("\n".join(script) + "\n", tmp_path, "bad")


SELECT_V = """
module top(input clk, input ld, (* PARAM *) input [7:0] k, input [7:0] j, input [7:0] x, input [7:0] z,
           output [15:0] y1, output [15:0] y2, output [15:0] y3, output [15:0] y4, output [15:0] y5,
           output [15:0] y6);
  wire [7:0] kk = k;
  reg [7:0] kr;
  always @(posedge clk) if (ld) kr <= k;      // parameter register
  assign y1 = x * kk;      // parameter on B
  assign y2 = k * z;       // parameter on A
  assign y3 = x * z;       // no parameter: left alone
  assign y4 = k * j;       // both parameters (j named by the user): left alone
  assign y5 = kr * x;      // through the parameter register, on A
  assign y6 = x * j;       // j is a parameter only when named
endmodule
"""


@pytest.mark.parametrize("names, kept", [([], {"y3", "y6"}), (["j"], {"y3", "y4"})])
def test_selection_rules(names, kept, tmp_path):
    """Which $mul cells are rewritten: B or A parameter, through parameter registers; not both, not none."""
    (tmp_path / "s.v").write_text(SELECT_V)
    cmds = (["read_verilog s.v", "hierarchy -top top", "proc", "flatten", "opt", "select -assert-count 6 t:$mul"]
            + param_mul_commands(param_wire_selection(names), 4)
            + ["tee -q -o kept.txt select -list t:$mul %co1:+[Y] w:y* %i"])
    run_script("\n".join(cmds) + "\n", tmp_path, "sel")
    got = {ln.strip().split("/")[-1] for ln in (tmp_path / "kept.txt").read_text().splitlines() if ln.strip()}
    assert got == kept


def test_selection_without_mul_or_params_changes_nothing(tmp_path):
    (tmp_path / "a.v").write_text("module a(input [3:0] p, q, output [3:0] s); assign s = p + q; endmodule\n"
                                  "module m(input [3:0] p, q, output [7:0] s); assign s = p * q; endmodule\n")
    cmds = (["read_verilog a.v", "proc", "tee -o before.txt stat"]
            + param_mul_commands(param_wire_selection(["nosuchport"]))
            + ["tee -o after.txt stat", "select -assert-count 1 t:$mul"])
    run_script("\n".join(cmds) + "\n", tmp_path, "none")
    def body(name):   # the statistics without their section number
        t = (tmp_path / name).read_text()
        return t[t.index("==="):]
    assert "$mul" in body("before.txt") and body("before.txt") == body("after.txt")


def test_bad_arguments():
    with pytest.raises(ParamArithError, match="positive"):
        param_mul_commands("w:k", chunk=0)
    with pytest.raises(ParamArithError, match="identifier"):
        param_wire_selection(["k[3]"])
    with pytest.raises(ValueError, match="select -count"):
        parse_count("ERROR: nothing")


def test_chunk_products_map_to_few_tluts(tmp_path):
    """Structural property: 8-bit x*k after the rewrite + generic synth needs < 40% of ABC's LUTs."""
    from dcsflow.tmap.abc import BASELINE_AREA_SCRIPT, baseline
    from dcsflow.aig import read_aiger
    from dcsflow.tmap.mapper import map_tluts
    from dcsflow.tmap.options import MapOptions

    (tmp_path / "m.v").write_text("module mul(input [7:0] k, input [7:0] x, output [15:0] y);\n"
                                  "  assign y = x * k;\nendmodule\n")
    cmds = (["read_verilog m.v", "hierarchy -top mul", "proc", "flatten", "opt_clean"]
            + param_mul_commands(param_wire_selection(["k"]), 6)
            + ["select -assert-none t:$mul", "synth -flatten -top mul", "aigmap", "write_aiger -symbols out.aig"])
    run_script("\n".join(cmds) + "\n", tmp_path, "gen")
    aig = read_aiger(str(tmp_path / "out.aig"))
    params = [n for n in aig.input_names if n.startswith("k[")]
    assert len(params) == 8
    res = map_tluts(aig, params, MapOptions(K=6, verify=False))
    base = baseline(aig, 6, BASELINE_AREA_SCRIPT)
    assert res.stats.luts < 0.4 * base.luts, (res.stats.luts, base.luts)


# ------------------------------------------------------------------------------------ front end

def _fe_v(w: int) -> str:
    return f"""
module fe((* PARAM *) input [{w-1}:0] k, input [{w-1}:0] x, input [{w-1}:0] w, output [{2*w-1}:0] y,
          output [{2*w-1}:0] z);
  assign y = x * k;     // parameter operand: chunk products in LUTs
  assign z = x * w;     // regular operands: DSP48E1 as before
endmodule
"""


def _types(pre: dict, top: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in pre["modules"][top]["cells"].values():
        out[c["type"]] = out.get(c["type"], 0) + 1
    return out


def test_frontend_param_mul_proved(tmp_path):
    """6-bit x*k, chunk 3: two chunk products summed by CARRY4; pre.json proved equal to the RTL's y."""
    rtl = tmp_path / "fe.v"
    rtl.write_text(_fe_v(6))
    pre_path, top, _ = fe.synthesize_pre(fe.DesignSpec(sources=[rtl], top="fe", mul_chunk=3), tmp_path / "f")
    types = _types(json.loads(pre_path.read_text()), top)
    assert types.get("DSP48E1") == 1, types          # z = x*w only
    assert types.get("CARRY4", 0) >= 1, types        # the sum of the chunk products
    # SAT proof of y with Yosys's Xilinx simulation models (z, the DSP48E1, is not combinational there)
    script = [f"read_verilog {rtl}", "rename fe gold", f"read_json {pre_path}", "rename fe gate",
              f"read_verilog {cells_sim()}", "proc", "flatten gate", "delete -port gold/w:z gate/w:z",
              "miter -equiv -flatten -make_assert -ignore_gold_x gold gate miter",
              "sat -verify -prove-asserts miter"]
    run_script("\n".join(script) + "\n", tmp_path, "prove")


def test_frontend_param_mul_aig(tmp_path):
    """8-bit x*k, one chunk: no DSP48E1 for it, and the extracted AIG simulates to x*k."""
    from dcsflow.aig import read_aiger

    rtl = tmp_path / "fe.v"
    rtl.write_text(_fe_v(8))
    pre_path, top, _ = fe.synthesize_pre(fe.DesignSpec(sources=[rtl], top="fe", mul_chunk=8), tmp_path / "f")
    pre = json.loads(pre_path.read_text())
    assert _types(pre, top).get("DSP48E1") == 1      # z = x*w only
    ext, _ = fe.extract_logic(pre, top, [], tmp_path / "x")
    assert {n for n, _ in ext.params} == {f"k[{i}]" for i in range(8)}
    aig = read_aiger(str(tmp_path / "x" / "logic.aag"))
    m = pre["modules"][top]
    xbits, ybits = m["ports"]["x"]["bits"], m["ports"]["y"]["bits"]
    ibuf = {c["connections"]["I"][0]: c["connections"]["O"][0] for c in m["cells"].values() if c["type"] == "IBUF"}
    obuf = {c["connections"]["O"][0]: c["connections"]["I"][0] for c in m["cells"].values() if c["type"] == "OBUF"}
    in_name = {b: n for n, b in ext.inputs}
    out_idx = {b: i for i, (n, b) in enumerate(ext.outputs)}
    rng = random.Random(7)
    W = 256
    xs = [rng.getrandbits(8) for _ in range(W)]
    ks = [rng.getrandbits(8) for _ in range(W)]
    iv: dict[str, int] = {}
    for i in range(8):
        iv[f"k[{i}]"] = sum(((ks[p] >> i) & 1) << p for p in range(W))
        iv[in_name[ibuf[xbits[i]]]] = sum(((xs[p] >> i) & 1) << p for p in range(W))
    outs = aig.simulate(iv, W)
    for j in range(16):
        v = outs[out_idx[obuf[ybits[j]]]]
        assert all(((v >> p) & 1) == (((xs[p] * ks[p]) >> j) & 1) for p in range(W)), f"y[{j}]"


NOMUL_V = """
module nm((* PARAM *) input [7:0] k, input clk, input [7:0] x, input [7:0] w, output reg [15:0] y,
          output [15:0] z);
  always @(posedge clk) y <= {x ^ k, x + w} + {8'd0, w};
  assign z = x * w;     // a $mul, but no parameter operand
endmodule
"""


def test_frontend_unchanged_without_param_mul(tmp_path):
    """No $mul with a parameter operand: pre.json is byte-identical to the plain synth_xilinx run."""
    rtl = tmp_path / "nm.v"
    rtl.write_text(NOMUL_V)
    a, _, _ = fe.synthesize_pre(fe.DesignSpec(sources=[rtl], top="nm"), tmp_path / "a")
    b, _, _ = fe.synthesize_pre(fe.DesignSpec(sources=[rtl], top="nm", mul_chunk=0), tmp_path / "b")
    assert a.read_bytes() == b.read_bytes()
    assert "synth_xilinx -flatten -top nm -run :map_luts" in (tmp_path / "a" / "frontend.ys").read_text()
    assert _types(json.loads(a.read_text()), "nm").get("DSP48E1") == 1
