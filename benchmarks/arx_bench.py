#!/usr/bin/env python3
"""ARX family benchmark: the π-Cipher message processors at 16/32/64 bits and the PPE,
TLUT build against the conventional build, cycles per block, and the PPE's program switch.

Figures:

- per design (``--designs``, default ``picipher,picipher32,picipher64,ppe``): LUTs, FFs, LUT depth
  and slices of the TLUT build and of the conventional build (``report.json``; the conventional one
  is the strongest candidate, ``conventional.baseline`` names it); builds what ``--build NAME=DIR``
  does not give (``dcsflow build NAME``: picipher64 ~15 min, ppe ~17 min on 2 shared cores);
- PPE cycles (``designs/ppe``, program ``pi16/pi32/pi64.s`` on the RTL in Icarus, equal to the ISS,
  results checked against the π-Cipher golden model): one π call and one ``*`` operation
  ((π call − 32 I/O words) / 24, v2: 3 rounds × 8 ``*``), beside the seed's 54 cycles per ``*``;
- BMW-512 on the PPE (``benchmarks/ppe_bmw.py``): cycles per 1024-bit block and the KAT records
  passed (ISS; on the RTL too with ``--bmw-rtl``), beside the seed's ~1000 cycles per block;
- the PPE's program switch (``dcsflow rekey BUILD --param program=B`` on a copy of the ppe build,
  for each pair of bundled π programs): frames and ICAP words written, the lower bound (distinct
  frames holding a TLUT bit that differs between the two programs, ``scripts/switch_frames.py``),
  the modelled transport time (AXI HWICAP, ``dcsflow.scg.timemodel``'s µs per word), and beside it
  the modelled time to stream the same program through the conventional PPE's instruction port
  from the Cortex-A9 (3 AXI4-Lite writes per 64-bit word — address, low, high half — at the
  model's µs per AXI4-Lite write; an assumption: no AXI wrapper of the port is built here);
- the SCG of the ppe build on the Cortex-A9 (QEMU, ``benchmarks/rekey_bench.py``): instructions per
  program switch and their spread over ``--keys`` random parameter values (target 0).

Usage: python benchmarks/arx_bench.py [--build NAME=DIR ...] [--designs LIST] [--keys 4] [--bmw-rtl] [--docs]
Last line: one JSON object with at least ``ppe_slices_tlut``, ``ppe_slices_conventional``,
``ppe_depth_tlut``, ``ppe_depth_conventional``, ``program_switch_frames``,
``program_switch_frames_bound``, ``pi64_cycles_per_star``, ``pi64_cycles_per_permutation``,
``bmw512_cycles_per_block``, ``bmw512_kat_passed``, ``bmw512_kat_total``.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: the seed papers' PPE figures: one ``*`` operation at 64 bits, BMW-512 per block
SEED_CYCLES_PER_STAR = 54
SEED_BMW_CYCLES_PER_BLOCK = 1000
#: AXI writes to stream one 64-bit instruction word through the PPE's instruction port (address,
#: low half, high half), each costed like one AXI HWICAP word write
AXI_WRITES_PER_PROGRAM_WORD = 3


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build_figures(name: str, build: Path) -> dict:
    """TLUT and conventional figures of one build folder (report.json): {tlut, conventional} each
    with luts, ffs, depth, slices (+ tluts, baseline)."""
    rep = json.loads((build / "report.json").read_text())
    be = rep.get("backend") or {}
    c, t = rep["conventional"], rep["tlut"]
    return {"design": name,
            "tlut": {"luts": t["luts"], "tluts": t["tluts"], "ffs": t["ffs"], "depth": t["depth"],
                     "slices": (be.get("tlut") or {}).get("slices")},
            "conventional": {"luts": c["luts"], "ffs": c["ffs"], "depth": c["depth"],
                             "slices": (be.get("conventional") or {}).get("slices"), "baseline": c.get("baseline")}}


def pi_cycles() -> dict:
    """Cycles of the π programs on the PPE RTL (Icarus), checked equal to the ISS and against the
    golden model (``benchmarks/ppe_cycles.py``): {bits: {cycles_per_pi, cycles_per_star, matches_model}}.

    Raises:
        AssertionError: RTL and ISS disagree.
    """
    import random

    flat: dict = {}
    _load("ppe_cycles").pi_cycles(flat, random.Random(1))
    return {bits: {"cycles_per_pi": flat[f"pi{bits}_cycles_per_pi"], "cycles_per_star": flat[f"pi{bits}_cycles_per_star"],
                   "matches_model": flat[f"pi{bits}_matches_model"]} for bits in (16, 32, 64)}


def program_switch(build: Path, tmp: Path) -> dict:
    """Frames / ICAP words of ``dcsflow rekey --param program=B`` on a copy of the ppe ``build``, for
    every ordered pair of the bundled π programs, with the lower bound of each switch."""
    from dcsflow.designs.ppe import asm, sim

    from dcsflow.scg import timemodel as tm

    sf = _load_script("switch_frames")
    work = tmp / "ppe_switch"
    shutil.copytree(build, work, ignore=shutil.ignore_patterns("frontend", "tmap", "baselines", "conventional"))
    rows = []
    for a, b in itertools.permutations(("pi16", "pi32", "pi64"), 2):
        for prog in (a, b):
            p = subprocess.run([sys.executable, "-m", "dcsflow.flow", "rekey", str(work), "--param",
                                f"program={prog}", "--json"], capture_output=True, text=True, cwd=ROOT)
            if p.returncode:
                raise RuntimeError(f"rekey program={prog}: {p.stderr.strip().splitlines()[-1]}")
        r = json.loads(p.stdout)
        bound = sf.switch_frames(str(build), [f"program={a}"], [f"program={b}"])
        words = len(asm.assemble_file(sim.HERE / "programs" / f"{b}.s").words)
        rows.append({"from": a, "to": b, "frames": r["frames"], "icap_words": r["icap_words"],
                     "frames_bound": bound["frames"], "changed_bits": bound["changed_bits"],
                     "modelled_us_hwicap": round(tm.hwicap_us(r["icap_words"]), 1),
                     "program_words": words,
                     "modelled_us_instruction_port": round(tm.axil_us(words * AXI_WRITES_PER_PROGRAM_WORD), 1)})
    return {"switches": rows, "us_per_axi_word": tm.AXIL_WRITE_US.value}


def bmw_figures(rtl: bool) -> dict:
    """The last line (JSON) of ``benchmarks/ppe_bmw.py`` [``--rtl``]: BMW-512 KAT records and cycles.

    Raises:
        RuntimeError: the benchmark failed.
    """
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "ppe_bmw.py"), *(["--rtl"] if rtl else [])],
                       capture_output=True, text=True, cwd=ROOT)
    if p.returncode or not p.stdout.strip():
        raise RuntimeError(f"benchmarks/ppe_bmw.py failed: {(p.stderr.strip().splitlines() or ['?'])[-1]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--designs", default="picipher,picipher32,picipher64,ppe")
    ap.add_argument("--keys", type=int, default=4, help="random parameter values for the QEMU SCG count")
    ap.add_argument("--bmw-rtl", action="store_true", help="also run the 256 BMW-512 KAT records on the RTL")
    import _results
    _results.add_docs_option(ap, "docs/results/arx.md")
    a = ap.parse_args()
    _results.check_docs(a)
    given = dict(x.split("=", 1) for x in a.build)
    rb = _load("rekey_bench")
    out: dict = {"designs": {}}
    with tempfile.TemporaryDirectory() as td:
        tmp = Path(td)
        for name in a.designs.split(","):
            build, secs = rb.ensure_build(name, given, tmp)
            f = build_figures(name, build)
            f["build_seconds"] = None if secs is None else round(secs, 1)
            out["designs"][name] = f
            t, c = f["tlut"], f["conventional"]
            print(f"{name}: TLUT {t['luts']} LUTs ({t['tluts']} TLUTs) / {t['ffs']} FFs / depth {t['depth']} / "
                  f"{t['slices']} slices; conventional ({c['baseline']}) {c['luts']} / {c['ffs']} / "
                  f"{c['depth']} / {c['slices']}", flush=True)
            if name == "ppe":
                sw = program_switch(build, tmp)
                out["ppe_program_switch"] = sw
                for r in sw["switches"]:
                    print(f"  program {r['from']} -> {r['to']}: {r['frames']} frames (bound {r['frames_bound']}, "
                          f"{r['changed_bits']} TLUT bits change), {r['icap_words']} ICAP words, "
                          f"{r['modelled_us_hwicap']} us via AXI HWICAP; streaming {r['program_words']} words "
                          f"through the instruction port {r['modelled_us_instruction_port']} us (modelled)",
                          flush=True)
                scg = rb.bench(name, build, a.keys, tmp)
                out["ppe_scg"] = {k: scg.get(k) for k in ("scg_instructions", "scg_instructions_spread", "keys",
                                                          "code_style", "frames", "icap_words")}
                print(f"  SCG on the Cortex-A9 (QEMU): {scg['scg_instructions']} instructions per switch, "
                      f"spread {scg['scg_instructions_spread']} over {scg['keys']} values", flush=True)
        cyc = pi_cycles()
        for bits, r in cyc.items():
            print(f"PPE pi{bits}: {r['cycles_per_pi']} cycles per pi call, {r['cycles_per_star']:g} per * "
                  f"(seed: {SEED_CYCLES_PER_STAR} at 64 bits), golden model: {r['matches_model']}", flush=True)
        bmw = bmw_figures(a.bmw_rtl)
        print(f"PPE BMW-512: {bmw['bmw512_cycles_per_block']} cycles per block (seed: ~{SEED_BMW_CYCLES_PER_BLOCK}), "
              f"KAT {bmw['bmw512_kat_passed']}/{bmw['bmw512_kat_total']}", flush=True)
    ppe = out["designs"].get("ppe")
    sw = (out.get("ppe_program_switch") or {}).get("switches") or []
    out.update({
        "ppe_slices_tlut": ppe and ppe["tlut"]["slices"], "ppe_slices_conventional": ppe and ppe["conventional"]["slices"],
        "ppe_depth_tlut": ppe and ppe["tlut"]["depth"], "ppe_depth_conventional": ppe and ppe["conventional"]["depth"],
        "program_switch_frames": max((r["frames"] for r in sw), default=None),
        "program_switch_frames_bound": max((r["frames_bound"] for r in sw), default=None),
        "pi16_cycles_per_permutation": cyc[16]["cycles_per_pi"], "pi32_cycles_per_permutation": cyc[32]["cycles_per_pi"],
        "pi64_cycles_per_star": cyc[64]["cycles_per_star"], "pi64_cycles_per_permutation": cyc[64]["cycles_per_pi"],
        "pi_matches_model": all(r["matches_model"] for r in cyc.values()),
        **{k: bmw[k] for k in ("bmw512_cycles_per_block", "bmw512_kat_passed", "bmw512_kat_total")},
    })
    if a.docs:
        docs_page(out, cyc, bmw)
    print(json.dumps(out))
    return 0


def docs_page(out: dict, cyc: dict, bmw: dict) -> None:
    """docs/results/arx.md from this run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _results

    body = _results.table(
        ["design", "TLUT LUTs (TLUTs) / FFs / depth / slices", "conventional LUTs / FFs / depth / slices", "baseline"],
        [[f"`{n}`", f"{f['tlut']['luts']} ({f['tlut']['tluts']}) / {f['tlut']['ffs']} / {f['tlut']['depth']} / {f['tlut']['slices']}",
          f"{f['conventional']['luts']} / {f['conventional']['ffs']} / {f['conventional']['depth']} / {f['conventional']['slices']}",
          f"`{f['conventional']['baseline']}`"] for n, f in out["designs"].items()])
    body += "\nThe PPE's cycles (RTL, equal to the ISS):\n\n" + _results.table(
        ["program", "cycles per π call", "cycles per `*`", "matches the golden model"],
        [[f"π{bits}", r["cycles_per_pi"], r["cycles_per_star"], r["matches_model"]] for bits, r in cyc.items()])
    body += (f"\nBMW-512 on the PPE: {bmw['bmw512_cycles_per_block']} cycles per 1024-bit block, "
             f"{bmw['bmw512_kat_passed']}/{bmw['bmw512_kat_total']} KAT records passed (ISS).\n")
    sw = (out.get("ppe_program_switch") or {}).get("switches") or []
    if sw:
        body += "\nThe PPE's program switch (`dcsflow rekey BUILD --param program=B`):\n\n" + _results.table(
            ["from", "to", "frames", "bound", "TLUT bits changed", "ICAP words", "µs via AXI HWICAP (modelled)",
             "µs through the instruction port (modelled)"],
            [[r["from"], r["to"], r["frames"], r["frames_bound"], r["changed_bits"], r["icap_words"],
              r["modelled_us_hwicap"], r["modelled_us_instruction_port"]] for r in sw])
    if out.get("ppe_scg"):
        s = out["ppe_scg"]
        body += (f"\nThe SCG of the program switch on the Cortex-A9 (QEMU): {s['scg_instructions']} instructions, "
                 f"spread {s['scg_instructions_spread']} over {s['keys']} values ({s['code_style']} code).\n")
    _results.write_page("arx", "ARX family", body,
                        "The π-Cipher message processors at 16, 32 and 64 bits and the ARX processing element "
                        "(PPE) with its program as parameter input: TLUT build against the strongest conventional "
                        "candidate, cycles, and the cost of switching the PPE's program by micro-reconfiguration.")


if __name__ == "__main__":
    sys.exit(main())
