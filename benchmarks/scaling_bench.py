"""How the back end and the front-end check grow with the design: generated designs of increasing
size up to about 50k LUTs, packed, placed (xc7z020) and checked against their source.

The designs (:func:`design_text`): a register of N bits, each bit's next value a 7-input function
of five other bits, a data input bit and a parameter bit (two LUTs and one FF per bit after
synthesis), and 32 outputs of three register bits each: about 2 N LUTs. Each is synthesized once by Yosys (``synth_xilinx
-flatten``, the conventional netlist the back end takes) and once by the flow's front end
(``dcsflow build --to frontend``: the netlist the front-end check simulates). Measured per size:
packing, placement and the front-end check (2,000 cycles), wall and CPU seconds; then the exponent
of a least-squares fit of log(seconds) on log(LUTs) for each. Target ("at most n log n"):
exponent <= 1.15 (n log n over 3k..50k LUTs corresponds to about 1.11).

Usage: python benchmarks/scaling_bench.py [--sizes 1500,3000,6000,12500,25000] [--cycles 2000]
       [--out DIR] [--docs]
Last line: one JSON object: ``sizes`` (per size: luts, slices, pack/place/frontcheck seconds),
``exponents`` (pack, place, frontcheck), ``target_exponent``, ``met``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _results  # noqa: E402
from build_bench import fit_exponent  # noqa: E402

TARGET_EXPONENT = 1.15


def design_text(n: int, name: str = "gen") -> str:
    """Verilog of a register of ``n`` one-bit regs; bit i's next value is a function of six other
    signals (register bits at fixed pseudo-random distances, one data bit, one parameter bit).
    Scalar regs, not one vector: an event-driven simulator propagates a whole vector whenever one of
    its bits changes, which would make the source's simulation quadratic in ``n``."""
    def b(i: int) -> str:
        return f"s{i % n}"
    lines = [f"module {name} (input clk, input rst, input [31:0] din, (* PARAM *) input [63:0] key,",
             "           output [31:0] dout);",
             "  reg " + ", ".join(f"s{i}" for i in range(n)) + ";",
             "  always @(posedge clk) begin",
             "    if (rst) begin"]
    lines += [f"      s{i} <= 1'b0;" for i in range(n)]
    lines += ["    end else begin"]
    for i in range(n):
        lines.append(f"      s{i} <= ({b(i + n - 1)} ^ ({b(i * 7 + 3)} & {b(i * 13 + 5)})) ^ "
                     f"(key[{i % 64}] ? {b(i * 29 + 11)} : din[{i % 32}]) ^ {b(i * 31 + 17)};")
    lines += ["    end", "  end"]
    # every register bit reaches the outputs through the s(i - 1) chain: nothing is removed
    for j in range(32):
        lines.append(f"  assign dout[{j}] = {b(j)} ^ {b(j * 997)} ^ {b(j * 1999 + 7)};")
    lines.append("endmodule")
    return "\n".join(lines) + "\n"


def synth(src: Path, workdir: Path) -> dict:
    """Yosys ``synth_xilinx -flatten`` of ``src``: the top module (Yosys JSON)."""
    from dcsflow.tools import find_tool

    r = subprocess.run([find_tool("yosys"), "-q", "-p", f"read_verilog {src}; synth_xilinx -flatten -top gen; "
                        "write_json syn.json"], cwd=workdir, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"yosys failed: {(r.stderr or r.stdout)[-300:]}")
    return json.loads((workdir / "syn.json").read_text())["modules"]["gen"]


