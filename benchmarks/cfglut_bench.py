"""CFGLUT5 benchmark: the two TLUT realizations of the same designs side by side, with the rekey time.

Usage: python benchmarks/cfglut_bench.py [--designs picipher,aes128_iter,ppe] [--build NAME:KIND=DIR ...]
                                         [--keys 20] [-j 2] [--docs]

For every design three builds are compared (``--build NAME:frames=DIR`` / ``NAME:cfglut5=DIR`` reuse
finished ones; the others are built into a temporary folder): the ``frames`` build (the default TLUT
realization; its conventional baseline is the strongest candidate its back end chose, the same in both
builds) and the ``cfglut5`` build (``dcsflow build --tlut cfglut5``). Figures: LUTs, TLUTs, slices
(SLICEMs), LUT depth of each and of the conventional baseline; the cfglut5 build's CFGLUT5s,
parameter-bit flip-flops (TLUTs that read one parameter function, as static LUTs on a bit), chains,
chain words and shift cycles; and the rekey time, modelled from measured counts:

Every constant of these models, with its source, is in ``dcsflow.scg.timemodel`` (the page states
the values it used):

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
Yosys ``synth_xilinx`` (``flow.cfglut.loader_cost``): the build's slices are the core's.

The last line is one JSON object with, per design, ``luts_frames``, ``luts_cfglut5``, ``slices_frames``,
``slices_cfglut5``, ``shift_us``, ``rekey_us_axilite``, ``rekey_us_param_in_loader`` (None where the PPC
has AND nodes) and ``rekey_us_hwicap``. ``--docs`` writes docs/results/cfglut.md.
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


def ensure(name: str, kind: str, given: dict, tmp: Path, jobs: int) -> tuple[Path, float | None]:
    """The ``kind`` build of ``name``: given, else built into ``tmp``; (folder, seconds or None)."""
    key = f"{name}:{kind}"
    out = Path(given[key]) if key in given else tmp / f"{name}_{kind}"
    if (out / "report.json").exists():
        return out, None
    print(f"[{name}] dcsflow build {name} --tlut {kind} ...", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "dcsflow.flow", "build", name, "--tlut", kind, "--out", str(out),
                    "--quiet", "-j", str(jobs)], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return out, time.perf_counter() - t0


def figures(rep: dict, side: str) -> dict:
    """LUTs, TLUTs, FFs, depth (netlist) and slices, SLICEMs (back end) of ``side`` (``tlut`` or
    ``conventional``) of a report.json."""
    net = rep["tlut"] if side == "tlut" else rep["conventional"]
    be = (rep.get("backend") or {}).get(side) or {}
    return {"luts": net["luts"], "tluts": net.get("tluts", 0), "ffs": net["ffs"], "depth": net["depth"],
            "muxf7": net.get("muxf7", 0), "slices": be.get("slices"), "slicems": be.get("slicem")}


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
    frames_dir, t_frames = ensure(name, "frames", given, tmp, jobs)
    cfg_dir, t_cfg = ensure(name, "cfglut5", given, tmp, jobs)
    rf = json.loads((frames_dir / "report.json").read_text())
    rc = json.loads((cfg_dir / "report.json").read_text())
    fr, cf, conv = figures(rf, "tlut"), figures(rc, "tlut"), figures(rf, "conventional")
    c = rc["cfglut"]
    hw = rekey_bench.bench(name, frames_dir, keys, tmp)
    scg = cfglut_scg(cfg_dir, keys, tmp)
    scg_us = tm.a9_us(scg["instructions"])
    shift_us = tm.loader_us(c["shift_cycles"])
    axi_us = tm.axil_us(c["words"])
    dma_us = tm.dma_us(c["words"])
    pil = param_cost(cfg_dir, tmp)
    from dcsflow.flow import cfglut

    work = tmp / f"{name}_loader"
    work.mkdir(parents=True, exist_ok=True)
    ld = cfglut.loader_cost(cfg_dir, rc["top"], work)
    pil_us = (tm.axil_us(pil["param_words"]) + tm.loader_us(c["words"]) + shift_us) if pil else None
    return {
        "design": name, "conventional": {**conv, "baseline": rf["conventional"].get("baseline")},
        "frames": fr, "cfglut5": cf,
        "luts_frames": fr["luts"], "luts_cfglut5": cf["luts"], "luts_ratio": round(cf["luts"] / fr["luts"], 3),
        "slices_frames": fr["slices"], "slices_cfglut5": cf["slices"], "slicems_cfglut5": cf["slicems"],
        "cfglut5s": c["cfglut5"], "param_bits": c.get("param_bits", 0), "chains": c["chains"], "chain_luts": c["chain_luts"], "words": c["words"],
        "shift_cycles": c["shift_cycles"], "shift_us": round(shift_us, 2),
        "scg_instructions_cfglut": scg["instructions"], "scg_spread_cfglut": scg["spread"],
        "scg_ppc_instructions_cfglut": scg["ppc"], "scg_code_style_cfglut": scg["style"],
        "transfer_us_axilite": round(axi_us, 2), "transfer_us_dma": round(dma_us, 2),
        "rekey_us_axilite": round(scg_us + axi_us + shift_us, 2),
        "rekey_us_dma": round(scg_us + dma_us + shift_us, 2),
        "rekey_us_param_in_loader": round(pil_us, 2) if pil_us is not None else None,
        "param_in_loader": pil, "ppc_ands": hw["ppc_ands"],
        "loader": ld, "luts_cfglut5_with_loader": cf["luts"] + ld["luts"],
        "rekey_us_hwicap": hw["modelled_rekey_us_axi"], "icap_words": hw["icap_words"], "frames_touched": hw["frames"],
        "scg_instructions_frames": hw["scg_instructions"],
        "build_seconds": {"frames": round(t_frames, 1) if t_frames else None,
                          "cfglut5": round(t_cfg, 1) if t_cfg else None},
    }


def line(r: dict) -> str:
    pil = r["param_in_loader"]
    return (f"{r['design']}: LUTs {r['luts_frames']} frames / {r['luts_cfglut5']} cfglut5 ({r['luts_ratio']}x), "
            f"slices {r['slices_frames']} / {r['slices_cfglut5']} (SLICEMs {r['slicems_cfglut5']}); "
            f"conventional {r['conventional']['luts']} LUTs, {r['conventional']['slices']} slices "
            f"({r['conventional']['baseline']}); {r['cfglut5s']} CFGLUT5 and {r['param_bits']} parameter-bit FFs in "
            f"{r['chains']} chains of "
            f"{r['chain_luts']}, {r['words']} words, shift {r['shift_us']} us; loader and gate "
            f"{r['loader']['luts']} LUTs, {r['loader']['ffs']} FFs, {r['loader']['ramb18']} RAMB18; rekey: HWICAP {r['rekey_us_hwicap']} us, "
            f"AXI4-Lite {r['rekey_us_axilite']} us (SCG {r['scg_instructions_cfglut']} A9 instructions, spread "
            f"{r['scg_spread_cfglut']})"
            + f", DMA {r['rekey_us_dma']} us"
            + (f", parameter in the loader {r['rekey_us_param_in_loader']} us (+{pil['luts']} LUTs)" if pil else
               f", parameter in the loader not offered (PPC {r['ppc_ands']} AND nodes)"))


def docs_page(results: dict) -> None:
    """docs/results/cfglut.md from this run."""
    rows = []
    for n, r in results.items():
        cv, fr, cf, pil = r["conventional"], r["frames"], r["cfglut5"], r["param_in_loader"]
        rows.append([f"`{n}`", f"{cv['luts']} / {cv['slices']} / {cv['depth']} ({cv['baseline']})",
                     f"{fr['luts']} ({fr['tluts']} TLUTs) / {fr['slices']} / {fr['depth']}",
                     f"{cf['luts']} ({r['cfglut5s']} CFGLUT5, {r['param_bits']} parameter-bit FFs) / {cf['slices']} "
                     f"({cf['slicems']} SLICEM) / {cf['depth']}",
                     f"{r['chains']} x {r['chain_luts']}, {r['words']} words",
                     f"{r['loader']['luts']} / {r['loader']['ffs']} / {r['loader']['ramb18']}", r["shift_us"],
                     r["rekey_us_hwicap"],
                     f"{r['rekey_us_axilite']} (SCG {r['scg_instructions_cfglut']} instr., spread {r['scg_spread_cfglut']})",
                     r["rekey_us_dma"],
                     f"{r['rekey_us_param_in_loader']} (+{pil['luts']} LUTs)" if pil else
                     f"— (PPC {r['ppc_ands']} ANDs)"])
    body = _results.table(
        ["design", "conventional LUTs / slices / depth", "frames LUTs / slices / depth",
         "cfglut5 LUTs / slices / depth", "chains", "loader + gate LUTs / FFs / RAMB18", "shift µs", "rekey µs HWICAP", "rekey µs AXI4-Lite",
         "rekey µs DMA", "rekey µs parameter in loader"], rows)
    _results.write_page("cfglut", "CFGLUT5 against frames", body,
                        "The same designs with TLUTs rewritten through the HWICAP (`frames`) and as CFGLUT5 shift "
                        "chains (`--tlut cfglut5`), beside the conventional baseline the back end chose. Rekey "
                        "times are modelled from measured counts (benchmarks/cfglut_bench.py docstring): "
                        + _results.model_note(tm.AXIL_WRITE_US, tm.PS_DMA_BYTES_PER_S, tm.A9_HZ, tm.A9_IPC,
                                              tm.LOADER_HZ)
                        + ". The cfglut5 slices are the core's; the loader and gate around it (and "
                        "the parameter generator, with `--param-in-loader`) are counted apart, as Yosys's "
                        "`synth_xilinx` maps `cfglut/top.v` with the core a black box "
                        "(`flow.cfglut.loader_cost`). The frames column does not count the AXI HWICAP "
                        "either. A cfglut5 build makes a TLUT that reads one parameter function a static LUT "
                        "on a parameter-bit flip-flop of the chains (32 per chain element) instead of a "
                        "CFGLUT5.")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--designs", default="picipher,aes128_iter,ppe")
    ap.add_argument("--build", action="append", default=[], metavar="NAME:KIND=DIR")
    ap.add_argument("--keys", type=int, default=20)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    _results.add_docs_option(ap)
    a = ap.parse_args()
    given = dict(x.split("=", 1) for x in a.build)
    results = {}
    with tempfile.TemporaryDirectory() as td:
        for name in a.designs.split(","):
            results[name] = bench(name, given, a.keys, a.jobs, Path(td))
            print(line(results[name]), flush=True)
    if a.docs:
        docs_page(results)
    print(json.dumps({n: {k: r[k] for k in ("luts_frames", "luts_cfglut5", "slices_frames", "slices_cfglut5",
                                            "shift_us", "rekey_us_axilite", "rekey_us_param_in_loader",
                                            "rekey_us_hwicap", "rekey_us_dma", "scg_instructions_cfglut",
                                            "scg_spread_cfglut", "luts_cfglut5_with_loader", "cfglut5s",
                                            "param_bits")}
                      for n, r in results.items()}))


if __name__ == "__main__":
    main()
