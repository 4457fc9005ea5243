"""A deliberately naive TLUT mapper (one LUT per AND node) with the TMAP contract's output format.

A second, independent implementation used by the front-end tests (select it with
``DCSFLOW_MAPPER=tests._naive_mapper:naive_mapper``). Not part of the product.
"""

from __future__ import annotations

import json
from pathlib import Path

from dcsflow.aig import Aig, read_aiger, write_aiger
from dcsflow.flow.mapping import MapOutcome


def naive_mapper(aig_path: Path, params: list[str], out_dir: Path) -> MapOutcome:
    src = read_aiger(str(aig_path))
    names = list(src.input_names)
    ands = [(2 * (src.first_and + i), a, b) for i, (a, b) in enumerate(src.ands)]
    outs = list(zip(src.output_names, src.outputs))
    pset = set(params)
    ppc = Aig()
    pl = {n: ppc.add_input(n) for n in params}
    # per variable: ("param", ppc_lit) | ("reg", signal name)
    kind: dict[int, tuple[str, object]] = {}
    for k, n in enumerate(names):
        kind[k + 1] = ("param", pl[n]) if n in pset else ("reg", n)
    luts: list[dict] = []
    ppc_out: dict[int, int] = {}

    def entry(lit: int) -> int:
        if lit not in ppc_out:
            ppc_out[lit] = len(ppc_out)
            ppc.add_output(lit, f"e{ppc_out[lit]}")
        return ppc_out[lit]

    def fan(lit: int):
        v, c = lit >> 1, lit & 1
        if v == 0:
            return ("param", c)
        k, x = kind[v]
        return (k, (x ^ c) if k == "param" else (x, c))

    for lhs, r0, r1 in ands:
        f = [fan(r0), fan(r1)]
        if all(k == "param" for k, _ in f):
            kind[lhs >> 1] = ("param", ppc.add_and(f[0][1], f[1][1]))
            continue
        regs = []
        for k, x in f:
            if k == "reg" and x[0] not in regs:
                regs.append(x[0])
        vals = []
        for i in range(1 << len(regs)):
            acc = 1
            for k, x in f:
                if k == "param":
                    acc = ppc.add_and(acc, x)
                else:
                    bit = (i >> regs.index(x[0])) & 1
                    acc = ppc.add_and(acc, 1 if bit ^ x[1] else 0)
            vals.append(acc)
        name = f"n{lhs >> 1}"
        if all(v in (0, 1) for v in vals):
            luts.append({"name": name, "inputs": regs, "init": format(sum(v << i for i, v in enumerate(vals)), "x")})
        else:
            luts.append({"name": name, "inputs": regs, "ppc": [entry(v) for v in vals]})
        kind[lhs >> 1] = ("reg", name)
    outputs = []
    for oname, lit in outs:
        k, x = fan(lit)
        if k == "param":
            if x in (0, 1):
                outputs.append({"name": oname, "driver": str(x)})
            else:
                luts.append({"name": f"t_{oname}", "inputs": [], "ppc": [entry(x)]})
                outputs.append({"name": oname, "driver": f"t_{oname}"})
        elif x[1]:
            luts.append({"name": f"inv_{oname}", "inputs": [x[0]], "init": "1"})
            outputs.append({"name": oname, "driver": f"inv_{oname}"})
        else:
            outputs.append({"name": oname, "driver": x[0]})
    regular = [n for n in names if n not in pset]
    netlist = {"format": "dcsflow-tlut-netlist", "version": 1, "K": 6, "inputs": regular,
               "params": list(params), "luts": luts, "outputs": outputs, "source_hash": ""}
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "netlist.json").write_text(json.dumps(netlist))
    write_aiger(ppc, out_dir / "ppc.aag", binary=False)
    return MapOutcome(netlist=netlist, ppc_path=out_dir / "ppc.aag",
                      stats={"luts": len(luts), "tluts": sum("ppc" in l for l in luts),
                             "ppc_ands": ppc.num_ands, "verified": None})
