"""Whether specialization pays (:func:`dcsflow.flow.report.verdict`): a build whose TLUT
implementation uses more slices or is deeper than the chosen conventional one ends with one line
saying so and why, records it in report.json and on its page; ``dcsflow demo`` repeats it after its
closing table; a build that pays prints nothing new.

The unit tests use hand-made figures; the expected lines are written here from those figures. The
end-to-end build is a register of ``a ^ k`` (k the parameter): 8 two-input XORs. Conventionally two
of them share a LUT6_2 site (4 distinct inputs, at most 5 allowed), so 4 LUT sites and 8 FFs fill one
slice (UG474: 4 LUT6 sites and 8 FFs per slice); as TLUTs each takes a whole LUT6 site (the back
end's rule, docs/guide/build.md "Back end"), so 8 sites need 2 slices, and no logic goes into the
PPC or folds into a TLUT (each XOR has one regular input).
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from dcsflow.flow.report import NO_PAY, print_summary, verdict, verdict_line

DATA = Path(__file__).parent / "data"
FAST = ("--baselines", "yosys-abc", "--no-static-remap", "--no-frontend-check", "-j", "1", "--quiet")


def _util(slices, *, luts, ffs, sites, pairs=0, tluts=0, tlut_sites=0, tlut_slices=0, **more):
    return {"slices": slices, "luts": luts, "ffs": ffs, "lut_sites": sites, "lut6_2_pairs": pairs, "tluts": tluts,
            "tlut_sites": tlut_sites, "tlut_slices": tlut_slices, "carry4": 0, "muxf7": 0, "muxf8": 0, **more}


def _breakdown(mapping=0, ppc=0, folding=0, remap=0, regs=0, mapping_ffs=0, regs_ffs=0):
    rows = [("mapping", mapping, mapping_ffs), ("ppc", ppc, 0), ("tlut_folding", folding, 0),
            ("static_remap", remap, 0), ("param_registers", regs, regs_ffs)]
    return [{"cause": k, "label": k, "luts": lu, "ffs": ff, "how": ""} for k, lu, ff in rows]


def _report(*, t_slices=40, c_slices=40, t_depth=3, c_depth=3, t_luts=150, c_luts=150, t_ffs=100, c_ffs=100,
            breakdown=None, unexplained=0, t_pairs=10, c_pairs=10, tluts=16, tlut_slices=4, **tl):
    """A report.json with hand-made figures (only the keys the verdict reads)."""
    conv = {"luts": c_luts, "ffs": c_ffs, "carry4": 2, "muxf7": 0, "muxf8": 0, "depth": c_depth,
            "baseline": "abc-wide"}
    tlut = {"luts": t_luts, "tluts": tluts, "ffs": t_ffs, "carry4": 2, "muxf7": 0, "muxf8": 0, "depth": t_depth,
            "tmap_luts": 140, "tmap_no_param_luts": 170, "tmap_no_param_depth": t_depth, **tl}
    return {
        "conventional": conv, "tlut": tlut,
        "backend": {"tlut": _util(t_slices, luts=t_luts, ffs=t_ffs, sites=t_luts - t_pairs, pairs=t_pairs,
                                  tluts=tluts, tlut_sites=tluts, tlut_slices=tlut_slices),
                    "conventional": _util(c_slices, luts=c_luts, ffs=c_ffs, sites=c_luts - c_pairs, pairs=c_pairs)},
        "savings": {"baseline": "abc-wide", "slices": c_slices - t_slices, "luts": c_luts - t_luts,
                    "ffs": c_ffs - t_ffs, "breakdown": breakdown if breakdown is not None else _breakdown(),
                    "unexplained_luts": unexplained},
    }


# ------------------------------------------------------------------------------------ unit tests

def test_more_slices_gives_the_line_with_the_grown_luts_and_their_cause():
    rep = _report(t_slices=45, c_slices=40, t_luts=170, c_luts=150,
                  breakdown=_breakdown(mapping=-30, folding=10))
    v = verdict(rep)
    assert v["pays"] is False
    assert v["line"] == (
        "specialization does not pay here: the TLUT implementation uses 45 slices against 40 for the conventional "
        "one (abc-wide): 20 more LUTs (170 against 150): TMAP without the parameters needs 30 more LUTs than "
        "abc-wide (mapping, front end), more than the 10 LUTs saved by logic folded into TLUTs make up for")
    assert v["reasons"] == [v["line"].split("(abc-wide): ", 1)[1]]
    assert verdict_line(rep) == v["line"]


def test_greater_depth_alone_gives_the_line_without_slices():
    rep = _report(t_slices=30, c_slices=40, t_depth=5, c_depth=4, tmap_no_param_depth=5)
    v = verdict(rep)
    assert v["pays"] is False
    assert v["line"].startswith("specialization does not pay here: the TLUT implementation has LUT depth 5 against 4 "
                                "for the conventional one (abc-wide): ")
    assert "slices" not in v["line"]
    assert v["reasons"] == ["TMAP maps the logic 5 LUTs deep even without the parameters, where abc-wide reaches 4 "
                            "(the mapper, not the specialization)"]
    # with --area the cause is the area recovery
    assert verdict(rep, tmap_area=True)["reasons"] == [
        "TMAP ran with --area (area recovery without keeping the depth)"]
    # TMAP's own mapping no deeper: the depths are named
    rep["tlut"]["tmap_no_param_depth"] = 3
    assert verdict(rep)["reasons"] == [
        "the TLUT netlist's longest path crosses 5 LUTs, where abc-wide reaches 4 and TMAP without the parameters 3"]


def test_more_slices_and_greater_depth_name_both():
    rep = _report(t_slices=41, c_slices=40, t_depth=4, c_depth=3, t_ffs=124, c_ffs=100,
                  breakdown=_breakdown(mapping=-10, folding=10))
    line = verdict(rep)["line"]
    assert line.startswith("specialization does not pay here: the TLUT implementation uses 41 slices against 40 "
                           "and has LUT depth 4 against 3 for the conventional one (abc-wide): 24 more FFs (124 "
                           "against 100); ")


@pytest.mark.parametrize("t_slices, t_depth", [(40, 3), (39, 3), (40, 2), (12, 1)])
def test_equal_or_fewer_slices_and_depth_pay_without_a_line(t_slices, t_depth):
    rep = _report(t_slices=t_slices, c_slices=40, t_depth=t_depth, c_depth=3, t_luts=200, c_luts=150)
    assert verdict(rep) == {"pays": True, "line": None, "reasons": []}
    assert verdict_line(rep) is None


def test_reasons_most_slices_first():
    """40 more LUTs (10 slices' worth) before 3 more CARRY4 (3) before 8 more FFs (1)."""
    rep = _report(t_slices=60, c_slices=40, t_luts=190, c_luts=150, t_ffs=108, c_ffs=100,
                  breakdown=_breakdown(mapping=-45, folding=5))
    rep["tlut"]["carry4"] = 5
    reasons = verdict(rep)["reasons"]
    assert [r.split(" (")[0] for r in reasons] == ["40 more LUTs", "3 more CARRY4", "8 more FFs"]
    assert reasons[0] == ("40 more LUTs (190 against 150): TMAP without the parameters needs 45 more LUTs than "
                          "abc-wide (mapping, front end), more than the 5 LUTs saved by logic folded into TLUTs "
                          "make up for")
    assert reasons[1] == "3 more CARRY4 (carry chains) (5 against 2)"


def test_tluts_that_replace_nothing_lost_pairs_and_empty_tlut_slices():
    """Same LUTs, no LUT moved into the PPC or folded: the TLUTs replace nothing (named first); the
    conventional LUTs pair up in LUT6_2 sites, the TLUTs take whole sites, 3 TLUTs leave 1 of their
    slice's 4 sites empty."""
    rep = _report(t_slices=3, c_slices=2, t_luts=8, c_luts=8, t_ffs=8, c_ffs=8, t_pairs=0, c_pairs=4, tluts=3,
                  tlut_slices=1, tmap_luts=8, tmap_no_param_luts=8)
    v = verdict(rep)
    assert v["reasons"] == [
        "the 3 TLUTs replace no logic (TMAP maps it to 8 LUTs with the parameters and 8 without, none of them a "
        "function of the parameters alone)",
        "8 LUT sites against 4, with 0 LUT6_2 pairs (two LUTs in one site) against 4 and each of the 3 TLUTs in a "
        "whole LUT6 site",
        "1 LUT site empty in the 1 slice holding only TLUTs (no static logic shares them)"]


def test_cfglut5_tluts_named_as_such():
    """In a cfglut5 build (back end figures with cfglut_slices) the TLUTs are CFGLUT5s in SLICEM sites."""
    rep = _report(t_slices=3, c_slices=2, t_luts=8, c_luts=8, t_ffs=8, c_ffs=8, t_pairs=0, c_pairs=4, tluts=3,
                  tlut_slices=1, tmap_luts=8, tmap_no_param_luts=8)
    rep["backend"]["tlut"]["cfglut_slices"] = 1
    assert "8 LUT sites against 4, with 0 LUT6_2 pairs (two LUTs in one site) against 4 and each of the 3 TLUTs a " \
           "CFGLUT5 in a whole LUT site of a SLICEM" in verdict(rep)["reasons"]


def _cfglut(rep, *, cfglut5, param_bits, param_bit_luts=None, words=32, ppc_ands=0):
    """``rep`` as a cfglut5 build's report: its TLUTs the ``cfglut5`` CFGLUT5s."""
    bt = rep["backend"]["tlut"]
    bt.update(cfglut_slices=-(-cfglut5 // 4), tluts=cfglut5, tlut_sites=cfglut5, tlut_slices=-(-cfglut5 // 4))
    rep["tlut"].update(tluts=cfglut5, ppc_ands=ppc_ands)
    rep["cfglut"] = {"cfglut5": cfglut5, "param_bits": param_bits, "registers": -(-param_bits // 32), "chains": 4,
                     "chain_luts": 1, "words": words, "shift_cycles": 34, "shift_us": 0.34, "shift_mhz": 100.0}
    if param_bit_luts is not None:
        rep["cfglut"]["param_bit_luts"] = param_bit_luts
    return rep


CFG_PLAIN = ("the cfglut5 build has no CFGLUT5: each of its 512 TLUTs reads one parameter function and became a "
             "static LUT on a parameter-bit flip-flop, so the build is the conventional circuit with a shift-loaded "
             "key register (128 parameter bits; 32 chain words per rekey through the loader, where a register "
             "written over AXI4-Lite takes 4 writes); the conventional build with such a register, or "
             "`--tlut frames`, is the cheaper way")


def test_cfglut5_build_without_cfglut5_is_said_plainly_even_at_equal_slices():
    """Every TLUT a static LUT on a parameter bit: the conventional circuit with a shift-loaded key
    register, whatever the slices; 128 bits are 4 writes of 32 bits against 32 chain words."""
    rep = _cfglut(_report(), cfglut5=0, param_bits=128, param_bit_luts=512)
    v = verdict(rep)
    assert v == {"pays": False, "line": f"{NO_PAY}: {CFG_PLAIN}", "reasons": [CFG_PLAIN.split(": ", 1)[1]]}
    # more slices too: the comparison follows
    rep = _cfglut(_report(t_slices=45, t_ffs=228, c_ffs=100), cfglut5=0, param_bits=128, param_bit_luts=512)
    v = verdict(rep)
    assert v["line"] == (f"{NO_PAY}: {CFG_PLAIN}; the TLUT implementation uses 45 slices against 40 for the "
                         "conventional one (abc-wide): 128 more FFs (228 against 100)")
    assert v["reasons"] == [CFG_PLAIN.split(": ", 1)[1], "128 more FFs (228 against 100)"]


def test_cfglut5_plain_line_names_computed_bits_and_reads_older_reports():
    rep = _cfglut(_report(), cfglut5=0, param_bits=33, words=64, ppc_ands=100)
    assert verdict(rep)["reasons"][0] == (
        "every TLUT reads one parameter function and became a static LUT on a parameter-bit flip-flop, so the "
        "build is the conventional circuit with a shift-loaded key register (33 parameter bits, computed from the "
        "parameter inputs by the SCG; 64 chain words per rekey through the loader, where a register written over "
        "AXI4-Lite takes 2 writes); the conventional build with such a register, or `--tlut frames`, is the "
        "cheaper way")


def test_cfglut5_build_with_cfglut5s_is_judged_on_its_figures():
    """Some TLUTs are CFGLUT5s (they replace logic): no plain line; it pays at equal figures."""
    rep = _cfglut(_report(), cfglut5=40, param_bits=64, param_bit_luts=100)
    assert verdict(rep) == {"pays": True, "line": None, "reasons": []}
    rep = _cfglut(_report(t_slices=41), cfglut5=40, param_bits=64, param_bit_luts=100)
    assert "has no CFGLUT5" not in verdict(rep)["line"]


def test_unexplained_luts_and_a_report_without_backend():
    rep = _report(t_luts=160, c_luts=150, t_depth=4, breakdown=_breakdown(), unexplained=-10)
    del rep["backend"]
    v = verdict(rep)
    # no back end: slices are not compared, the depth still is
    assert v["line"].startswith(f"{NO_PAY}: the TLUT implementation has LUT depth 4 against 3 ")
    rep = _report(t_slices=44, t_luts=160, c_luts=150, breakdown=_breakdown(mapping=-10, ppc=10), unexplained=-10)
    assert verdict(rep)["reasons"] == [
        "10 more LUTs (160 against 150): TMAP without the parameters needs 10 more LUTs than abc-wide (mapping, "
        "front end), the TLUT netlist's re-import into Yosys adds 10 LUTs, more than the 10 LUTs saved by "
        "parameter-only logic in the PPC make up for"]


def test_verdict_line_prefers_the_recorded_verdict():
    rep = _report(t_slices=45)
    rep["verdict"] = {"pays": False, "line": "recorded line", "reasons": []}
    assert verdict_line(rep) == "recorded line"
    rep["verdict"] = {"pays": True, "line": None, "reasons": []}
    assert verdict_line(rep) is None
    del rep["verdict"]
    assert verdict_line(rep).startswith(f"{NO_PAY}: the TLUT implementation uses 45 slices against 40 ")


# ------------------------------------------------------------------------------- demo's summary

def test_demo_summary_names_every_design_that_does_not_pay(monkeypatch):
    """main_job passes each design's line to the closing table, which prints it after the table,
    wrapped at 80 columns; a design that pays gets none."""
    from dcsflow.flow import demo

    worse = _report(t_slices=45, t_luts=170, breakdown=_breakdown(mapping=-20))
    better = _report(t_slices=30)
    reports = {"alpha": worse, "beta": better, "gamma": _report(t_depth=4)}
    designs = [SimpleNamespace(name=n, demo=SimpleNamespace(rtl_sim=None, vectors=None, cycles=None,
                                                            cycles_label="x")) for n in reports]
    monkeypatch.setattr(demo, "demo_designs", lambda also=(): designs)
    monkeypatch.setattr(demo, "build", lambda opts: SimpleNamespace(report=reports[opts.design]))
    monkeypatch.setattr(demo, "print_table", lambda rep, file=None: None)
    monkeypatch.setattr(demo, "check_build", lambda out, opts, progress: SimpleNamespace(passed=1, total=1))
    buf = io.StringIO()
    assert demo.main_job("unused", progress=False, file=buf) == 0
    out = buf.getvalue()
    tail = " ".join(out.split("┘")[-1].split())          # after the closing table, unwrapped
    assert max(map(len, out.splitlines())) <= 80
    assert f"alpha: {NO_PAY}: the TLUT implementation uses 45 slices against 40" in tail
    assert f"gamma: {NO_PAY}: the TLUT implementation has LUT depth 4 against 3" in tail
    assert "beta" not in tail


def test_summary_without_verdicts_prints_only_the_table():
    rep = _report()
    buf = io.StringIO()
    print_summary([("alpha", rep["tlut"], rep["conventional"], None, "1/1")], file=buf,
                  verdicts={"alpha": None})
    assert NO_PAY not in buf.getvalue() and buf.getvalue().rstrip().endswith("┘")


# ------------------------------------------------------------------------------------ end to end

def test_build_that_does_not_pay_ends_with_the_line(dcsflow, tmp_path):
    src = tmp_path / "x.v"
    src.write_text("module x(input clk, input [7:0] a, (* PARAM *) input [7:0] k, output reg [7:0] y);\n"
                   "  always @(posedge clk) y <= a ^ k;\nendmodule\n")
    out = tmp_path / "bx"
    r = dcsflow("build", src, "--out", out, *FAST)
    assert r.returncode == 0, r.stderr
    last = r.stdout.rstrip("\n").splitlines()[-1]
    assert last.startswith(f"{NO_PAY}: the TLUT implementation uses 2 slices against 1 for the conventional one "
                           "(yosys-abc): the 8 TLUTs replace no logic"), r.stdout
    assert "8 LUT sites against 4, with 0 LUT6_2 pairs (two LUTs in one site) against 4" in last
    assert sum(NO_PAY in ln for ln in r.stdout.splitlines()) == 1
    rep = json.loads((out / "report.json").read_text())
    assert rep["verdict"]["pays"] is False and rep["verdict"]["line"] == last
    assert rep["verdict"]["reasons"] and all(x in last for x in rep["verdict"]["reasons"])
    be = rep["backend"]
    assert (be["tlut"]["slices"], be["conventional"]["slices"]) == (2, 1)
    assert (be["tlut"]["lut_sites"], be["conventional"]["lut_sites"]) == (8, 4)
    from markupsafe import escape

    page = (out / "report.html").read_text()
    assert f'<p class="verdict" id="verdict">{escape(last)}</p>' in page


def test_build_that_pays_prints_no_line(dcsflow, tmp_path):
    """keyxor (tests/data/flow), the flow tests' small design: its TLUT implementation is no worse
    (checked on its figures first): no "does not pay" anywhere, and the build's last line says it
    pays, with both implementations' slices and LUT depths."""
    out = tmp_path / "kx"
    r = dcsflow("build", DATA / "flow" / "keyxor.v", "--out", out, *FAST)
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "report.json").read_text())
    be = rep["backend"]
    assert be["tlut"]["slices"] <= be["conventional"]["slices"] and rep["tlut"]["depth"] <= rep["conventional"]["depth"]
    assert rep["verdict"] == {"pays": True, "line": None, "reasons": []}
    assert "does not pay" not in r.stdout + r.stderr
    last = r.stdout.rstrip("\n").splitlines()[-1]
    assert last.startswith(f"keyxor: specialization pays: the TLUT implementation uses {be['tlut']['slices']} "
                           f"slices against {be['conventional']['slices']} and LUT depth {rep['tlut']['depth']} "
                           f"against {rep['conventional']['depth']} for the conventional one "
                           f"({rep['conventional']['baseline']})"), last
    # keyxor's 4x4 multiplier by the key is LUT-only in both; Yosys alone would use no DSP48E1 for it
    ref = rep["dsp_reference"]
    assert last.endswith(f"; baseline: LUT-only multiplier (both implementations build the multiplier with a "
                         f"parameter operand from LUTs); Yosys synth_xilinx, DSP48E1 allowed, uses none for it: "
                         f"{ref['luts']} LUTs, {ref['ffs']} flip-flops"), last
    assert ref["dsp48e1"] == 0 and ref["luts"] > 0
    assert 'id="verdict"' not in (out / "report.html").read_text()


def test_page_of_a_report_without_verdict_gives_it_from_its_figures():
    """A report written before ``verdict`` existed: the page computes the line from its figures."""
    from dcsflow.flow.reportpage import _verdict_line

    rep = _report(t_slices=45)
    assert _verdict_line(copy.deepcopy(rep)).startswith(f"{NO_PAY}: the TLUT implementation uses 45 slices")
    del rep["tlut"]["depth"]                          # figures that cannot give one: no line, no error
    assert _verdict_line(rep) is None
