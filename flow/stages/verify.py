"""Stage ``verify``: random-pattern simulation of TLUT netlist ∘ PPC against the front end's AIG,
then the front-end check (the source simulated against the front end's netlist).

Independent of TMAP's own ABC ``cec`` proof (whose verdict the record carries too): the TLUT
netlist is evaluated by :func:`dcsflow.flow.netsim.simulate_netlist` and the PPC by the AIG
simulator, and the TLUT attributes of the finished netlist are checked for consistency. The
front-end check (:mod:`dcsflow.flow.frontcheck`, on unless ``--no-frontend-check``) then checks
that ``frontend/pre.json`` itself does what the HDL says.
"""

from __future__ import annotations

import random
import time

from dcsflow.fileio import NETLIST_LIMIT, load_json_file
from dcsflow.aig import read_aiger

from .. import frontend as fe
from .. import netlist as nl
from ..frontcheck import run_for_build
from ..netsim import simulate_netlist
from ..records import top_module
from . import BuildError, Context, FrontendResult, MapResult, VerifyResult, checked_files

#: random patterns: ROUNDS rounds of WIDTH bit-parallel patterns (seeded: the same every run)
WIDTH, ROUNDS, SEED = 512, 4, 0xD5C


def run(ctx: Context, front: FrontendResult, mapped: MapResult) -> VerifyResult:
    """Run the stage (module docstring).

    Raises:
        BuildError: an output differs, a TLUT names a PPC output that does not exist or has the wrong
            number of entries, opaque TLUT cells left; files of earlier stages missing.
        FrontCheckError: the front-end check found a difference, or one of its runs failed.
    """
    out = ctx.out
    t0 = time.perf_counter()
    for p, stage in ((out / "tmap" / "netlist.json", "tmap"), (out / "tlut" / "netlist.json", "tmap")):
        if not p.exists():
            raise BuildError(f"{p} missing: run the '{stage}' stage first (--from {stage})")
    src = read_aiger(str(out / "frontend" / "logic.aag"))
    netlist = load_json_file(out / "tmap" / "netlist.json", NETLIST_LIMIT)
    ppc = read_aiger(str(out / mapped.ppc_file))
    rng = random.Random(SEED)
    ctx.step(f"simulating {ROUNDS}×{WIDTH} random patterns")
    for _ in range(ROUNDS):
        iv = {n: rng.getrandbits(WIDTH) for n in src.input_names}
        ref = src.simulate(iv, width=WIDTH)
        pv = ppc.simulate({n: iv[n] for n in ppc.input_names}, width=WIDTH)
        got = simulate_netlist(netlist, pv, {n: iv[n] for n in netlist["inputs"]}, WIDTH)
        for name, r in zip(src.output_names, ref):
            if got.get(name) != r:
                raise BuildError(f"verify: TLUT netlist ∘ PPC differs from the front end's AIG at output {name}")
    module = top_module(load_json_file(out / "tlut" / "netlist.json", NETLIST_LIMIT), front.top,
                        out / "tlut" / "netlist.json", BuildError)
    for cn, ent in nl.tlut_entries(module).items():
        if any(j < 0 or j >= len(ppc.outputs) for j in ent):
            raise BuildError(f"verify: TLUT {cn} names a PPC output that does not exist")
        if (1 if nl.is_pbit(module["cells"][cn]) else 1 << int(module["cells"][cn]["type"][3:])) != len(ent):
            raise BuildError(f"verify: TLUT {cn} has {len(ent)} PPC entries for its inputs")
    if any(c["type"].startswith(fe.TLUT_CELL) for c in module["cells"].values()):
        raise BuildError("verify: opaque TLUT cells left in the netlist")
    if mapped.abc_cec is False:
        raise BuildError("verify: TMAP's ABC equivalence proof failed (stages/tmap.json abc_cec false); "
                         "run from the tmap stage (--from tmap)")
    checked = checked_files(out, mapped.ppc_file)       # before the front-end check: what was simulated
    frontend_check = run_for_build(ctx, front, ctx.started.pop("frontcheck", None))
    return VerifyResult(random_patterns=WIDTH * ROUNDS, equal=True, abc_cec=mapped.abc_cec,
                        seconds=time.perf_counter() - t0, frontend_check=frontend_check, checked=checked)
