"""Time of the front-end check (``dcsflow.flow.frontcheck``) on the bundled designs.

For each design: the front end (``dcsflow build NAME --to frontend``, in a temporary folder or under
``--root``, where an existing front-end result is reused), then the check alone, timed: wall
seconds, the simulators' CPU seconds, and its steps (netlist to Verilog, netlist simulation, source
simulation). Prints one line per design; last line: one JSON object.

Usage: python benchmarks/frontcheck_bench.py [NAME ...] [--cycles N] [--root DIR] [--docs]
(default: picipher picipher_cis aes128_iter aes128_pipe, 2000 cycles; the front ends alone take
about 2 minutes, the checks about 2 more)
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dcsflow.flow import frontcheck as fc  # noqa: E402
from dcsflow.flow.build import BuildOptions, _context, _lut_options, build  # noqa: E402
from dcsflow.flow.registry import resolve  # noqa: E402
from dcsflow.flow.stages import load_record  # noqa: E402

DESIGNS = ["picipher", "picipher_cis", "aes128_iter", "aes128_pipe"]


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def bench(name: str, root: Path, cycles: int) -> dict:
    """Front end (reused when its record is current), then the timed check of design ``name``."""
    out = root / name
    design = resolve(name, None, [], None)
    # the options as the build completes them from the design (its LUT size and adder mode), so that
    # the context's design hash is the one the build records
    opts = _lut_options(BuildOptions(design=name, out=out, progress=False, stop="frontend"), design)
    ctx = _context(opts, design, lambda s: None)
    try:
        front, _ = load_record(out, "frontend", ctx.design_hash, {})
    except Exception:                       # missing or stale: run the front end
        build(opts)
        front, _ = load_record(out, "frontend", ctx.design_hash, {})
    cells = len(json.loads((out / "frontend" / "pre.json").read_text())["modules"][front.top]["cells"])
    steps: dict[str, float] = {}
    t0 = time.perf_counter()
    last = ["start", t0]

    def step(text: str) -> None:
        now = time.perf_counter()
        steps[last[0]] = round(now - last[1], 2)
        last[:] = [text.split(":", 1)[1].split(",")[0].strip(), now]

    cpu0 = _children_cpu()
    res = fc.check_frontend(fc.spec_for_build(ctx), out / "frontend" / "pre.json", front.top, list(front.params),
                            out / "frontcheck", cycles=cycles, step=step)
    wall = time.perf_counter() - t0
    steps[last[0]] = round(time.perf_counter() - last[1], 2)
    steps.pop("start", None)
    return {"design": name, "cells": cells, "cycles": res.cycles, "passed": res.passed, "wall_s": round(wall, 1),
            "cpu_s": round(_children_cpu() - cpu0, 1), "steps_s": steps, "simulator": res.simulator,
            "uncompared_bits": res.uncompared_bits, "compared_bits": res.compared_bits}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("designs", nargs="*", default=DESIGNS)
    ap.add_argument("--cycles", type=int, default=fc.DEFAULT_CYCLES)
    ap.add_argument("--root", type=Path, help="folder for the front-end results (kept; reused next time)")
    import _results
    _results.add_docs_option(ap, "docs/results/frontcheck.md")
    args = ap.parse_args()
    _results.check_docs(args)
    root = args.root or Path(tempfile.mkdtemp(prefix="frontcheck-bench-"))
    rows = []
    try:
        for name in args.designs:
            r = bench(name, root, args.cycles)
            rows.append(r)
            print(f"{name}: {r['wall_s']} s wall, {r['cpu_s']} s CPU, {r['cells']} cells, {r['cycles']} cycles, "
                  f"passed {r['passed']}; steps {r['steps_s']}", flush=True)
    finally:
        if args.root is None:
            shutil.rmtree(root, ignore_errors=True)
    if args.docs:
        docs_page(rows)
    print(json.dumps({"frontcheck": rows}))


def docs_page(rows: list[dict]) -> None:
    """docs/results/frontcheck.md from this run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _results

    body = _results.table(
        ["design", "netlist cells", "cycles", "passed", "wall s", "simulators' CPU s", "source simulator",
         "compared bits", "uncompared bits", "steps (s)"],
        [[f"`{r['design']}`", r["cells"], r["cycles"], r["passed"], r["wall_s"], r["cpu_s"], r["simulator"],
          r["compared_bits"], r["uncompared_bits"], ", ".join(f"{k} {v}" for k, v in r["steps_s"].items())]
         for r in rows])
    _results.write_page("frontcheck", "Front-end check", body,
                        "The time of the verify stage's front-end check alone (the source simulated against the "
                        "front end's netlist, every output compared every cycle), after the front end.")


if __name__ == "__main__":
    main()
