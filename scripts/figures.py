"""The figures of finished builds that a change of the flow's speed must not move.

For each build folder: the TLUT build's LUTs, TLUTs, FFs, slices and LUT depth; the conventional
implementation's (and which candidate it is); every candidate's LUTs, FFs, LUT depth and slices;
frames and ICAP words per rekey; the PPC's AND nodes; and the SHA-256 of the C the runtime
generates for it (``dcsflow codegen``: same C, same SCG instructions on the Cortex-A9).

Usage:
    python scripts/figures.py BUILD [BUILD ...]                 print the figures (JSON)
    python scripts/figures.py BUILD ... --update FILE --note TEXT
        write them into FILE (tests/data/build_figures.json: the table tests/test_build_figures.py
        compares builds with), replacing the entries of these designs
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def generated_c(build: Path) -> dict[str, str]:
    """SHA-256 of each file ``dcsflow codegen`` writes for ``build``."""
    with tempfile.TemporaryDirectory(prefix="figures-") as d:
        r = subprocess.run([sys.executable, "-m", "dcsflow.flow", "codegen", str(build), "--out", d],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"codegen {build} failed: {r.stderr.strip()[-300:]}")
        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(Path(d).iterdir())}


def figures(build: Path, with_c: bool = True) -> dict:
    """The figures of one finished build folder (module docstring)."""
    rep = json.loads((build / "report.json").read_text())
    be = rep["backend"]
    keys = ("luts", "ffs", "depth", "carry4", "muxf7", "muxf8")
    t, c = rep["tlut"], rep["conventional"]
    out = {
        "design": rep["design"],
        "design_hash": json.loads((build / "build.json").read_text())["design_hash"],
        "tlut": {**{k: t[k] for k in keys}, "tluts": t["tluts"], "slices": be["tlut"]["slices"],
                 "ppc_ands": t["ppc_ands"]},
        "conventional": {**{k: c[k] for k in keys}, "baseline": c["baseline"], "slices": be["conventional"]["slices"]},
        "candidates": {n: {k: b[k] for k in ("luts", "ffs", "depth", "slices")} for n, b in rep["baselines"].items()},
        "static_remap": {k: (t.get("static_remap") or {}).get(k) for k in ("result", "tail", "luts_after", "depth")},
        "rekey": {k: be["rekey"][k] for k in ("frames", "icap_words_batched")},
    }
    if with_c:
        out["generated_c_sha256"] = generated_c(build)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("builds", nargs="+", type=Path)
    ap.add_argument("--update", type=Path, help="the table to write the figures into")
    ap.add_argument("--note", default="", help="where the builds came from (stored in the table)")
    args = ap.parse_args()
    figs = {}
    for b in args.builds:
        f = figures(b)
        figs[f["design"]] = f
    if not args.update:
        print(json.dumps(figs, indent=1))
        return
    table = json.loads(args.update.read_text()) if args.update.exists() else {"format": "dcsflow-build-figures",
                                                                              "version": 1, "designs": {}}
    for name, f in figs.items():
        table["designs"][name] = {**f, "source": args.note}
    table["designs"] = dict(sorted(table["designs"].items()))
    args.update.write_text(json.dumps(table, indent=1) + "\n")
    print(f"wrote {len(figs)} design(s) into {args.update}")


if __name__ == "__main__":
    main()
