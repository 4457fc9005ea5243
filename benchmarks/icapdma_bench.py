"""ICAP stream controller benchmark: its cost (Yosys ``synth_xilinx``) and the rate at which it feeds
ICAPE2, measured in simulation (Icarus: the controller reading a rekey's words from an AXI4 memory model
into the ICAPE2 behavioural model, whose configuration memory is checked against the emulator).

Usage: python benchmarks/icapdma_bench.py [--build NAME=DIR ...] [--latency 32] [--docs]

Figures:

- ``luts``, ``ffs``, ``carry4``, ``ramb18``: the controller alone (``flow.icapdma.controller_cost``).
- per rekey: ICAP words, the cycles of the transfer (the clock edges with the controller's ``busy``
  high, from the edge that accepts START to the one that sets DONE) and words per cycle. The rekeys:
  synthetic builds (``scg._synthetic``: 1, 5 and 25 runs of frames; the last is the 100-frame rekey of
  the words-per-cycle target) and every ``--build`` folder. The memory model answers each 16-beat
  read ``--latency`` cycles after its address (default 32), one beat per cycle.
- the 100-frame rekey at other latencies; the overhead ``cycles - words`` of every transfer.

``words_per_cycle`` of the JSON line is the 100-frame rekey's at ``--latency``. The transfer time of
other rekeys is **modelled** from these: ``cycles = words + overhead`` with the overhead measured at
that latency (:func:`transfer_cycles`; the overhead does not depend on the length, the table shows
it). With ``--docs`` the run writes docs/results/icapdma.md and docs/results/icapdma.json, which
``rekey_bench.py`` reads (:func:`load_figures`).

The last line is one JSON object: ``{"controller": {"words_per_cycle", "luts", "ramb18", ...},
"rekeys": {NAME: {"icap_words", "cycles", "words_per_cycle"}}, "overhead_cycles": {LATENCY: n}}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _results  # noqa: E402

from dcsflow.fileio import write_text_atomic  # noqa: E402
from dcsflow.flow import icapdma as fi  # noqa: E402
from dcsflow.scg import buildfolder as bf, icapdma as ic, plan as pl  # noqa: E402
from dcsflow.scg._synthetic import make_build  # noqa: E402
from dcsflow.scg.emulator import ConfigEmulator  # noqa: E402

#: the figures file --docs writes (read by rekey_bench.py)
FIGURES = _results.RESULTS / "icapdma.json"
FIGURES_FORMAT = "dcsflow-icapdma-figures"
#: the synthetic rekeys: name -> TLUT sites (4 frames each)
SYNTHETIC = {"synthetic 1 run": [("SLICE_X56Y34", "A6LUT")],
             "synthetic 5 runs": None,                      # scg._synthetic's own sites
             "synthetic 100 frames": [(f"SLICE_X{x}Y10", "A6LUT") for x in range(25)]}
HUNDRED = "synthetic 100 frames"
LATENCIES = (16, 32, 64, 96, 128)


def measure(build, work: Path, latency: int, key: int = 0x5A) -> dict:
    """Simulate ``build``'s rekey for ``key`` (every parameter port) through the controller generated
    for it; the configuration memory afterwards must equal the emulator's. Returns ``icap_words``,
    ``cycles``, ``words_per_cycle``, ``overhead``, ``frames``, ``runs``, ``simulation_s``."""
    assign = {p: key & ((1 << w) - 1) for p, w in build.ports.items()}
    lay = ic.rekey_stream(build, pl.plan(build, assign).frames)
    t0 = time.perf_counter()
    sim = fi.simulate(lay.words, build.device, work, template=build.template, latency=latency,
                      top_text=fi.build_top(build))
    secs = time.perf_counter() - t0
    emu = ConfigEmulator(build.device, build.template.copy())
    emu.write_words(lay.words)
    for f in build.fars:
        if sim.frames.get(f, (0, None))[1] != emu.frames.frame(f):
            raise SystemExit(f"{build.path}: frame 0x{f:08X} differs from the emulator's after the simulation")
    if sim.read("status") != ic.DONE or sim.read("sent") != len(lay.words) or sim.protocol:
        raise SystemExit(f"{build.path}: the transfer did not complete cleanly: STATUS {sim.read('status'):#x}, "
                         f"{sim.read('sent')} of {len(lay.words)} words, {sim.protocol[:3]}")
    n, c = len(lay.words), sim.busy[0]
    return {"icap_words": n, "cycles": c, "words_per_cycle": round(n / c, 4), "overhead": c - n,
            "frames": len(build.fars), "runs": len(build.runs), "simulation_s": round(secs, 1)}


def transfer_cycles(words: int, figures: dict | None = None) -> int:
    """**Modelled** cycles of a transfer of ``words`` words through the controller: ``words`` plus
    the overhead measured at the figures' latency (:func:`load_figures`)."""
    f = figures or load_figures()
    return words + f["overhead_cycles"][str(f["latency"])]


