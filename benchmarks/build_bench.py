"""The flow's own speed: each bundled design's whole `dcsflow build` beside Yosys's own
`synth_xilinx` of the same RTL, measured in the same run, and the main job (`dcsflow demo`).

Baseline (same run, same machine): ``yosys -p "read_verilog -sv <sources>; chparam ...;
synth_xilinx -flatten -top <top>"`` — Yosys's plain synthesis of the design's RTL with its
parameters (the conventional variant's own parameters are not used). The build: ``dcsflow build
<design> -j N`` (TLUT build, every conventional candidate, static re-mapping, proofs, front-end
check, back end), timed as a whole process. Target: build <= 3 x synth_xilinx for every design;
``dcsflow demo`` <= 180 s.

A design whose conventional build is another variant of its RTL (``Design.conventional_chparams``,
e.g. keccak's ``KEY_STATE=0``) is synthesized twice by the build, once per variant. For these the
synthesis of the conventional variant is timed too (``yosys_conventional_seconds``), and the build
is also given against the sum of both syntheses (``ratio_both``). This is extra information only:
the target is judged on ``ratio``.

Also printed: where each build's time went (the five slowest steps of report.json ``timing``), its
CPU seconds, and the scaling: build seconds against the AND nodes of the extracted logic, with the
exponent of a least-squares fit of log(seconds) on log(AND nodes) over the designs run.

Usage: python benchmarks/build_bench.py [--designs a,b,...] [--all] [--jobs N] [--out DIR]
                                        [--no-demo] [--docs] [--page NAME]
Last line: one JSON object with ``designs`` (per design: ``build_seconds``, ``yosys_seconds``,
``ratio``, ``cpu_seconds``, ``aig_ands``, ``yosys_conventional_seconds`` and ``ratio_both``: None
without a conventional variant), ``demo_seconds`` (None with --no-demo), ``jobs``,
``scaling_exponent``, ``target_ratio``, ``met``.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _results  # noqa: E402

#: the designs built by default: the main job's, and the programmable processing element
DEFAULT = ("picipher", "picipher_cis", "aes128_iter", "ppe")
#: --all adds the large ones (minutes each)
LARGE = ("picipher32", "picipher64", "aes128_pipe", "keccak")
TARGET_RATIO = 3.0
TARGET_DEMO_SECONDS = 180.0


def _dcsflow() -> list[str]:
    return [sys.executable, "-m", "dcsflow.flow"]


def yosys_seconds(design, conventional: bool = False) -> float:
    """Wall seconds of Yosys's own ``synth_xilinx -flatten`` of ``design``'s RTL (a Design) with the
    parameters the TLUT build sets, or with ``conventional`` those of the conventional variant
    (``design.conventional_chparams`` over them). Exits (SystemExit) when Yosys fails."""
    from dcsflow.tools import find_tool

    params = {**design.chparams, **(design.conventional_chparams if conventional else {})}
    srcs = " ".join(f'"{p}"' for p in design.verilog_sources)
    sets = " ".join(f"-set {k} {v if isinstance(v, int) else chr(34) + str(v) + chr(34)}"
                    for k, v in params.items())
    script = f"read_verilog -sv {srcs}\n"
    if sets:
        script += f"chparam {sets} {design.top}\n"
    script += f"synth_xilinx -flatten -top {design.top}\n"
    with tempfile.TemporaryDirectory(prefix="build-bench-") as d:
        (Path(d) / "s.ys").write_text(script)
        t0 = time.perf_counter()
        r = subprocess.run([find_tool("yosys"), "-q", "-s", "s.ys"], cwd=d, capture_output=True, text=True)
        secs = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"yosys synth_xilinx of {design.name} failed: {(r.stderr or r.stdout)[-300:]}")
    return secs


def build_seconds(name: str, out: Path, jobs: int | None) -> float:
    """Wall seconds of ``dcsflow build <name> --out <out>`` (a process, as a user runs it)."""
    cmd = [*_dcsflow(), "build", name, "--out", str(out), "--quiet"] + (["-j", str(jobs)] if jobs else [])
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"dcsflow build {name} failed: {(r.stderr or r.stdout)[-500:]}")
    return secs


def fit_exponent(points: list[tuple[float, float]]) -> float | None:
    """Slope of the least-squares line of log(seconds) on log(size) (None with fewer than 2 sizes)."""
    pts = [(math.log(x), math.log(y)) for x, y in points if x > 0 and y > 0]
    if len({x for x, _ in pts}) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)


def intro(jobs: int) -> str:
    """The results page's paragraph under its header (:func:`_results.write_page`)."""
    return (f"Builds with `-j {jobs}`. Baseline, measured in the same run: "
            "`yosys synth_xilinx -flatten` of the same RTL with the parameters the TLUT build sets "
            "(`chparam`, e.g. aes128_iter's key table), parameter inputs as ordinary inputs. Target: a "
            "whole build (TLUT build, every "
            f"conventional candidate, proofs, front-end check, back end) <= {TARGET_RATIO:g} x that.")


