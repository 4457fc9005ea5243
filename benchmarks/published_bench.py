#!/usr/bin/env python3
"""TMAP on designs of the kinds the published TLUT flow reports, beside its figures.

Usage: python benchmarks/published_bench.py [--adders ripple|yosys|both] [--only NAME,...] [--no-verify]
[--no-builds] [--docs]

Designs (our own VHDL, benchmarks/hdl/; parameter ports marked ``--PARAM``):

* ``row_select`` / ``row_select_if`` / ``row_select_case``: a registered 5-bit index selecting one
  of 24 six-bit entries of a parameter row (144 parameter bits), written as an indexed array,
  as a loop of if statements (param_row_select.vhd), and as a Verilog case statement
  (param_row_select_case.v: GHDL 2.0.0's Verilog writer drops the default branch of a VHDL case
  statement, see that file). Published (the DNA matcher's substitution row): 18 LUTs (12 TLUTs),
  depth 2 at K = 4; 6 TLUTs, depth 1 at K = 6.
* ``const_mult16``: 16-bit regular operand times a 16-bit parameter operand, partial-product rows
  summed by a balanced adder tree (tree_mult.vhd). Published (a 16-bit tree multiplier by a 16-bit
  parameter): 235 LUTs, depth 27 at K = 4.
  ``const_mult16_star``: the same written ``x * coef``, which the front end rewrites into chunk
  products of K regular bits (``flow.param_arith``, chunk = K) as ``dcsflow build`` does. Published
  (a 16x16 multiplier): 415 LUTs, depth 26 at K = 4.
* ``fir_tree32``: 32-tap transposed FIR, 8-bit samples, 8-bit coefficients as parameters, each tap
  an 8x8 tree multiplier and a registered accumulator stage growing one bit per tap (47 bits at the
  end). Published: 2990 LUTs, depth 25 at K = 4. ``fir_tree32_star``: products written ``x * coef``.

Published figures: the TLUT tool flow of Ghent University (UGent-HES/tlut_flow; K. Bruneel et al.,
ACM TODAES 16(4), 2011, and its examples FIRTree32Tap8Bit and DNA).

Each design goes through GHDL (``dcsflow.flow.vhdl.translate``, ``--synth --out=verilog``) and Yosys
to one AIG of the *whole* logic, adders in gates (no CARRY4), registers cut (combinational view; the
depth is LUT levels between registers and I/Os):
``read_verilog; hierarchy; proc; flatten; [param_arith rewrite]; synth -flatten -noalumacc -run :fine;
techmap -map flow/yosys_lib/ripple_add.v; synth -run fine:; dffunmap; aigmap``. ``--adders ripple``
(default): every ``$add`` and ``$sub`` a ripple-carry adder (the front end's ripple_add.v), the
structure the published flow's synthesis hands its mapper, and the adder trees as written (``-noalumacc``: Yosys does not merge them
into one ``$macc``); ``--adders yosys``: plain ``synth -flatten`` (``alumacc``/``maccmap`` and
Brent-Kung adders), for information. TMAP maps the AIG in its default mode (``MapOptions(K=k)``, the
cut-point proof of netlist o PPC == AIG on) at K = 4 and K = 6; ABC maps the same AIG, parameters
as ordinary inputs (baselines of ``tmap.abc``: depth script ``&st; &if -K k``, area script ``&st;
&dch; &if -K k -a; &mfs``).

Targets (K = 4, ripple adders): each design no more LUTs than the published figure at no
greater depth; the row select also 6 TLUTs at depth 1 at K = 6.

Builds (unless ``--no-builds``): the same designs, plus ``tree_mult4`` (a 4-bit regular operand
times an 8-bit parameter, tree_mult.vhd; published: 12 LUTs, depth 1 at K = 4) and
``mult_param_block`` (a Verilog multiplier whose coefficient is marked by a ``//PARAM`` block),
through ``dcsflow build`` (a ``dcsflow.toml`` per design, ``--lut-size K``, default options but
``--no-frontend-check``, which changes no figure) at K = 4 and K = 6: the TLUT implementation's LUTs,
TLUTs, LUT depth and slices beside the chosen conventional implementation's (the build's strongest
candidate) and the published figures. Targets: at K = 4 no more LUTs than the published figure at no
greater depth; at K = 6 no more slices than the conventional implementation. The last line is one
JSON object.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from dcsflow.aig import Aig, read_aiger
from dcsflow.flow.adders import ripple_map
from dcsflow.tmap.abc import BASELINE_AREA_SCRIPT, BASELINE_DEPTH_SCRIPT, baseline
from dcsflow.tmap.mapper import map_tluts
from dcsflow.tmap.options import MapOptions
from dcsflow.tmap.params import resolve_params
from dcsflow.tools import find_tool

#: the designs' sources and the ripple-adder techmap
HDL = Path(__file__).resolve().parent / "hdl"


@dataclass
class Published:
    """A figure of the published TLUT flow: LUTs, depth, TLUTs (None: not given), LUT size K."""

    luts: int
    depth: int
    tluts: int | None = None
    K: int = 4


@dataclass
class Design:
    """A benchmark design: sources (in analysis order, in benchmarks/hdl), top, parameter ports,
    top-level generics, published figures it is compared with."""

    name: str
    sources: list
    top: str
    params: list
    generics: dict = field(default_factory=dict)
    published: list = field(default_factory=list)


ROW_SELECT_PUBLISHED = [Published(18, 2, 12, K=4), Published(6, 1, 6, K=6)]
DESIGNS = [
    Design("row_select", ["param_row_select.vhd"], "param_row_select", ["entries"],
           published=ROW_SELECT_PUBLISHED),
    Design("row_select_if", ["param_row_select.vhd"], "param_row_select_if", ["entries"],
           published=ROW_SELECT_PUBLISHED),
    Design("row_select_case", ["param_row_select_case.v"], "param_row_select_case", ["entries"],
           published=ROW_SELECT_PUBLISHED),
    Design("const_mult16", ["tree_mult.vhd", "const_mult16.vhd"], "const_mult16", ["coef"],
           published=[Published(235, 27)]),
    Design("const_mult16_star", ["tree_mult.vhd", "const_mult16.vhd"], "const_mult16", ["coef"],
           generics={"TREE": "false"}, published=[Published(415, 26)]),
    Design("fir_tree32", ["tree_mult.vhd", "fir_tree32.vhd"], "fir_tree32", ["coefs"],
           published=[Published(2990, 25)]),
    Design("fir_tree32_star", ["tree_mult.vhd", "fir_tree32.vhd"], "fir_tree32", ["coefs"],
           generics={"TREE": "false"}, published=[Published(2990, 25)]),
]
BY_NAME = {d.name: d for d in DESIGNS}

#: designs built by ``dcsflow build`` (the AIG designs without the ``_star`` variants, plus two)
BUILDS = [
    Design("tree_mult4", ["tree_mult.vhd"], "tree_mult", ["b"], generics={"AW": 4, "BW": 8},
           published=[Published(12, 1, K=4)]),
    *[d for d in DESIGNS if d.name not in ("row_select_if", "fir_tree32_star")],
    Design("mult_param_block", ["mult_param_block.v"], "mult_param_block", ["coef"]),
]


def yosys_script(top: str, verilog: list, params: list, K: int, adders: str, out: Path) -> list:
    """The Yosys commands making the AIG ``out`` of ``top`` (see the module docstring)."""
    from dcsflow.flow.param_arith import param_mul_commands, param_wire_selection

    reads = [f'read_verilog "{v}"' for v in verilog]
    pm = param_mul_commands(param_wire_selection(params), K)
    if adders == "ripple":
        synth = [f"synth -flatten -noalumacc -top {top} -run :fine", f'techmap -map "{ripple_map()}"',
                 f"synth -top {top} -run fine:"]
    elif adders == "yosys":
        synth = [f"synth -flatten -top {top}"]
    else:
        raise ValueError(f"adders must be 'ripple' or 'yosys', not {adders!r}")
    return [*reads, f"hierarchy -top {top}", "proc", "flatten", "opt_clean", *pm, *synth,
            "dffunmap", "opt_clean -purge", "aigmap", f'write_aiger -symbols "{out}"']


def design_aig(d: Design, K: int, adders: str, workdir: Path) -> tuple[Aig, list]:
    """AIG of design ``d`` for LUT size ``K`` (the front end's multiplier rewrite uses chunks of K bits)
    and its parameter inputs (names of the AIG). VHDL through GHDL first (``dcsflow.flow.vhdl``)."""
    from dcsflow.flow.vhdl import prepare, translate

    workdir.mkdir(parents=True, exist_ok=True)
    srcs = [HDL / s for s in d.sources]
    vhdl = [s for s in srcs if s.suffix == ".vhd"]
    verilog = [s for s in srcs if s.suffix != ".vhd"]
    if vhdl:
        vt = prepare(vhdl, d.top, [])
        verilog.append(translate(vhdl, vt, workdir / "ghdl", dict(d.generics)))
    out = workdir / f"{d.name}_k{K}_{adders}.aig"
    script = workdir / f"{d.name}_k{K}_{adders}.ys"
    script.write_text("\n".join(yosys_script(d.top, verilog, d.params, K, adders, out)) + "\n")
    r = subprocess.run([find_tool("yosys"), "-q", "-s", str(script)], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"yosys failed on {d.name}: {(r.stdout + r.stderr).strip()[-400:]}")
    aig = read_aiger(out)
    return aig, resolve_params(aig, d.params, strict=True).used


def run(d: Design, K: int, adders: str, workdir: Path, verify: bool = True) -> dict:
    """Map design ``d`` at ``K``: TMAP default mode and the ABC baselines; returns one result row."""
    t = time.perf_counter()
    aig, params = design_aig(d, K, adders, workdir)
    front_s = time.perf_counter() - t
    t = time.perf_counter()
    res = map_tluts(aig, params, MapOptions(K=K, verify=verify))
    map_s = time.perf_counter() - t
    bd = baseline(aig, K, BASELINE_DEPTH_SCRIPT)
    ba = baseline(aig, K, BASELINE_AREA_SCRIPT)
    pub = next((p for p in d.published if p.K == K), None)
    s = res.stats
    row = dict(design=d.name, K=K, adders=adders, ands=aig.num_ands, latches=aig.num_latches, params=len(params),
               luts=s.luts, tluts=s.tluts, depth=s.depth, verified=s.verified, ppc_ands=s.ppc_ands,
               seconds=round(map_s, 2), frontend_seconds=round(front_s, 2), notes=res.notes,
               abc_depth_luts=bd.luts, abc_depth_depth=bd.depth, abc_area_luts=ba.luts, abc_area_depth=ba.depth,
               published=pub.__dict__ if pub else None, target=None)
    if pub is not None and adders == "ripple":
        ok = s.luts <= pub.luts and s.depth <= pub.depth and s.verified is not False
        if pub.tluts is not None and pub.tluts == pub.luts:       # all TLUTs (K = 6 row select)
            ok = ok and s.tluts <= pub.tluts
        row["target"] = ok
    return row


def build_one(d: Design, K: int, workdir: Path) -> dict:
    """``dcsflow build`` of design ``d`` at LUT size ``K`` (a dcsflow.toml in ``workdir``); returns one
    row: TLUT and conventional LUTs, TLUTs, depth, slices, the adder decisions, seconds, target."""
    workdir.mkdir(parents=True, exist_ok=True)
    srcs = ", ".join(f'"{HDL / s}"' for s in d.sources)
    gens = ", ".join(f"{k} = {json.dumps(v)}" for k, v in d.generics.items())
    (workdir / "dcsflow.toml").write_text(f'[design]\nname = "{d.name}"\ntop = "{d.top}"\nsources = [{srcs}]\n'
                                          + (f"chparams = {{ {gens} }}\n" if gens else ""))
    out = workdir / f"k{K}"
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "dcsflow.flow", "build", "-p", str(workdir / "dcsflow.toml"),
                        "--lut-size", str(K), "--out", str(out), "--quiet", "--no-frontend-check", "--force"],
                       capture_output=True, text=True)
    secs = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"dcsflow build failed on {d.name} K={K}: {r.stderr.strip()[-400:]}")
    rep = json.loads((out / "report.json").read_text())
    tl, cv = rep["tlut"], rep["conventional"]
    slices = lambda impl: (rep.get("backend") or {}).get(impl, {}).get("slices")  # noqa: E731
    pub = next((p for p in d.published if p.K == K), None)
    row = dict(design=d.name, K=K, luts=tl["luts"], tluts=tl["tluts"], depth=tl["depth"], carry4=tl["carry4"],
               slices=slices("tlut"), conv_luts=cv["luts"], conv_depth=cv["depth"], conv_carry4=cv["carry4"],
               conv_slices=slices("conventional"), baseline=cv.get("baseline"), adders=rep.get("adders"),
               seconds=round(secs, 1), published=pub.__dict__ if pub else None, target=None)
    if K == 4 and pub is not None:
        row["target"] = row["luts"] <= pub.luts and row["depth"] <= pub.depth
    elif K == 6 and row["slices"] is not None and row["conv_slices"] is not None:
        row["target"] = row["slices"] <= row["conv_slices"]
    return row


def run_builds(designs: list[Design], Ks: list[int]) -> list[dict]:
    """:func:`build_one` for every design and K; prints a table as it goes and one line per target."""
    hdr = (f"{'build':18} {'K':>1} | {'LUTs':>5} {'TLUT':>5} {'dep':>3} {'C4':>3} {'slc':>4} | "
           f"{'cLUTs':>5} {'dep':>3} {'C4':>3} {'slc':>4} | {'pub':>5} {'dep':>3} | {'s':>5}")
    print(hdr)
    print("-" * len(hdr))
    rows = []
    with tempfile.TemporaryDirectory(prefix="published-builds-") as tmp:
        for d in designs:
            for K in Ks:
                r = build_one(d, K, Path(tmp) / d.name)
                rows.append(r)
                p = r["published"]
                print(f"{d.name:18} {K:1} | {r['luts']:5} {r['tluts']:5} {r['depth']:3} {r['carry4']:3} "
                      f"{r['slices']!s:>4} | {r['conv_luts']:5} {r['conv_depth']:3} {r['conv_carry4']:3} "
                      f"{r['conv_slices']!s:>4} | " + (f"{p['luts']:5} {p['depth']:3}" if p else f"{'-':>5} {'-':>3}")
                      + f" | {r['seconds']:5.1f}", flush=True)
    print()
    for r in rows:
        if r["target"] is None:
            continue
        what = (f"{r['luts']} LUTs, depth {r['depth']} vs published {r['published']['luts']}, depth "
                f"{r['published']['depth']}" if r["K"] == 4 else
                f"{r['slices']} slices vs {r['conv_slices']} conventional ({r['baseline']})")
        print(f"build {r['design']} K={r['K']}: {what}: {'met' if r['target'] else 'MISSED'}")
    return rows


def main(argv=None) -> int:
    """Run the benchmark; prints a table, one line per target and (last line) one JSON object."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--adders", choices=["ripple", "yosys", "both"], default="ripple")
    ap.add_argument("--only", default="", help="comma-separated design names (" + ", ".join(
        dict.fromkeys([*BY_NAME, *(d.name for d in BUILDS)])) + ")")
    ap.add_argument("-K", type=int, action="append", help="LUT size (repeatable; default 4 and 6)")
    ap.add_argument("--no-verify", action="store_true", help="skip the proofs")
    ap.add_argument("--no-builds", action="store_true", help="only map the AIGs (no dcsflow build runs)")
    import _results
    _results.add_docs_option(ap, "docs/results/published.md")
    args = ap.parse_args(argv)
    _results.check_docs(args)
    every = list(dict.fromkeys([*BY_NAME, *(d.name for d in BUILDS)]))
    names = [n for n in args.only.split(",") if n] or every
    unknown = [n for n in names if n not in every]
    if unknown:
        ap.error(f"unknown design {unknown[0]!r}; designs: {', '.join(every)}")
    adders = ["ripple", "yosys"] if args.adders == "both" else [args.adders]
    Ks = args.K or [4, 6]
    hdr = (f"{'design':18} {'adders':6} {'K':>1} {'ANDs':>6} | {'LUTs':>5} {'TLUT':>5} {'dep':>3} {'proof':>5} "
           f"{'s':>5} | {'pub':>5} {'dep':>3} | {'dLUTs':>5} {'dep':>3} | {'aLUTs':>5} {'dep':>3}")
    print(hdr)
    print("-" * len(hdr))
    rows = []
    with tempfile.TemporaryDirectory(prefix="published-bench-") as tmp:
        for name in [n for n in names if n in BY_NAME]:
            for a in adders:
                for K in Ks:
                    r = run(BY_NAME[name], K, a, Path(tmp) / name, verify=not args.no_verify)
                    rows.append(r)
                    p = r["published"]
                    proof = "-" if r["verified"] is None else ("ok" if r["verified"] else "FAIL")
                    print(f"{name:18} {a:6} {K:1} {r['ands']:6} | {r['luts']:5} {r['tluts']:5} {r['depth']:3} "
                          f"{proof:>5} {r['seconds']:5.1f} | "
                          + (f"{p['luts']:5} {p['depth']:3}" if p else f"{'-':>5} {'-':>3}")
                          + f" | {r['abc_depth_luts']:5} {r['abc_depth_depth']:3} | "
                          f"{r['abc_area_luts']:5} {r['abc_area_depth']:3}", flush=True)
    print()
    targets = [r for r in rows if r["target"] is not None]
    for r in targets:
        p = r["published"]
        ptl = "" if p["tluts"] is None else f" ({p['tluts']} TLUTs)"
        print(f"{r['design']} K={r['K']}: {r['luts']} LUTs ({r['tluts']} TLUTs), depth {r['depth']} vs published "
              f"{p['luts']} LUTs{ptl}, depth {p['depth']}: {'met' if r['target'] else 'MISSED'}")
    summary = {"rows": rows, "targets_met": all(r["target"] for r in targets) if targets else None,
               "targets_missed": [f"{r['design']} K={r['K']}" for r in targets if not r["target"]]}
    if not args.no_builds:
        brows = run_builds([d for d in BUILDS if d.name in names], Ks)
        summary["builds"] = brows
        bt = [r for r in brows if r["target"] is not None]
        summary["build_targets_met"] = all(r["target"] for r in bt) if bt else None
        summary["build_targets_missed"] = [f"{r['design']} K={r['K']}" for r in bt if not r["target"]]
    if args.docs:
        docs_page(rows, summary)
    print(json.dumps(summary))
    return 0


