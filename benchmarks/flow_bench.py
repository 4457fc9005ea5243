"""Benchmark of the flow: wall time of each build stage for picipher, picipher128 and
picipher_cis, the conventional-vs-TLUT comparison, and build+check time of picipher.

Baseline measured in the same run: the conventional implementation (the strongest candidate of the
build, report.json ``conventional.baseline``). Targets: build + check of picipher <= 120 s; TLUT LUTs+FFs < conventional LUTs+FFs;
picipher_cis needs >= 40% fewer cycles than picipher for a 16-byte message.
Last line: one JSON object (figures of picipher).

Usage: python benchmarks/flow_bench.py [--out DIR] [--no-check] [--docs]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dcsflow.flow.build import BuildOptions, build  # noqa: E402
from dcsflow.flow.report import comparison_rows  # noqa: E402
from dcsflow.flow.check import check_build  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="build folder root (default: a temporary folder)")
    ap.add_argument("--no-check", action="store_true", help="skip the simulation checks")
    import _results
    _results.add_docs_option(ap, "docs/results/flow.md")
    args = ap.parse_args()
    _results.check_docs(args)
    root = args.out or Path(tempfile.mkdtemp(prefix="flow-bench-"))
    figures = {}
    for design in ("picipher", "picipher128", "picipher_cis"):
        t0 = time.perf_counter()
        rep = build(BuildOptions(design=design, out=root / design, progress=False)).report
        t_build = time.perf_counter() - t0
        print(f"== {design}: build {t_build:.1f} s")
        for k, v in rep["stage_seconds"].items():
            print(f"   stage {k:20s} {v:8.2f} s")
        for m, c, t in comparison_rows(rep):
            print(f"   {m:16s} {c:>14s} {t:>20s}")
        f = {"build_seconds": round(t_build, 2), "report": rep}
        if not args.no_check and design != "picipher128":
            t1 = time.perf_counter()
            chk = check_build(root / design, progress=False)
            f["check_seconds"] = round(time.perf_counter() - t1, 2)
            f["check"] = f"{chk.passed}/{chk.total}"
            f["cycles16"] = chk.cycles_for(16)
            print(f"   check {chk.passed}/{chk.total} in {f['check_seconds']} s; "
                  f"cycles for a 16-byte message: {f['cycles16']}")
        figures[design] = f
    p = figures["picipher"]
    rep = p["report"]
    out = {
        "baseline": rep["conventional"].get("baseline"),
        "luts_conventional": rep["conventional"]["luts"], "luts_tlut": rep["tlut"]["luts"],
        "tluts": rep["tlut"]["tluts"], "ffs_conventional": rep["conventional"]["ffs"],
        "ffs_tlut": rep["tlut"]["ffs"], "depth_conventional": rep["conventional"]["depth"],
        "depth_tlut": rep["tlut"]["depth"], "build_seconds": p["build_seconds"],
        "check_seconds": p.get("check_seconds"),
        "build_check_seconds": round(p["build_seconds"] + (p.get("check_seconds") or 0), 2),
        "luts_ffs_ratio_tlut_vs_conventional": round(
            (rep["tlut"]["luts"] + rep["tlut"]["ffs"]) / (rep["conventional"]["luts"] + rep["conventional"]["ffs"]), 4),
        "cis_luts_tlut": figures["picipher_cis"]["report"]["tlut"]["luts"],
        "cis_ffs_tlut": figures["picipher_cis"]["report"]["tlut"]["ffs"],
        "cycles16_picipher": p.get("cycles16"), "cycles16_cis": figures["picipher_cis"].get("cycles16"),
    }
    if out["cycles16_picipher"] and out["cycles16_cis"]:
        out["cis_cycle_saving"] = round(1 - out["cycles16_cis"] / out["cycles16_picipher"], 4)
    if args.docs:
        docs_page(figures)
    print(json.dumps(out))


def docs_page(figures: dict) -> None:
    """docs/results/flow.md from this run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _results

    stages = sorted({k for f in figures.values() for k in f["report"]["stage_seconds"]})
    body = "Wall seconds of each step of the build:\n\n" + _results.table(
        ["design", *stages, "build", "check", "check result", "cycles (16-byte message)"],
        [[f"`{n}`", *[f["report"]["stage_seconds"].get(k) for k in stages], f["build_seconds"], f.get("check_seconds"),
          f.get("check"), f.get("cycles16")] for n, f in figures.items()])
    body += "\nConventional (the strongest candidate) against TLUT implementation:\n\n" + _results.table(
        ["design", "baseline", "LUTs conv. / TLUT (TLUTs)", "FFs conv. / TLUT", "depth conv. / TLUT"],
        [[f"`{n}`", f"`{f['report']['conventional'].get('baseline')}`",
          f"{f['report']['conventional']['luts']} / {f['report']['tlut']['luts']} ({f['report']['tlut']['tluts']})",
          f"{f['report']['conventional']['ffs']} / {f['report']['tlut']['ffs']}",
          f"{f['report']['conventional']['depth']} / {f['report']['tlut']['depth']}"] for n, f in figures.items()])
    _results.write_page("flow", "Flow", body,
                        "`dcsflow build` of the π16 designs (every stage, both implementations, every "
                        "conventional candidate) and `dcsflow check` on the official vectors.")


if __name__ == "__main__":
    main()
