"""Area recovery of a TLUT netlist's static logic with ABC, within a LUT-depth bound.

TMAP maps the whole extracted logic for depth first and recovers area within that depth. Where
TLUTs sit at the start of long paths (a TLUT-read operand feeding a datapath), the static logic
after them is squeezed into one level less than a conventional mapping of the same datapath needs,
and TMAP pays for that in LUTs (the PPE: about 200 LUTs). :func:`recover` re-maps the *static*
logic (the LUTs and MUXF7/MUXF8 outside the TLUT region, :func:`tlut_region`) with ABC
(:data:`SCRIPT`: structural choices, priority-cut mapping, ``&mfs`` resynthesis), reads it back and
proves it equivalent to the logic it replaces with ABC ``cec``; TLUTs and the PPC are not touched.
Candidates (:data:`TAILS`) keep TMAP's mapping for the last few LUT levels of the critical paths
(where TMAP's wide functions and depth-optimal cuts matter most). The caller finishes each (Yosys
re-import and the rest of synth_xilinx); they are judged on the *finished* netlist
(:func:`dcsflow.flow.netlist.lut_depth`: carry chains and RAM reads included), and the one with the
fewest LUTs within the bound is kept when it has fewer LUTs than TMAP's. The build's bound is the
shallowest conventional candidate's LUT depth (never less than TMAP's own), so the TLUT build is
never deeper than the conventional implementation it is compared with.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from dcsflow.aig import Aig
from dcsflow.tmap.errors import ToolError
from dcsflow.tmap.netlist import Lut, Mux, TlutNetlist, compose

from .baselines import ABC_SCRIPTS, BaselineError, _abc_map, _prove
from .cache import cached
from .errors import FlowError
from .netlist import LUT_TYPES, cell_levels, lut_depth

#: the ABC script re-mapping the static logic (the ``abc-synch2`` candidate's)
SCRIPT = ABC_SCRIPTS["abc-synch2"]
#: the candidates: TMAP's mapping kept for the last T LUT levels of its critical paths (0: none)
TAILS = (0, 2, 3, 4, 6)
#: prefix of the re-mapped LUTs' names
PREFIX = "sr$"


def _ins(c) -> list[str]:
    return [c.i0, c.i1, c.s] if isinstance(c, Mux) else list(c.inputs)


def tlut_region(net: TlutNetlist) -> set[str]:
    """Names of the TLUTs and of the MUXF7/MUXF8 that read a TLUT or such a mux on a data input
    (the multiplexers of wide TLUT functions): the part :func:`recover` never re-maps."""
    region: set[str] = set()
    for c in net.cells():
        if isinstance(c, Mux):
            if c.i0 in region or c.i1 in region:
                region.add(c.name)
        elif c.is_tlut:
            region.add(c.name)
    return region


def _close_muxes(net: TlutNetlist, kept: set[str]) -> None:
    """Make ``kept`` closed under the MUXF7/MUXF8 rule: a kept mux keeps the LUTs/muxes on its data
    inputs, and a mux reading a kept LUT or mux on a data input is kept (a MUXF7 must read LUTs of
    its own slice)."""
    byname = {c.name: c for c in net.cells()}
    changed = True
    while changed:
        changed = False
        for m in net.muxes:
            if m.name in kept or m.i0 in kept or m.i1 in kept:
                for x in (m.name, m.i0, m.i1):
                    if x in byname and x not in kept:
                        kept.add(x)
                        changed = True


def remap(net: TlutNetlist, kept: set[str], script: str = SCRIPT, timeout: float | None = None, prove: bool = True
          ) -> tuple | None:
    """``net`` with every cell outside ``kept`` (names; TLUT region included by the caller)
    re-mapped by ABC ``script``.

    Returns (new netlist, LUTs re-mapped, LUTs they became), or None when nothing is left to
    re-map; with ``prove`` False the re-mapped part is not proved here and a fourth item holds what
    :func:`prove_remap` needs. Raises BaselineError (ABC's result unreadable or not equivalent),
    ToolError/ToolMissing.
    """
    cells = net.cells()
    moved = [c for c in cells if c.name not in kept]
    if not any(isinstance(c, Lut) for c in moved):
        return None
    mnames = {c.name for c in moved}
    read = {x for c in moved for x in _ins(c)}
    pins = list(net.inputs) + sorted(x for x in read if x not in mnames and x not in net.inputs
                                      and x not in ("0", "1"))
    need = [x for c in cells if c.name in kept for x in _ins(c) if x in mnames]
    need += [d for _, d in net.outputs if d in mnames]
    need = list(dict.fromkeys(need))
    sub = TlutNetlist(net.K, pins, [], [c for c in moved if isinstance(c, Lut)],
                      [(f"o{j}", x) for j, x in enumerate(need)],
                      muxes=[c for c in moved if isinstance(c, Mux)])
    aig = compose(sub, Aig(), pins)
    got = _abc_map(aig, script, net.K, timeout, False)
    if prove:
        _prove(aig, got, script, timeout)
    taken = {c.name for c in cells} | set(net.inputs) | set(net.params)
    ren = {}
    for lut in got.luts:
        nm = PREFIX + lut.name
        if nm in taken:
            raise BaselineError(f"re-mapped LUT name {nm} clashes with the netlist")
        ren[lut.name] = nm
    new_luts = [Lut(ren[lut.name], [ren.get(x, x) for x in lut.inputs], lut.init) for lut in got.luts]
    drv = {}
    for (_, d), x in zip(got.outputs, need):
        # a constant output stays the constant net "0"/"1": the re-import ties the readers to it (a
        # static LUT without inputs is not a netlist cell; only a parameter bit is)
        drv[x] = ren.get(d, d)

    def r(x: str) -> str:
        return drv.get(x, x)

    keep_cells = [Lut(c.name, [r(x) for x in c.inputs], c.init, c.ppc) if isinstance(c, Lut)
                  else Mux(c.name, c.kind, r(c.i0), r(c.i1), r(c.s)) for c in cells if c.name in kept]
    allc = {c.name: c for c in new_luts + keep_cells}
    order, seen = [], set()
    for root in allc:                                         # topological order, iteratively
        if root in seen:
            continue
        stack = [(root, False)]
        while stack:
            x, expanded = stack.pop()
            if expanded:
                order.append(allc[x])
                continue
            if x in seen or x not in allc:
                continue
            seen.add(x)
            stack.append((x, True))
            stack.extend((y, False) for y in _ins(allc[x]) if y in allc and y not in seen)
    out = TlutNetlist(net.K, list(net.inputs), list(net.params), [c for c in order if isinstance(c, Lut)],
                      [(o, r(d)) for o, d in net.outputs], net.source_hash,
                      [c for c in order if isinstance(c, Mux)], net.tlut_k)
    res = (out, sum(1 for c in moved if isinstance(c, Lut)), len(new_luts))
    return res if prove else (*res, (aig, got, script, timeout))


@cached(base=lambda proof: Path("/"), key=lambda proof: list(proof[:3]))
def prove_remap(proof: tuple) -> str | None:
    """ABC ``cec`` of a candidate's re-mapped logic against the logic it replaces (``proof``: the
    fourth item of :func:`remap` with ``prove`` False). Returns None when proved, else why not
    (one line)."""
    aig, got, script, timeout = proof
    try:
        _prove(aig, got, script, timeout)
    except (BaselineError, ToolError, FlowError) as e:
        return str(e).splitlines()[0][:300]
    return None


def _luts(module: dict) -> int:
    return sum(1 for c in module["cells"].values() if c["type"] in LUT_TYPES)


def tail_cells(net: TlutNetlist, base_levels: dict[str, tuple[int, int]], levels: int) -> set[str]:
    """Static LUTs of ``net`` in the last ``levels`` LUT levels of the critical paths of its finished
    netlist, whose :func:`dcsflow.flow.netlist.cell_levels` are ``base_levels`` (cells
    ``$dcs$<name>``): on a path as long as the longest with fewer than ``levels`` LUT levels after
    their own output. Empty for ``levels`` <= 0."""
    if levels <= 0:
        return set()
    depth = max((a + d for a, d in base_levels.values()), default=0)
    out = set()
    for c in net.luts:
        a, d = base_levels.get(f"$dcs${c.name}", (0, -1))
        if not c.is_tlut and a + d >= depth and d < levels:
            out.add(c.name)
    return out


def plan(net: TlutNetlist, base_module: dict) -> list[tuple[int, set[str]]]:
    """The candidates of :func:`recover`: (T, the cells kept from TMAP's mapping) for each entry of
    :data:`TAILS` whose kept set differs from the earlier ones' (the TLUT region and the static LUTs
    in the last T LUT levels of the critical paths of ``base_module``, ``net`` finished; closed
    under the MUXF7/MUXF8 rule)."""
    region = tlut_region(net)
    base_levels = cell_levels(base_module)
    out: list[tuple[int, set[str]]] = []
    for tail in TAILS:
        kept = region | tail_cells(net, base_levels, tail)
        _close_muxes(net, kept)
        if all(kept != k for _, k in out):
            out.append((tail, kept))
    return out


def candidate(net: TlutNetlist, tail: int, kept: set[str], finish: Callable[[TlutNetlist], dict],
              script: str = SCRIPT, timeout: float | None = None) -> dict:
    """One candidate of :func:`recover`: ``net`` re-mapped outside ``kept`` (:func:`remap`, not yet
    proved) and finished. Returns ``{"tail", "luts", "depth", "netlist", "proof"}`` (the re-mapped
    TlutNetlist; luts and depth of the finished module; what :func:`prove_remap` needs: only the
    candidate chosen is proved, :func:`select`), ``{"tail", "failed": why}`` when ABC or the
    finishing run could not make it, or ``{"tail", "empty": True}`` when nothing is left to re-map."""
    try:
        got = remap(net, kept, script, timeout, prove=False)
        if got is None:
            return {"tail": tail, "empty": True}
        module = finish(got[0])
    except (BaselineError, ToolError, FlowError) as e:   # an optimization: skip the candidate
        return {"tail": tail, "failed": str(e).splitlines()[0][:300]}
    return {"tail": tail, "luts": _luts(module), "depth": lut_depth(module), "netlist": got[0], "proof": got[3]}


def select(base_module: dict, results: list[dict], bound: int | None, script: str = SCRIPT,
           prove: Callable[[dict], str | None] = lambda r: prove_remap(r["proof"])) -> tuple[int | None, dict]:
    """The choice of :func:`recover` among the candidates' ``results`` (of :func:`candidate`, in
    :func:`plan` order): the fewest finished LUTs within the bound (the earliest of equals), kept
    when fewer than TMAP's and proved (``prove(result)``: None, or why not; a candidate whose proof
    fails is recorded as failed and the next best is tried). Returns (the index of the kept result
    or None, the record (see :func:`recover`), without ``seconds``)."""
    d0 = lut_depth(base_module)
    bound = d0 if bound is None or bound < d0 else bound
    before = _luts(base_module)
    rec = {"script": script, "luts_before": before, "luts_after": before, "depth_before": d0, "depth": d0,
           "bound": bound, "tail": None, "candidates": [], "result": "no static logic"}
    made = []
    for i, r in enumerate(results):
        if r.get("empty"):
            break
        made.append(i)
        rec["candidates"].append({"tail": r["tail"], "failed": r["failed"]} if "failed" in r else
                                 {"tail": r["tail"], "luts": r["luts"], "depth": r["depth"]})
    order = sorted((i for i in made if "failed" not in results[i] and results[i]["depth"] <= bound
                    and results[i]["luts"] < before), key=lambda i: (results[i]["luts"], i))
    best = None
    for i in order:
        why = prove(results[i])
        if why is None:
            best = i
            r = results[i]
            rec.update(luts_after=r["luts"], depth=r["depth"], tail=r["tail"], result="kept", proved=True)
            break
        rec["candidates"][made.index(i)] = {"tail": results[i]["tail"], "failed": why}
    if best is None and rec["candidates"]:
        rec["result"] = f"not kept: no candidate with fewer than {before} LUTs at LUT depth <= {bound}"
    return best, rec


def recover(net: TlutNetlist, finish: Callable[[TlutNetlist], dict], base_module: dict,
            bound: int | None = None, status: Callable[[str], None] = lambda s: None,
            script: str = SCRIPT, timeout: float | None = None) -> tuple[TlutNetlist | None, dict]:
    """Area recovery of ``net``'s static logic (module docstring), in turn: one candidate per entry of
    :data:`TAILS` (:func:`plan`: TMAP's mapping kept for the TLUT region and for the last T LUT
    levels of the critical paths, :func:`tail_cells`; ABC re-maps the rest), each finished by
    ``finish`` (:func:`candidate`); the candidate with the fewest LUTs whose LUT depth is at most the
    bound is kept if it has fewer LUTs than TMAP's netlist (:func:`select`). The build runs the same
    parts as parallel jobs.

    Args:
        net: TMAP's netlist; finish: netlist -> finished module dict (Yosys JSON module, cells named
            ``$dcs$<netlist name>``); base_module: ``finish(net)``, already made by the caller;
        bound: the LUT depth allowed (None or less than TMAP's finished depth: TMAP's finished depth).
    Returns:
        (the kept netlist, or None; a record: luts_before / luts_after (finished LUTs), depth_before,
        depth (of the netlist used), bound, tail (T of the kept candidate), candidates
        ([{tail, luts, depth}], or {tail, failed: why} for a candidate that ABC, its proof or the
        finishing run could not make: it is skipped), script, seconds, result ("kept" or why
        not), proved (True when kept: a candidate's re-mapped logic is proved equivalent by ABC
        ``cec``, or it is skipped)).
    Raises:
        ToolMissing: ABC is not installed.
    """
    t0 = time.perf_counter()
    results = []
    for tail, kept in plan(net, base_module):
        status(f"static logic: ABC re-mapping (TMAP's last {tail} levels kept)" if tail else
               "static logic: ABC re-mapping")
        r = candidate(net, tail, kept, finish, script, timeout)
        results.append(r)
        if r.get("empty"):
            break
    best, rec = select(base_module, results, bound, script)
    rec["seconds"] = round(time.perf_counter() - t0, 3)
    return (results[best]["netlist"] if best is not None else None), rec