def load_figures(path: Path = FIGURES) -> dict:
    """The figures docs/results/icapdma.json holds (format ``dcsflow-icapdma-figures`` 1): ``controller``
    {``words_per_cycle``, ``luts``, ``ffs``, ``carry4``, ``ramb18``}, ``latency``, ``overhead_cycles``
    {latency: cycles}, ``rekeys``, ``clock_mhz``, and the run's provenance (``date``, ``commit``,
    ``command``). Raises OSError / ValueError: no such file, or another format."""
    d = json.loads(Path(path).read_text())
    if d.get("format") != FIGURES_FORMAT or d.get("version") != 1:
        raise ValueError(f"{path}: not a {FIGURES_FORMAT} version 1 file")
    return d


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", action="append", default=[], metavar="NAME=DIR",
                    help="also simulate this finished build's rekey")
    ap.add_argument("--latency", type=int, default=fi.DEFAULT_LATENCY,
                    help="memory model: cycles from a read address to its first beat")
    _results.add_docs_option(ap)
    a = ap.parse_args()
    _results.check_docs(a)
    rekeys, latency_rows = {}, {}
    with tempfile.TemporaryDirectory() as td:
        tmp = Path(td)
        t0 = time.perf_counter()
        cost = fi.controller_cost(tmp / "cost")
        print(f"controller: {cost['luts']} LUTs, {cost['ffs']} FFs, {cost['carry4']} CARRY4, {cost['ramb18']} RAMB18 "
              f"(synth_xilinx, {time.perf_counter() - t0:.0f} s)", file=sys.stderr)
        builds = {}
        for name, sites in SYNTHETIC.items():
            builds[name] = bf.load_build(make_build(tmp / name.replace(" ", "_"), affine=sites is None, sites=sites))
        for spec in a.build:
            name, _, folder = spec.partition("=")
            builds[name] = bf.load_build(folder)
        for name, b in builds.items():
            r = measure(b, tmp / f"sim_{len(rekeys)}", a.latency)
            rekeys[name] = r
            print(f"{name}: {r['frames']} frames in {r['runs']} runs, {r['icap_words']} words in {r['cycles']} cycles: "
                  f"{r['words_per_cycle']} words/cycle (simulated in {r['simulation_s']} s)", file=sys.stderr)
        for lat in LATENCIES:
            r = rekeys[HUNDRED] if lat == a.latency else measure(builds[HUNDRED], tmp / f"lat{lat}", lat)
            latency_rows[lat] = r
            print(f"100 frames at latency {lat}: {r['cycles']} cycles, {r['words_per_cycle']} words/cycle",
                  file=sys.stderr)
    if a.latency not in latency_rows:
        latency_rows[a.latency] = rekeys[HUNDRED]
    controller = {"words_per_cycle": rekeys[HUNDRED]["words_per_cycle"], "luts": cost["luts"],
                  "ramb18": cost["ramb18"], "ffs": cost["ffs"], "carry4": cost["carry4"]}
    result = {"controller": controller, "latency": a.latency, "clock_mhz": fi.CLOCK_MHZ,
              "overhead_cycles": {str(k): v["overhead"] for k, v in sorted(latency_rows.items())},
              "rekeys": rekeys}
    if a.docs:
        docs_page(result, latency_rows)
    print(json.dumps({"controller": controller, "rekeys": {k: {x: v[x] for x in ("icap_words", "cycles",
                                                                                  "words_per_cycle")}
                                                            for k, v in rekeys.items()},
                      "overhead_cycles": result["overhead_cycles"]}))


def docs_page(result: dict, latency_rows: dict) -> None:
    """docs/results/icapdma.md and docs/results/icapdma.json from this run."""
    import datetime

    c = result["controller"]
    body = "## Cost (Yosys `synth_xilinx`, the controller alone)\n\n" + _results.figures(
        [("LUTs", c["luts"]), ("flip-flops", c["ffs"]), ("CARRY4", c["carry4"]), ("RAMB18", c["ramb18"])])
    body += ("\n## Rekeys through the controller (simulated)\n\nMemory model latency "
             f"{result['latency']} cycles, one beat per cycle; the configuration memory afterwards equals the "
             "emulator's for every row.\n\n")
    body += _results.table(
        ["rekey", "frames (runs)", "ICAP words", "cycles", "words per cycle", "overhead cycles",
         f"µs at {result['clock_mhz']:.0f} MHz"],
        [[n, f"{r['frames']} ({r['runs']})", r["icap_words"], r["cycles"], r["words_per_cycle"], r["overhead"],
          round(r["cycles"] / result["clock_mhz"], 2)] for n, r in result["rekeys"].items()])
    body += "\n## The 100-frame rekey against the memory latency (simulated)\n\n" + _results.table(
        ["latency (cycles)", "cycles", "words per cycle", "overhead cycles"],
        [[lat, r["cycles"], r["words_per_cycle"], r["overhead"]] for lat, r in sorted(latency_rows.items())])
    body += ("\nThe transfer time of any other rekey is modelled from these: cycles = ICAP words + the overhead at "
             "the latency (`benchmarks/icapdma_bench.py` `transfer_cycles`, labelled modelled where it is used).\n")
    _results.write_page("icapdma", "ICAP stream controller", body,
                        "The ICAPE2 stream controller of `--transport icap-dma` (`flow/templates/icapdma/"
                        "dcs_icap_dma.v`): its cost, and the rate at which it feeds ICAPE2 in an Icarus simulation "
                        "of the controller reading a rekey's words from an AXI4 memory model into the ICAPE2 "
                        "behavioural model (benchmarks/icapdma_bench.py docstring). Targets: at least 0.99 words "
                        "per cycle over a 100-frame rekey, at most 400 LUTs and 1 RAMB18. Not measured on a board.")
    doc = {"format": FIGURES_FORMAT, "version": 1,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "commit": _results.commit(), "command": _results.command(), **result}
    write_text_atomic(FIGURES, json.dumps(doc, indent=1) + "\n")
    print(f"figures: {FIGURES}", file=sys.stderr)


if __name__ == "__main__":
    main()