def timed(fn):
    """(result, wall seconds, CPU seconds of this thread and its children)."""
    import os

    c0, t0 = os.times(), time.perf_counter()
    res = fn()
    c1 = os.times()
    cpu = (c1.user - c0.user) + (c1.system - c0.system) + (c1.children_user - c0.children_user) \
        + (c1.children_system - c0.children_system)
    return res, time.perf_counter() - t0, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1500,3000,6000,12500,25000", help="register bits N of each design")
    ap.add_argument("--cycles", type=int, default=2000)
    ap.add_argument("--out", type=Path)
    _results.add_docs_option(ap, "docs/results/scaling.md")
    args = ap.parse_args()
    _results.check_docs(args)

    from dcsflow.flow.backend.pack import pack
    from dcsflow.flow.backend.place import PlaceError, place
    from dcsflow.flow.build import BuildOptions, build
    from dcsflow.flow.frontcheck import CheckSpec, check_frontend
    from dcsflow.scg.device import get_device

    dev = get_device("xc7z020")
    root = args.out or Path(tempfile.mkdtemp(prefix="scaling-bench-"))
    rows = []
    for n in (int(x) for x in args.sizes.split(",")):
        d = root / f"n{n}"
        d.mkdir(parents=True, exist_ok=True)
        src = d / "gen.v"
        src.write_text(design_text(n))
        module = synth(src, d)
        luts = sum(1 for c in module["cells"].values() if c["type"].startswith("LUT"))
        packing, t_pack, c_pack = timed(lambda: pack(module))
        slices = len(packing.slices)
        try:
            _, t_place, c_place = timed(lambda: place(packing, module, dev, seed=1))
        except PlaceError as e:
            t_place = c_place = None
            print(f"  n={n}: placement not possible: {e}")
        build(BuildOptions(design=str(src), out=d / "b", stop="frontend", progress=False, jobs=1))
        spec = CheckSpec(language="verilog", sources=(src,), top="gen")
        res, t_fc, c_fc = timed(lambda: check_frontend(spec, d / "b" / "frontend" / "pre.json", "gen", ["key"],
                                                       d / "fc", cycles=args.cycles))
        assert res.passed, res
        row = {"n": n, "luts": luts, "slices": slices, "pack_s": round(t_pack, 2), "pack_cpu": round(c_pack, 2),
               "place_s": None if t_place is None else round(t_place, 2),
               "place_cpu": None if c_place is None else round(c_place, 2),
               "frontcheck_s": round(t_fc, 2), "frontcheck_cpu": round(c_fc, 2)}
        rows.append(row)
        print(f"LUTs {luts:6d} slices {slices:6d}   pack {t_pack:7.2f} s   place "
              f"{'-' if t_place is None else f'{t_place:7.2f}'} s   front-end check {t_fc:7.2f} s", flush=True)
    exps = {k: fit_exponent([(r["luts"], r[f"{k}_s"]) for r in rows if r[f"{k}_s"]])
            for k in ("pack", "place", "frontcheck")}
    for k, e in exps.items():
        print(f"{k}: seconds ~ LUTs^{e:.2f}" if e is not None else f"{k}: -")
    met = all(e is not None and e <= TARGET_EXPONENT for e in exps.values())
    if args.docs:
        rows_md = [[r["luts"], r["slices"], f"{r['pack_s']:.2f}", None if r["place_s"] is None else f"{r['place_s']:.2f}",
                    f"{r['frontcheck_s']:.2f}"] for r in rows]
        body = (_results.table(["LUTs", "slices", "pack (s)", "place (s)", "front-end check (s)"], rows_md)
                + "\nFitted exponents: " + ", ".join(f"{k} {e:.2f}" for k, e in exps.items() if e is not None)
                + (" (target met)" if met else " (target missed)") + "\n")
        _results.write_page("scaling", "Scaling of the back end and the front-end check", body,
                            f"Generated designs (about 2 LUTs and one FF per register bit), packed "
                            f"and placed on xc7z020, front-end check of {args.cycles} cycles. Target: seconds grow "
                            f"at most as n log n (fitted exponent <= {TARGET_EXPONENT}).")
    print(json.dumps({"sizes": rows, "exponents": {k: None if e is None else round(e, 3) for k, e in exps.items()},
                      "target_exponent": TARGET_EXPONENT, "met": met}))


if __name__ == "__main__":
    main()
