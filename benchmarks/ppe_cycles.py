#!/usr/bin/env python3
"""Benchmark of the PPE (designs/ppe): cycles of the π programs and synth_xilinx counts.

Prints, per word size (π16, π32, π64): cycles per π call on the RTL (Icarus, no stalls; checked
equal to the ISS), cycles per * operation ((π call − 32 I/O words) / 24) and whether the RTL's
outputs match the golden model (π16: ``model.pi``; π32/π64: the generalized model's
``cipher(bits).pi`` when it exists, else "no model"); then Yosys ``synth_xilinx`` LUT/FF counts of
``ppe``. Last line: one JSON object (``pi64_cycles_per_star``, ``pi64_cycles_per_pi``, ...).
Usage: python benchmarks/ppe_cycles.py [--docs]   (--docs: also write docs/results/ppe_cycles.md)
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dcsflow.designs.picipher import model  # noqa: E402
from dcsflow.designs.ppe import asm, iss, sim  # noqa: E402
from dcsflow.tools import find_tool  # noqa: E402


def golden(bits):
    if bits == 16:
        return model.pi
    f = getattr(model, "cipher", None)
    return f(bits).pi if f else None


def pi_cycles(out: dict, rng: random.Random) -> None:
    """Runs pi16/pi32/pi64.s on the RTL (Icarus) and the ISS on random states and fills ``out`` with
    ``pi{bits}_cycles_per_pi``, ``pi{bits}_cycles_per_star`` and ``pi{bits}_matches_model`` (printing a
    line each).

    Raises:
        AssertionError: RTL and ISS disagree.
    """
    for bits in (16, 32, 64):
        prog = asm.assemble_file(sim.HERE / "programs" / f"pi{bits}.s")
        lanes = 64 // bits
        states = [[rng.getrandbits(bits) for _ in range(16)] for _ in range(lanes)]
        inp = [sum(states[k][i] << (bits * k) for k in range(lanes)) for i in range(16)]
        a = iss.run(prog.words, prog.coef, inp)
        r = sim.simulate(prog.words, prog.coef, inp)
        assert r.outputs == a.outputs and r.cycles == [a.cycles], "RTL and ISS disagree"
        pi = golden(bits)
        if pi is None:
            ok = "no model"
        else:
            mask = (1 << bits) - 1
            ok = all(tuple((w >> (bits * k)) & mask for w in r.outputs) == pi(tuple(states[k]))
                     for k in range(lanes))
        per_star = (r.cycles[0] - 32) / 24
        print(f"pi{bits}: {r.cycles[0]} cycles per pi call ({lanes} state(s)), {per_star:g} per * "
              f"operation, {len(prog.words)} instruction words, golden model: {ok}")
        out[f"pi{bits}_cycles_per_pi"] = r.cycles[0]
        out[f"pi{bits}_cycles_per_star"] = per_star
        out[f"pi{bits}_matches_model"] = ok


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    import _results
    _results.add_docs_option(ap, "docs/results/ppe_cycles.md")
    a = ap.parse_args()
    _results.check_docs(a)
    out = {}
    pi_cycles(out, random.Random(1))
    rtl = " ".join(str(p) for p in sim.rtl_files())
    y = subprocess.run([find_tool("yosys"), "-p", f"read_verilog {rtl}; synth_xilinx -top ppe; stat"],
                       capture_output=True, text=True)
    stat = y.stdout[y.stdout.rindex("Number of cells"):]
    cells = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s+(\w+)\s+(\d+)$", stat, re.M)}
    out["luts"] = sum(v for k, v in cells.items() if re.fullmatch(r"LUT\d", k))
    out["ffs"] = sum(v for k, v in cells.items() if k.startswith("FD"))
    out["ram64m"] = cells.get("RAM64M", 0)
    out["ramb36"] = cells.get("RAMB36E1", 0)
    print(f"ppe synth_xilinx: LUT {out['luts']}, FF {out['ffs']}, RAM64M {out['ram64m']}, RAMB36E1 {out['ramb36']}")
    if a.docs:
        docs_page(out)
    print(json.dumps(out))
    return 0


def docs_page(out: dict) -> None:
    """docs/results/ppe_cycles.md from this run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _results

    body = _results.table(
        ["program", "cycles per π call", "cycles per `*` operation", "matches the golden model"],
        [[f"π{b}", out[f"pi{b}_cycles_per_pi"], out[f"pi{b}_cycles_per_star"], out[f"pi{b}_matches_model"]]
         for b in (16, 32, 64) if f"pi{b}_cycles_per_pi" in out])
    body += (f"\nYosys `synth_xilinx` of `ppe`: {out['luts']} LUTs, {out['ffs']} FFs, {out['ram64m']} RAM64M, "
             f"{out['ramb36']} RAMB36E1.\n")
    _results.write_page("ppe_cycles", "PPE cycles", body,
                        "The bundled π programs on the PPE's RTL (Icarus, no stalls; cycles equal to the "
                        "instruction-set simulator's); a `*` operation is (π call − 32 I/O words) / 24.")


if __name__ == "__main__":
    sys.exit(main())
