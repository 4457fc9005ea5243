"""Structure of a build's TLUTs, for SCG design: frontier sizes, function classes and
XOR-permutation TLUTs.

For every TLUT of TMAP's mapping (default mode, the same as ``dcsflow build``) of a build's front-end
AIG (``BUILD/frontend/logic.aag``, parameters = the inputs of the build's parameter ports):

- **frontier**: the parameter-only AIG nodes the TLUT's cone reads (e.g. round-key bits; the key
  expansion above them is shared by all TLUTs). Each INIT bit is a function of the frontier only.
- **class**: TLUTs whose truth table over (regular inputs, frontier in node order) is the same; one
  class could be evaluated bit-sliced across its instances (32 per word).
- **XOR-permutation**: a TLUT with k = 6 inputs and 6 frontier bits whose INIT at frontier value f is
  its INIT at f = 0 with the index XORed by a mask s(f), s linear over GF(2) (checked for all 64 f):
  the AddRoundKey-into-S-box case (INIT bit i = B[i ^ s(k)]), computable by 6 conditional butterfly
  stages on the 64-bit INIT instead of AND nodes.

Usage: python benchmarks/tlut_classes.py BUILD [--docs]   (a finished ``dcsflow build`` folder)
Measured on aes128_pipe (2026-11-23): 6400 TLUTs; frontier sizes 2: 1152, 3: 128, 6: 5120; 393
classes (largest 1008); all 5120 six-frontier TLUTs (384 classes) are XOR-permutations with a linear
mask map. Last line: one JSON object.
"""

from __future__ import annotations

import collections
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dcsflow.tmap.affine import xor_permute  # noqa: E402
from dcsflow.aig import read_aiger
from dcsflow.tmap.cones import parameter_only  # noqa: E402
from dcsflow.tmap.mapper import map_tluts  # noqa: E402
from dcsflow.tmap.options import MapOptions  # noqa: E402


def _is_xor_permutation(tt: int) -> bool:
    """tt: truth table over 12 variables (6 regular inputs, then 6 frontier bits)."""
    inits = [sum(((tt >> (i | (f << 6))) & 1) << i for i in range(64)) for f in range(64)]
    masks = []
    for f in range(64):
        c = [x for x in range(64) if xor_permute(inits[0], x, 6) == inits[f]]
        if len(c) != 1:
            return False
        masks.append(c[0])
    return all(masks[a ^ b] == masks[a] ^ masks[b] for a in range(64) for b in range(64))


def analyse(build: Path) -> dict:
    """Figures of the module docstring for one build folder."""
    rep = json.loads((build / "report.json").read_text())
    aig = read_aiger(str(build / "frontend" / "logic.aag"))
    ports = set(rep["params"])
    params = [n for n in aig.input_names if re.sub(r"\[\d+\]$", "", n) in ports]
    t0 = time.perf_counter()
    res = map_tluts(aig, params, MapOptions(verify=False))
    g = res.variant or aig
    base, ands = g.first_and, g.ands
    pos = {n: 1 + j for j, n in enumerate(g.input_names)}
    ponly = parameter_only(g, [pos[p] for p in params])
    claim_of, sizes, classes = {}, collections.Counter(), collections.Counter()
    for lut in res.netlist.luts:
        lit = res.claims[lut.name]
        claim_of[lut.name] = lit
        if not lut.is_tlut:
            continue
        leaves = {}
        for j, nm in enumerate(lut.inputs):
            ll = claim_of[nm] if nm in claim_of else 2 * pos[nm]
            leaves[ll >> 1] = (j, ll & 1)
        order, front, seen, stack = [], set(), set(), [lit >> 1]
        while stack:
            x = stack.pop()
            if x in seen or x in leaves or x == 0:     # the constant is no frontier bit
                continue
            seen.add(x)
            if ponly[x]:
                front.add(x)
                continue
            order.append(x)
            a, b = ands[x - base]
            stack += [a >> 1, b >> 1]
        order.sort()
        front = sorted(front)
        k, m = len(lut.inputs), len(front)
        sizes[m] += 1
        if m > 10:
            continue
        width = 1 << (k + m)
        mask = (1 << width) - 1
        tt = {0: 0}
        for v, (j, c) in leaves.items():
            tt[v] = sum(1 << p for p in range(width) if p >> j & 1) ^ (mask if c else 0)
        for i, f in enumerate(front):
            tt[f] = sum(1 << p for p in range(width) if p >> (k + i) & 1)
        for x in order:
            a, b = ands[x - base]
            tt[x] = (tt[a >> 1] ^ (mask if a & 1 else 0)) & (tt[b >> 1] ^ (mask if b & 1 else 0))
        classes[(k, m, tt[lit >> 1] ^ (mask if lit & 1 else 0))] += 1
    xor_classes = [c for c in classes if c[0] == 6 and c[1] == 6 and _is_xor_permutation(c[2])]
    return {"design": rep["design"], "tluts": sum(sizes.values()),
            "frontier_sizes": {str(m): n for m, n in sorted(sizes.items())},
            "classes": len(classes), "largest_classes": sorted(classes.values(), reverse=True)[:8],
            "xor_permutation_classes": len(xor_classes),
            "xor_permutation_tluts": sum(classes[c] for c in xor_classes),
            "seconds": round(time.perf_counter() - t0, 1)}


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", type=Path, metavar="BUILD", help="a finished dcsflow build folder")
    import _results
    _results.add_docs_option(ap, "docs/results/tlut_classes.md")
    a = ap.parse_args()
    _results.check_docs(a)
    r = analyse(a.build)
    print(f"{r['design']}: {r['tluts']} TLUTs, frontier sizes {r['frontier_sizes']}, {r['classes']} classes "
          f"(largest {r['largest_classes']}), {r['xor_permutation_tluts']} XOR-permutation TLUTs in "
          f"{r['xor_permutation_classes']} classes ({r['seconds']} s)")
    if a.docs:
        docs_page(r)
    print(json.dumps(r))


def docs_page(r: dict) -> None:
    """docs/results/tlut_classes.md from this run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _results

    body = _results.figures([
        ("design", f"`{r['design']}`"), ("TLUTs", r["tluts"]),
        ("frontier sizes (parameter-only nodes read: TLUTs)", ", ".join(f"{m}: {n}" for m, n in r["frontier_sizes"].items())),
        ("function classes", r["classes"]), ("largest classes", ", ".join(map(str, r["largest_classes"]))),
        ("XOR-permutation TLUTs (classes)", f"{r['xor_permutation_tluts']} ({r['xor_permutation_classes']})"),
        ("seconds", r["seconds"]),
    ])
    _results.write_page("tlut_classes", "TLUT classes", body,
                        "The structure of a build's TLUTs, for the design of the SCG: the parameter-only nodes "
                        "each TLUT's cone reads (its frontier), TLUTs with the same truth table over (regular "
                        "inputs, frontier), and those whose INIT is a base table with its index XORed by a mask "
                        "linear in the frontier (AddRoundKey into an S-box).")


if __name__ == "__main__":
    main()
