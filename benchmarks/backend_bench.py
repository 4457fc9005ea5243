"""Benchmark of the built-in back end: pack/place time, slices, frames per rekey and ICAP
words for picipher, picipher128 and picipher_cis.

Baselines measured in the same run: the conventional implementation through the same packer/placer
(slices), the lower bound 4 × ⌈TLUTs/200⌉ (frames) and per-TLUT read-modify-write (ICAP words).
Targets: pack + place of picipher <= 60 s; frames <= 1.2 × bound; batched ICAP words >= 50× fewer
than per-TLUT RMW; fewer slices for TLUT than conventional.
Last line: one JSON object (figures of picipher; per-design figures under "designs").

Usage: python benchmarks/backend_bench.py [--out DIR] [--reuse] [--seed N] [--area] [--tlut-pairs] [--docs]
  --reuse: DIR already holds front-end builds (runs only the back end: ``--from backend``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dcsflow.flow.build import BuildError, BuildOptions, build  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _results  # noqa: E402  (records the commit the run starts at, before any file is written)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="build folder root (default: a temporary folder)")
    ap.add_argument("--reuse", action="store_true", help="reuse front-end builds in --out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--area", action="store_true", help="TMAP area mode (dcsflow build --area)")
    ap.add_argument("--tlut-pairs", action="store_true", help="opt-in TLUT pairs in LUT6_2 sites")
    import _results
    _results.add_docs_option(ap, "docs/results/backend.md")
    args = ap.parse_args()
    _results.check_docs(args)
    root = args.out or Path(tempfile.mkdtemp(prefix="backend-bench-"))
    designs = {}
    for design in ("picipher", "picipher128", "picipher_cis"):
        out = root / design
        start = "backend" if args.reuse and (out / "stages" / "verify.json").exists() else "frontend"
        t0 = time.perf_counter()
        try:
            rep = build(BuildOptions(design=design, out=out, progress=False, start=start, seed=args.seed,
                                     area=args.area, tlut_pairs=args.tlut_pairs)).report
        except BuildError as e:  # stale front-end files: build from the start
            print(f"   ({e}; building from the front end)")
            rep = build(BuildOptions(design=design, out=out, progress=False, seed=args.seed, area=args.area,
                                     tlut_pairs=args.tlut_pairs)).report
        be = rep["backend"]
        t, c, r = be["tlut"], be["conventional"], be["rekey"]
        f = {
            "slices_conventional": c["slices"], "slices_tlut": t["slices"], "slices_saved": be["slices_saved"],
            "slices_saved_percent": be["slices_saved_percent"], "tluts": t["tluts"],
            "frames_per_rekey": r["frames_per_rekey"], "frames_lower_bound": r["frames_lower_bound"],
            "icap_words_batched": r["icap_words_batched"], "icap_words_per_tlut_rmw": r["icap_words_per_tlut_rmw"],
            "icap_ratio": r["ratio_rmw_to_batched"],
            "place_seconds": round(t["seconds"]["pack"] + t["seconds"]["place"], 2),
            "place_seconds_conventional": round(c["seconds"]["pack"] + c["seconds"]["place"], 2),
            "hpwl_tlut": t["hpwl"], "hpwl_conventional": c["hpwl"],
            "rekey_us_hwicap_rmw": r["rekey_us_hwicap_rmw"], "rekey_us_hwicap_batched": r["rekey_us_hwicap_batched"],
            "rekey_us_icap_rmw": r["rekey_us_icap_rmw"], "rekey_us_icap_batched": r["rekey_us_icap_batched"],
            "backend_stage_seconds": round(rep["stage_seconds"].get("backend", 0.0), 2),
            "build_seconds": round(time.perf_counter() - t0, 2),
        }
        designs[design] = f
        print(f"== {design} (seed {args.seed}{', TMAP --area' if args.area else ''}"
              f"{', --tlut-pairs' if args.tlut_pairs else ''})")
        print(f"   slices conventional {c['slices']:6d}   TLUT {t['slices']:6d}   saved {be['slices_saved']} "
              f"({be['slices_saved_percent']:.1f}%)")
        print(f"   pack+place TLUT {f['place_seconds']:.1f} s, conventional {f['place_seconds_conventional']:.1f} s; "
              f"HPWL TLUT {t['hpwl']} (initial {t['hpwl_initial']}), conventional {c['hpwl']}")
        print(f"   TLUTs {t['tluts']}: frames per rekey {r['frames_per_rekey']} (bound {r['frames_lower_bound']}, "
              f"ratio {r['frames_per_rekey'] / max(1, r['frames_lower_bound']):.2f})")
        print(f"   ICAP words per rekey: per-TLUT RMW {r['icap_words_per_tlut_rmw']}, batched {r['icap_words_batched']} "
              f"({r['ratio_rmw_to_batched']}x fewer)")
        print(f"   rekey time: HWICAP {r['rekey_us_hwicap_rmw']:.0f} µs -> {r['rekey_us_hwicap_batched']:.1f} µs; "
              f"raw ICAP {r['rekey_us_icap_rmw']:.1f} µs -> {r['rekey_us_icap_batched']:.2f} µs")
    p = designs["picipher"]
    out = {k: p[k] for k in ("slices_conventional", "slices_tlut", "frames_per_rekey", "frames_lower_bound",
                             "icap_words_batched", "icap_words_per_tlut_rmw", "place_seconds")}
    out["targets"] = {
        "place_le_60s": p["place_seconds"] <= 60,
        "frames_le_1.2_bound": all(d["frames_per_rekey"] <= 1.2 * d["frames_lower_bound"] for d in designs.values()),
        "icap_ge_50x": all(d["icap_words_per_tlut_rmw"] >= 50 * d["icap_words_batched"] for d in designs.values()),
        "fewer_slices_tlut": {k: d["slices_tlut"] < d["slices_conventional"] for k, d in designs.items()},
    }
    out["designs"] = designs
    if args.docs:
        docs_page(designs, args)
    print(json.dumps(out))


def docs_page(designs: dict, args) -> None:
    """docs/results/backend.md from this run."""
    body = _results.table(
        ["design", "slices conv.", "slices TLUT", "slices saved", "TLUTs", "frames / rekey", "bound",
         "ICAP words batched", "per-TLUT RMW", "pack + place s (TLUT)", "rekey µs AXI HWICAP (RMW → batched)",
         "rekey µs raw ICAP (RMW → batched)"],
        [[f"`{n}`", d["slices_conventional"], d["slices_tlut"], f"{d['slices_saved']} ({d['slices_saved_percent']:.1f}%)",
          d["tluts"], d["frames_per_rekey"], d["frames_lower_bound"], d["icap_words_batched"],
          d["icap_words_per_tlut_rmw"], d["place_seconds"],
          f"{d['rekey_us_hwicap_rmw']:.0f} → {d['rekey_us_hwicap_batched']:.1f}",
          f"{d['rekey_us_icap_rmw']:.1f} → {d['rekey_us_icap_batched']:.2f}"] for n, d in designs.items()])
    opts = f"seed {args.seed}" + (", TMAP --area" if args.area else "") + (", --tlut-pairs" if args.tlut_pairs else "")
    _results.write_page("backend", "Back end", body,
                        f"The built-in back end on the π16 designs ({opts}): slices of both implementations, "
                        "frames per rekey against the lower bound 4 × ⌈TLUTs/200⌉, ICAP words with frame batching "
                        "against per-TLUT read-modify-write, and the modelled rekey time.")


if __name__ == "__main__":
    main()