def markdown(rows: list[dict], demo: float | None, exponent: float | None) -> str:
    """The results page's tables (docs/results/build_times.md, or the page --page names)."""
    lines = ["| design | AND nodes | synth_xilinx (s) | dcsflow build (s) | ratio | CPU (s) | slowest step |",
             "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        s = r["slowest"][0] if r["slowest"] else {"path": "-", "wall": 0}
        lines.append(f"| {r['design']} | {r['aig_ands']:,} | {r['yosys_seconds']:.1f} | {r['build_seconds']:.1f} | "
                     f"{r['ratio']:.1f} | {r['cpu_seconds']:.0f} | {s['path']} ({s['wall']:.0f} s) |")
    lines.append("")
    both = [r for r in rows if r["ratio_both"] is not None]
    if both:
        lines += ["Designs whose conventional build is another variant of the RTL are synthesized twice by the "
                  "build, once per variant. For these, the conventional variant's `synth_xilinx` "
                  "(its `chparam`s) and the build against the sum of both are given below. This is "
                  "information only: the target is judged on the ratio above.", "",
                  "| design | synth_xilinx, conventional variant (s) | both variants (s) | ratio to both |",
                  "| --- | ---: | ---: | ---: |"]
        lines += [f"| {r['design']} | {r['yosys_conventional_seconds']:.1f} | "
                  f"{r['yosys_seconds'] + r['yosys_conventional_seconds']:.1f} | {r['ratio_both']:.1f} |"
                  for r in both]
        lines.append("")
    if demo is not None:
        lines.append(f"`dcsflow demo` (builds and checks): {demo:.0f} s (target <= {TARGET_DEMO_SECONDS:.0f} s).")
    if exponent is not None:
        lines.append(f"Scaling: build seconds grow as (AND nodes)^{exponent:.2f} over these designs.")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--designs", help=f"comma-separated designs [{','.join(DEFAULT)}]")
    ap.add_argument("--all", action="store_true", help=f"also {', '.join(LARGE)}")
    ap.add_argument("--jobs", "-j", type=int, default=None, help="dcsflow build -j N [the machine's cores]")
    ap.add_argument("--out", type=Path, help="folder for the build folders (default: a temporary folder)")
    ap.add_argument("--no-demo", action="store_true", help="do not time dcsflow demo")
    _results.add_docs_option(ap, "docs/results/<page>.md")
    ap.add_argument("--page", default="build_times",
                    help="the results page --docs writes [build_times]; the large designs have their own: "
                         "--designs aes128_pipe --no-demo --page build_times_large")
    args = ap.parse_args()
    _results.check_docs(args)

    from dcsflow.flow.jobs import default_jobs
    from dcsflow.flow.registry import installed

    names = args.designs.split(",") if args.designs else list(DEFAULT) + (list(LARGE) if args.all else [])
    designs = installed()
    unknown = [n for n in names if n not in designs]
    if unknown:
        raise SystemExit(f"unknown design(s): {', '.join(unknown)}")
    root = args.out or Path(tempfile.mkdtemp(prefix="build-bench-"))
    jobs = args.jobs or default_jobs()
    rows = []
    for name in names:
        ys = yosys_seconds(designs[name])
        yc = yosys_seconds(designs[name], conventional=True) if designs[name].conventional_chparams else None
        bs = build_seconds(name, root / name, args.jobs)
        rep = json.loads((root / name / "report.json").read_text())
        front = json.loads((root / name / "stages" / "frontend.json").read_text())["data"]
        t = rep["timing"]
        row = {"design": name, "yosys_seconds": round(ys, 2), "build_seconds": round(bs, 2),
               "ratio": round(bs / ys, 2), "cpu_seconds": round(t["cpu"], 1), "aig_ands": front["aig_ands"],
               "yosys_conventional_seconds": None if yc is None else round(yc, 2),
               "ratio_both": None if yc is None else round(bs / (ys + yc), 2),
               "stages": {k: v["wall"] for k, v in t["stages"].items()}, "slowest": t["slowest"]}
        rows.append(row)
        print(f"{name:14s} synth_xilinx {ys:7.1f} s   dcsflow build {bs:7.1f} s   ratio {bs / ys:5.2f}   "
              f"CPU {t['cpu']:7.1f} s   AND nodes {front['aig_ands']:,}", flush=True)
        if yc is not None:
            print(f"{'':14s} synth_xilinx of the conventional variant {yc:7.1f} s   "
                  f"ratio to both {bs / (ys + yc):5.2f}", flush=True)
        for s in t["slowest"]:
            print(f"    {s['wall']:7.1f} s wall {s['cpu']:7.1f} s CPU  {s['path']}", flush=True)
    demo = None
    if not args.no_demo:
        cmd = [*_dcsflow(), "demo", "--out", str(root / "demo")] + (["-j", str(args.jobs)] if args.jobs else [])
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        demo = time.perf_counter() - t0
        if r.returncode != 0:
            raise SystemExit(f"dcsflow demo failed: {(r.stderr or r.stdout)[-500:]}")
        print(f"dcsflow demo {demo:.1f} s (target <= {TARGET_DEMO_SECONDS:.0f} s)")
    exponent = fit_exponent([(r["aig_ands"], r["build_seconds"]) for r in rows])
    if exponent is not None:
        print(f"scaling: build seconds ~ (AND nodes)^{exponent:.2f}")
    if args.docs:
        title = "Build times" if args.page == "build_times" else f"Build times: {', '.join(names)}"
        _results.write_page(args.page, title, markdown(rows, demo, exponent), intro(jobs))
    met = all(r["ratio"] <= TARGET_RATIO for r in rows) and (demo is None or demo <= TARGET_DEMO_SECONDS)
    keys = ("build_seconds", "yosys_seconds", "ratio", "cpu_seconds", "aig_ands", "yosys_conventional_seconds",
            "ratio_both")
    print(json.dumps({"designs": {r["design"]: {k: r[k] for k in keys} for r in rows},
                      "demo_seconds": None if demo is None else round(demo, 1), "jobs": jobs,
                      "scaling_exponent": None if exponent is None else round(exponent, 3),
                      "target_ratio": TARGET_RATIO, "met": met, "machine": _results.machine(), "commit": _results.commit()}))


if __name__ == "__main__":
    main()
