"""CFGLUT5 benchmark: frames and cfglut5 builds beside a key register loaded over AXI4-Lite, rekey times.

The two TLUT realizations of the same designs side by side, beside the conventional circuit with a
key register the host loads over AXI4-Lite, with the rekey (load) time of each.

Usage: python benchmarks/cfglut_bench.py [--designs a,b,...] [--build NAME:KIND=DIR ...]
                                         [--keys 20] [-j 2] [--docs] [--allow-dirty]

``--designs`` defaults to every bundled design (``dcsflow.flow.registry.installed``); the page has a
row for each, saying so for a design this run did not measure. For every design two builds are
compared (``--build NAME:frames=DIR`` / ``NAME:cfglut5=DIR`` reuse finished ones; the others are built
into a temporary folder): the ``frames`` build (the default TLUT realization; its conventional
baseline is the strongest candidate its back end chose, the same in both builds) and the ``cfglut5``
build (``dcsflow build --tlut cfglut5``). Figures: LUTs, TLUTs, FFs, slices (SLICEMs), LUT depth of
each and of the conventional baseline; the cfglut5 build's CFGLUT5s, parameter-bit flip-flops
(TLUTs that read one parameter function, as static LUTs on a bit) and the TLUTs on them, chains,
chain words and shift cycles; and the rekey time, modelled from measured counts:

Every constant of these models, with its source, is in ``dcsflow.scg.timemodel`` (the page states
the values it used):

- **conventional, key register loaded over AXI4-Lite**: the TLUT build's own RTL with each parameter
  input driven by a register the host writes over a 32-bit port, the conventional candidates
  ``<mapper>@register`` of the frames build's report.json (``baselines``, with ``variant``
  ``register`` and ``load_words``): of those, the one the report's choice rule takes (the fewest
  slices, then LUTs, then LUT depth, among those ``eligible``, i.e. no deeper than the reference
  candidate). Load time: ``load_words`` AXI4-Lite writes at ``AXIL_WRITE_US`` each. A report
  without such candidates gives the chosen conventional baseline instead, whose parameter inputs
  are ports: its load words are counted from the parameter widths (one 32-bit word per started 32
  bits of each parameter input) and the page says that the register's flip-flops are not included.
- **HWICAP** (frames build): ``benchmarks/rekey_bench.py``'s own measurement and model (ICAP words
  of the SCG on the emulator at the AXI HWICAP's cost per word, Cortex-A9 instructions at its clock).
- **AXI4-Lite** (cfglut5 build): SCG (the chain words computed on the Cortex-A9: instructions of the
  generated firmware, ``scg_cfglut_evaluate``, counted in QEMU as ``rekey_bench.py`` counts the frames SCG)
  + one AXI4-Lite write per chain word (``AXIL_WRITE_US``) + the shift, S + 2 cycles at the loader's
  clock (the loader's START to DONE).
- **DMA** (cfglut5 build): the same with the words moved by the PS DMA controller
  (``PS_DMA_BYTES_PER_S``), setup not counted.
- **parameter in the loader** (cfglut5 build whose PPC has no AND node): one AXI4-Lite write per
  32-bit parameter word, the generated logic streaming the chain words into the loader at one per
  cycle of the loader's clock, the shift; its LUT cost from Yosys ``synth_xilinx``.

The loader and gate around the core (``cfglut/top.v`` with the core a black box) are costed apart by
Yosys ``synth_xilinx`` (``flow.cfglut.loader_cost``): the build's slices are the core's. Under the
table, the page repeats the verdict of every cfglut5 build without a CFGLUT5 (report.json
``verdict``: the conventional circuit with a shift-loaded key register).

The last line is one JSON object with, per design, ``luts_frames``, ``luts_cfglut5``, ``slices_frames``,
``slices_cfglut5``, ``shift_us``, ``rekey_us_axilite``, ``rekey_us_param_in_loader`` (None where the PPC
has AND nodes), ``rekey_us_hwicap``, ``register`` (the key-register column: ``candidate`` or None,
``luts``, ``ffs``, ``slices``, ``load_words``, ``load_us``, ``ffs_included``); a design whose build
failed has ``error`` instead. ``--docs`` writes docs/results/cfglut.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _results  # noqa: E402
import rekey_bench  # noqa: E402

from dcsflow.scg import buildfolder as bf  # noqa: E402
from dcsflow.scg import timemodel as tm  # noqa: E402

#: the name suffix and ``variant`` of the conventional candidates whose parameter inputs are registers
REGISTER_VARIANT = "register"


class BuildFailed(Exception):
    """A ``dcsflow build`` the benchmark ran failed (its message: the command and exit status)."""


def ensure(name: str, kind: str, given: dict, tmp: Path, jobs: int) -> tuple[Path, float | None]:
    """The ``kind`` build of ``name``: given, else built into ``tmp``; (folder, seconds or None).

    Raises:
        BuildFailed: the build exited with an error (its messages went to stderr).
    """
    key = f"{name}:{kind}"
    out = Path(given[key]) if key in given else tmp / f"{name}_{kind}"
    if (out / "report.json").exists():
        return out, None
    print(f"[{name}] dcsflow build {name} --tlut {kind} ...", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "dcsflow.flow", "build", name, "--tlut", kind, "--out", str(out),
                        "--quiet", "-j", str(jobs)], cwd=ROOT, stdout=subprocess.DEVNULL)
    if r.returncode:
        raise BuildFailed(f"dcsflow build {name} --tlut {kind} exited {r.returncode}")
    return out, time.perf_counter() - t0


def figures(rep: dict, side: str) -> dict:
    """LUTs, TLUTs, FFs, depth (netlist) and slices, SLICEMs (back end) of ``side`` (``tlut`` or
    ``conventional``) of a report.json."""
    net = rep["tlut"] if side == "tlut" else rep["conventional"]
    be = (rep.get("backend") or {}).get(side) or {}
    return {"luts": net["luts"], "tluts": net.get("tluts", 0), "ffs": net["ffs"], "depth": net["depth"],
            "muxf7": net.get("muxf7", 0), "slices": be.get("slices"), "slicems": be.get("slicem")}


def register_load_words(params: dict[str, int]) -> int:
    """32-bit AXI4-Lite writes that load a register per parameter input of ``params`` (name -> bits):
    one per started 32 bits of each."""
    return sum(-(-w // 32) for w in params.values())


def register_figures(rep: dict) -> dict:
    """The conventional key register loaded over AXI4-Lite, from a report.json: the best of its
    ``<mapper>@register`` conventional candidates (``baselines`` entries with ``variant``
    ``register`` or that name suffix) by the report's choice rule (:func:`best_register`), its LUTs,
    FFs, slices, LUT depth and ``load_words``, ``ffs_included`` true. Without such a candidate: the
    chosen conventional baseline, whose parameter inputs are ports (``ffs_included`` false: the
    register's ``register_ffs`` flip-flops are not in its FFs), with the load words of
    :func:`register_load_words`. ``load_us``: the words at ``timemodel.AXIL_WRITE_US``, modelled."""
    regs = _registers(rep)
    name = best_register(regs, rep.get("baselines") or {})
    params = {p: int(w) for p, w in (rep.get("params") or {}).items()}
    if name is not None:
        b = regs[name]
        words = b.get("load_words")
        words = register_load_words(params) if words is None else int(words)
        out = {"candidate": name, "luts": b["luts"], "ffs": b["ffs"], "slices": b.get("slices"),
               "depth": b.get("depth"), "ffs_included": True, "register_ffs": None}
    else:
        c = figures(rep, "conventional")
        words = register_load_words(params)
        out = {"candidate": None, "baseline": rep["conventional"].get("baseline"), "luts": c["luts"],
               "ffs": c["ffs"], "slices": c["slices"], "depth": c["depth"], "ffs_included": False,
               "register_ffs": sum(params.values())}
    return {**out, "load_words": words, "load_us": round(tm.axil_us(words), 2)}


def _registers(rep: dict) -> dict[str, dict]:
    """The register candidates of a report.json's ``baselines``: name -> entry."""
    return {n: b for n, b in (rep.get("baselines") or {}).items()
            if isinstance(b, dict) and (b.get("variant") == REGISTER_VARIANT or n.endswith("@" + REGISTER_VARIANT))}


def best_register(regs: dict[str, dict], baselines: dict[str, dict]) -> str | None:
    """Of the register candidates ``regs`` (name -> report.json ``baselines`` entry) with slices, the
    one the report's choice rule (``flow.baselines.choose``) takes: the fewest slices, then LUTs,
    then LUT depth, then name, among those ``eligible`` (the report's own flag; where a report lacks
    it: LUT depth no greater than the reference candidate's, ``flow.baselines.REFERENCE``); when
    none is eligible, among all of them. None without a candidate."""
    from dcsflow.flow.baselines import REFERENCE

    made = {n: b for n, b in regs.items() if b.get("slices") is not None and b.get("luts") is not None}
    if not made:
        return None
    ref = (baselines.get(REFERENCE) or {}).get("depth")

    def eligible(b: dict) -> bool:
        if isinstance(b.get("eligible"), bool):
            return b["eligible"]
        return ref is None or b.get("depth") is None or b["depth"] <= ref

    pool = [n for n, b in made.items() if eligible(b)] or list(made)
    return min(pool, key=lambda n: (made[n]["slices"], made[n]["luts"], made[n].get("depth") or 0, n))


def cfglut_scg(build: Path, keys: int, tmp: Path) -> dict:
    """Cortex-A9 instructions of the chain-word computation (``scg_cfglut_evaluate``: PPC and
    ``scg_gen_words``) of the build's generated firmware (``dcsflow codegen``), counted in QEMU over
    ``keys`` pseudo-random keys (:func:`rekey_bench.qemu_counts`): the largest count, its spread and
    the PPC part, and the code style."""
    from dcsflow.scg.codegen import codegen

    gen = tmp / f"{build.name}_gen"
    style = codegen(build, gen).style
    q = rekey_bench.qemu_counts(gen, tmp / f"{build.name}_fw", keys, root="scg_cfglut_evaluate")
    return {"instructions": max(q["all"]), "spread": max(q["all"]) - min(q["all"]), "ppc": max(q["ppc"]),
            "keys": q["keys"], "style": style}


def param_cost(build: Path, tmp: Path) -> dict | None:
    """The parameter generator's figures for a cfglut5 build whose PPC has no AND node: parameter
    words and its Yosys LUT cost; None otherwise."""
    from dcsflow.flow import cfglut

    b = bf.load_build(build)
    if b.ppc.aig.num_ands:
        return None
    work = tmp / f"{build.name}_param"
    work.mkdir(parents=True, exist_ok=True)
    src = work / "dcs_cfglut_param.v"
    src.write_text(cfglut.param_generator_verilog(b.cfglut_layout, b.ppc.aig, b.tlut_entries, b.param_widths))
    cost = cfglut.generator_cost(src, work)
    return {"param_words": len(cfglut.param_words({p: 0 for p in b.param_widths}, b.param_widths)), **cost}


def bench(name: str, given: dict, keys: int, jobs: int, tmp: Path) -> dict:
    """Build (or reuse) both builds of ``name``, measure what report.json does not hold (rekey_bench
    on the frames build, the chain-word SCG in QEMU, the loader's and parameter generator's Yosys
    cost) and assemble the figures (:func:`result`)."""
    from dcsflow.flow import cfglut

    frames_dir, t_frames = ensure(name, "frames", given, tmp, jobs)
    cfg_dir, t_cfg = ensure(name, "cfglut5", given, tmp, jobs)
    rf = json.loads((frames_dir / "report.json").read_text())
    rc = json.loads((cfg_dir / "report.json").read_text())
    hw = rekey_bench.bench(name, frames_dir, keys, tmp)
    scg = cfglut_scg(cfg_dir, keys, tmp)
    pil = param_cost(cfg_dir, tmp)
    work = tmp / f"{name}_loader"
    work.mkdir(parents=True, exist_ok=True)
    ld = cfglut.loader_cost(cfg_dir, rc["top"], work)
    return result(name, rf, rc, hw, scg, ld, pil, {"frames": t_frames, "cfglut5": t_cfg})


def result(name: str, rf: dict, rc: dict, hw: dict, scg: dict, loader: dict, pil: dict | None,
           seconds: dict) -> dict:
    """The figures of one design from the frames and cfglut5 builds' report.json (``rf``, ``rc``) and
    the measured counts: ``hw`` (:func:`rekey_bench.bench` of the frames build), ``scg``
    (:func:`cfglut_scg`), ``loader`` (``flow.cfglut.loader_cost``), ``pil`` (:func:`param_cost`),
    ``seconds`` (build wall seconds by kind, None where reused). Times are modelled (module
    docstring)."""
    fr, cf, conv = figures(rf, "tlut"), figures(rc, "tlut"), figures(rf, "conventional")
    c = rc["cfglut"]
    reg = register_figures(rc if _registers(rc) and not _registers(rf) else rf)
    scg_us = tm.a9_us(scg["instructions"])
    shift_us = tm.loader_us(c["shift_cycles"])
    axi_us = tm.axil_us(c["words"])
    dma_us = tm.dma_us(c["words"])
    pil_us = (tm.axil_us(pil["param_words"]) + tm.loader_us(c["words"]) + shift_us) if pil else None
    v = rc.get("verdict") or {}
    return {
        "design": name, "conventional": {**conv, "baseline": rf["conventional"].get("baseline")},
        "register": reg, "frames": fr, "cfglut5": cf,
        "luts_frames": fr["luts"], "luts_cfglut5": cf["luts"], "luts_ratio": round(cf["luts"] / fr["luts"], 3),
        "slices_frames": fr["slices"], "slices_cfglut5": cf["slices"], "slicems_cfglut5": cf["slicems"],
        "cfglut5s": c["cfglut5"], "param_bits": c.get("param_bits", 0), "param_bit_luts": c.get("param_bit_luts"),
        "chains": c["chains"], "chain_luts": c["chain_luts"], "words": c["words"],
        "shift_cycles": c["shift_cycles"], "shift_us": round(shift_us, 2),
        "scg_instructions_cfglut": scg["instructions"], "scg_spread_cfglut": scg["spread"],
        "scg_ppc_instructions_cfglut": scg["ppc"], "scg_code_style_cfglut": scg["style"],
        "transfer_us_axilite": round(axi_us, 2), "transfer_us_dma": round(dma_us, 2),
        "rekey_us_axilite": round(scg_us + axi_us + shift_us, 2),
        "rekey_us_dma": round(scg_us + dma_us + shift_us, 2),
        "rekey_us_param_in_loader": round(pil_us, 2) if pil_us is not None else None,
        "param_in_loader": pil, "ppc_ands": hw["ppc_ands"],
        "loader": loader, "luts_cfglut5_with_loader": cf["luts"] + loader["luts"],
        "rekey_us_hwicap": hw["modelled_rekey_us_axi"], "icap_words": hw["icap_words"], "frames_touched": hw["frames"],
        "scg_instructions_frames": hw["scg_instructions"],
        "verdict_cfglut5": v.get("line") if not c["cfglut5"] else None,
        "build_seconds": {k: round(t, 1) if t else None for k, t in seconds.items()},
    }


def line(r: dict) -> str:
    if "error" in r:
        return f"{r['design']}: not measured ({r['error']})"
    pil, reg = r["param_in_loader"], r["register"]
    return (f"{r['design']}: LUTs {r['luts_frames']} frames / {r['luts_cfglut5']} cfglut5 ({r['luts_ratio']}x), "
            f"slices {r['slices_frames']} / {r['slices_cfglut5']} (SLICEMs {r['slicems_cfglut5']}); "
            f"conventional {r['conventional']['luts']} LUTs, {r['conventional']['slices']} slices "
            f"({r['conventional']['baseline']}); key register over AXI4-Lite {reg['luts']} LUTs, {reg['ffs']} FFs, "
            f"{reg['slices']} slices ({reg['candidate'] or 'register FFs not included'}), {reg['load_words']} "
            f"words, load {reg['load_us']} us; {r['cfglut5s']} CFGLUT5 and {r['param_bits']} parameter-bit FFs in "
            f"{r['chains']} chains of "
            f"{r['chain_luts']}, {r['words']} words, shift {r['shift_us']} us; loader and gate "
            f"{r['loader']['luts']} LUTs, {r['loader']['ffs']} FFs, {r['loader']['ramb18']} RAMB18; rekey: HWICAP {r['rekey_us_hwicap']} us, "
            f"AXI4-Lite {r['rekey_us_axilite']} us (SCG {r['scg_instructions_cfglut']} A9 instructions, spread "
            f"{r['scg_spread_cfglut']})"
            + f", DMA {r['rekey_us_dma']} us"
            + (f", parameter in the loader {r['rekey_us_param_in_loader']} us (+{pil['luts']} LUTs)" if pil else
               f", parameter in the loader not offered (PPC {r['ppc_ands']} AND nodes)"))


HEADERS = ["design", "conventional (chosen): LUTs / FFs / slices / depth",
           "conventional, key register loaded over AXI4-Lite: LUTs / FFs / slices",
           "conventional, key register loaded over AXI4-Lite: load µs (modelled)",
           "frames: LUTs / FFs / slices / depth", "frames: rekey µs HWICAP (modelled)",
           "cfglut5: LUTs / FFs / slices / depth", "cfglut5: chains", "cfglut5: loader + gate LUTs / FFs / RAMB18",
           "cfglut5: shift µs", "cfglut5: rekey µs AXI4-Lite (modelled)", "cfglut5: rekey µs DMA (modelled)",
           "cfglut5: rekey µs parameter in loader (modelled)"]


def row(r: dict) -> list:
    """One design's row of the page's table (:data:`HEADERS`)."""
    if "error" in r:
        return [f"`{r['design']}`", f"not measured: {r['error']}"] + [None] * (len(HEADERS) - 2)
    cv, reg, fr, cf, pil = r["conventional"], r["register"], r["frames"], r["cfglut5"], r["param_in_loader"]
    reg_cell = f"{reg['luts']} / {reg['ffs']} / {reg['slices']}" + (
        f" (`{reg['candidate']}`)" if reg["ffs_included"] else
        f" (`{reg['baseline']}`, parameter inputs as ports: the register's {reg['register_ffs']} FFs not included)")
    return [f"`{r['design']}`", f"{cv['luts']} / {cv['ffs']} / {cv['slices']} / {cv['depth']} (`{cv['baseline']}`)",
            reg_cell, f"{reg['load_us']} ({reg['load_words']} word{'' if reg['load_words'] == 1 else 's'})",
            f"{fr['luts']} ({fr['tluts']} TLUTs) / {fr['ffs']} / {fr['slices']} / {fr['depth']}", r["rekey_us_hwicap"],
            f"{cf['luts']} ({r['cfglut5s']} CFGLUT5; {_n(r['param_bit_luts'])} TLUTs as static LUTs on "
            f"{r['param_bits']} parameter-bit FFs)"
            f" / {cf['ffs']} / {cf['slices']} ({cf['slicems']} SLICEM) / {cf['depth']}",
            f"{r['chains']} x {r['chain_luts']}, {r['words']} words",
            f"{r['loader']['luts']} / {r['loader']['ffs']} / {r['loader']['ramb18']}", r["shift_us"],
            f"{r['rekey_us_axilite']} (SCG {r['scg_instructions_cfglut']} instr., spread {r['scg_spread_cfglut']})",
            r["rekey_us_dma"],
            f"{r['rekey_us_param_in_loader']} (+{pil['luts']} LUTs)" if pil else f"— (PPC {r['ppc_ands']} ANDs)"]


def _n(x) -> str:
    return "?" if x is None else str(x)


INTRO = ("The bundled designs with TLUTs rewritten through the HWICAP (`frames`) and as CFGLUT5 shift "
         "chains (`--tlut cfglut5`), beside the conventional baseline the back end chose and the conventional "
         "circuit with its key register loaded over AXI4-Lite (the TLUT build's RTL with each parameter input "
         "driven by a register the host writes over a 32-bit port: the `<mapper>@register` candidate the "
         "report's choice rule takes). Rekey and load times are modelled from measured counts "
         "(benchmarks/cfglut_bench.py docstring): {model}. The cfglut5 slices are the core's; the loader "
         "and gate around it (and the parameter generator, with `--param-in-loader`) are counted apart, as "
         "Yosys's `synth_xilinx` maps `cfglut/top.v` with the core a black box (`flow.cfglut.loader_cost`). "
         "The frames column does not count the AXI HWICAP either. A cfglut5 build makes a TLUT that reads one "
         "parameter function a static LUT on a parameter-bit flip-flop of the chains (32 per chain element) "
         "instead of a CFGLUT5; where every TLUT does, it has no CFGLUT5 and is the conventional circuit with a "
         "shift-loaded key register, as its verdict (below the table) says.")


def intro() -> str:
    """The page's introduction (:data:`INTRO`) with the constants of its models and their sources."""
    return INTRO.format(model=_results.model_note(tm.AXIL_WRITE_US, tm.PS_DMA_BYTES_PER_S, tm.A9_HZ, tm.A9_IPC,
                                                  tm.LOADER_HZ))


def page_body(results: dict, designs: list[str]) -> str:
    """The page's table (a row for every design of ``designs``, the bundled ones; one not in
    ``results`` says it was not measured in this run) and the verdicts of the cfglut5 builds
    without a CFGLUT5."""
    rows = [row(results[n]) if n in results else
            [f"`{n}`", "not measured in this run"] + [None] * (len(HEADERS) - 2) for n in designs]
    rows += [row(r) for n, r in results.items() if n not in designs]
    body = _results.table(HEADERS, rows)
    plain = [(n, r["verdict_cfglut5"]) for n, r in results.items() if r.get("verdict_cfglut5")]
    if plain:
        body += ("\nThe cfglut5 builds without a CFGLUT5, in their own words (report.json `verdict`):\n\n"
                 + "".join(f"- `{n}`: {v}\n" for n, v in plain))
    return body


def docs_page(results: dict, designs: list[str]) -> None:
    """docs/results/cfglut.md from this run."""
    _results.write_page("cfglut", "CFGLUT5 against frames and a key register", page_body(results, designs),
                        intro())


def bundled() -> list[str]:
    """The bundled designs (every installed one), in the registry's order."""
    from dcsflow.flow.registry import installed

    return list(installed())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--designs", default=None,
                    help="comma-separated designs [every bundled design; the page has a row for each]")
    ap.add_argument("--build", action="append", default=[], metavar="NAME:KIND=DIR",
                    help="reuse a finished build of KIND frames or cfglut5 (repeatable)")
    ap.add_argument("--keys", type=int, default=20, help="pseudo-random keys per QEMU instruction count")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="dcsflow build -j N")
    _results.add_docs_option(ap, "docs/results/cfglut.md")
    a = ap.parse_args()
    _results.check_docs(a)
    designs = bundled()
    names = a.designs.split(",") if a.designs else designs
    unknown = [n for n in names if n not in designs]
    if unknown:
        raise SystemExit(f"error: unknown design(s): {', '.join(unknown)} (bundled: {', '.join(designs)})")
    given = dict(x.split("=", 1) for x in a.build)
    results = {}
    with tempfile.TemporaryDirectory() as td:
        for name in names:
            try:
                results[name] = bench(name, given, a.keys, a.jobs, Path(td))
            except BuildFailed as e:
                results[name] = {"design": name, "error": str(e)}
            print(line(results[name]), flush=True)
    if a.docs:
        docs_page(results, designs)
    keys = ("luts_frames", "luts_cfglut5", "slices_frames", "slices_cfglut5", "shift_us", "rekey_us_axilite",
            "rekey_us_param_in_loader", "rekey_us_hwicap", "rekey_us_dma", "scg_instructions_cfglut",
            "scg_spread_cfglut", "luts_cfglut5_with_loader", "cfglut5s", "param_bits", "param_bit_luts", "register")
    print(json.dumps({n: ({"error": r["error"]} if "error" in r else {k: r[k] for k in keys})
                      for n, r in results.items()}))


if __name__ == "__main__":
    main()