def docs_page(rows: list[dict], summary: dict) -> None:
    """docs/results/published.md from this run's rows."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _results

    body = _results.table(
        ["design", "adders", "K", "AIG ANDs", "TMAP LUTs", "TLUTs", "depth", "proved", "published LUTs",
         "published depth", "target met", "ABC `&if` LUTs", "depth", "ABC area LUTs", "depth"],
        [[f"`{r['design']}`", r["adders"], r["K"], r["ands"], r["luts"], r["tluts"], r["depth"], r["verified"],
          (r["published"] or {}).get("luts"), (r["published"] or {}).get("depth"), r["target"],
          r["abc_depth_luts"], r["abc_depth_depth"], r["abc_area_luts"], r["abc_area_depth"]] for r in rows])
    missed = summary["targets_missed"]
    intro = ("Our own VHDL designs (`benchmarks/hdl/`, parameter ports marked `--PARAM`) of the kinds the "
             "published TLUT flow reports (UGent-HES/tlut_flow; Bruneel et al., ACM TODAES 16(4), 2011), each "
             "taken through GHDL and Yosys to one AIG of the whole logic and mapped by TMAP in its default mode "
             "and by ABC. The target: no more LUTs than the published figure at no greater depth "
             "(ripple-carry adders, as the published flow's synthesis hands them over). "
             + ("Every target is met." if summary["targets_met"] else
                f"Targets missed: {', '.join(missed)}." if missed else ""))
    builds = summary.get("builds") or []
    if builds:
        body += "\n\n## Through `dcsflow build`\n\n" + _results.table(
            ["design", "K", "TLUT LUTs", "TLUTs", "depth", "CARRY4", "slices", "conv. LUTs", "depth", "CARRY4",
             "slices", "conv. candidate", "adders to logic", "published LUTs", "published depth", "target met",
             "build s"],
            [[f"`{r['design']}`", r["K"], r["luts"], r["tluts"], r["depth"], r["carry4"], r["slices"], r["conv_luts"],
              r["conv_depth"], r["conv_carry4"], r["conv_slices"], r["baseline"],
              f"{(r['adders'] or {}).get('logic', 0)} of {(r['adders'] or {}).get('fed_by_parameters', 0)}",
              (r["published"] or {}).get("luts"), (r["published"] or {}).get("depth"), r["target"], r["seconds"]]
             for r in builds])
        missed = summary.get("build_targets_missed") or []
        body += ("\n\nBuilds: each design's `dcsflow.toml`, `--lut-size K`, default options (`--adders auto`) "
                 "but `--no-frontend-check`. Targets: at K = 4 no more LUTs than the published figure at no "
                 "greater depth; at K = 6 no more slices than the conventional implementation (the build's "
                 "strongest candidate). "
                 + ("Every build target is met." if not missed else f"Build targets missed: {', '.join(missed)}."))
    _results.write_page("published", "Published designs", body, intro)


if __name__ == "__main__":
    sys.exit(main())
