"""The LUT-mapper hand-off: one function, so the mapper can be swapped.

:func:`map_logic` maps the front end's AIGER with TMAP (``tmap.mapper.map_tluts``, see the TMAP
contract) and returns the TLUT netlist (format "dcsflow-tlut-netlist" v1) and the PPC location.
``DCSFLOW_MAPPER=module:function`` selects another function with the same signature as
:func:`tmap_mapper` (used by tests and for experiments); at a LUT size other than 6 it is called
with ``K=`` and must accept it.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from dcsflow.fileio import NETLIST_LIMIT, load_json_file

from .cache import cached
from .errors import FlowError


class MapperError(FlowError):
    """The mapper is missing or failed."""


@dataclass
class MapOutcome:
    """Result of a mapper run.

    netlist: the TLUT netlist dict; ppc_path: PPC AIGER (inputs = ``netlist["params"]``);
    stats: luts, tluts, depth, ppc_ands, verified (bool or None), notes (the reference figures
    without parameters are :func:`reference_figures`, a job of its own);
    seconds: wall time.
    """

    netlist: dict
    ppc_path: Path
    stats: dict = field(default_factory=dict)
    seconds: float = 0.0


def tmap_mapper(aig_path: Path, params: list[str], out_dir: Path, K: int = 6, area: bool = False,
                status=None, tlut_k: int | None = None) -> MapOutcome:
    """Map with TMAP in its default mode, as ``dcsflow map`` does: reduced cuts, depth-oriented then
    area recovery (``area``: without the depth bound), 16 priority cuts per node, the front end's AIG
    and its ABC-optimized variants (``tmap.options.ABC_AIG_SCRIPTS``) plus 8 cuts on the front end's AIG
    (the best cover is kept), or 8
    cuts on the AIG alone above ``tmap.options.FULL_MODE_ANDS`` AND nodes, TLUTs of at most ``tlut_k``
    regular inputs (None: ``K``; given, also parameter bits: ``MapOptions.param_bits``); writes
    out_dir/{netlist.json,ppc.aig,ppc.json}. ``stats["luts"]`` leaves the parameter bits out (they
    are flip-flops of the chains)."""
    try:
        from dcsflow.aig import read_aiger
        from dcsflow.tmap.mapper import map_tluts
        from dcsflow.tmap.options import MapOptions
    except ImportError as e:  # pragma: no cover - depends on the TMAP branch being merged
        raise MapperError(f"TMAP is not available ({e}); merge the tmap package") from e
    t0 = time.perf_counter()
    aig = read_aiger(str(aig_path))
    # the default mode (ABC-optimized AIG variants, 16 priority cuts per node) cuts the picipher
    # designs' LUTs by ~15% (and their depth); the proof stays against the front end's AIG
    # TLUTs for CFGLUT5s (tlut_k): a TLUT that reads one parameter function becomes a static LUT on
    # a parameter bit, which the chains load as a flip-flop (one bit instead of a CFGLUT5's 32)
    res = map_tluts(aig, params, MapOptions(K=K, area=area, verify=True, tlut_k=tlut_k, param_bits=tlut_k is not None),
                    progress=status)
    out_dir.mkdir(parents=True, exist_ok=True)
    res.write(str(out_dir))
    st = res.stats
    stats = dataclasses.asdict(st) if dataclasses.is_dataclass(st) else dict(vars(st) if not isinstance(st, dict) else st)
    stats["notes"] = list(res.notes)
    stats["luts"] = stats["luts"] - stats.get("param_bits", 0)
    netlist = load_json_file(out_dir / "netlist.json", NETLIST_LIMIT)
    return MapOutcome(netlist=netlist, ppc_path=out_dir / "ppc.aig", stats=stats,
                      seconds=time.perf_counter() - t0)


@cached(base=lambda aig_path, *a, **k: Path(aig_path).parent, inputs=lambda aig_path, *a, **k: [aig_path])
def reference_figures(aig_path: Path, params: list[str], K: int = 6, area: bool = False) -> dict:
    """TMAP's reference figures of the AIGER ``aig_path`` (not used for the build): the same TMAP
    run as :func:`tmap_mapper` (same ABC variants, same cuts) with the parameters ``params`` as
    ordinary inputs. They separate the gain of specialization from the gain of the ABC
    pre-optimization, which the conventional synth_xilinx build does not get. Returns
    ``no_param_luts``, ``no_param_depth`` and ``no_param_param_only_luts`` (:func:`param_only_luts`)."""
    from dcsflow.aig import read_aiger
    from dcsflow.tmap.mapper import map_tluts
    from dcsflow.tmap.options import MapOptions

    ref = map_tluts(read_aiger(str(aig_path)), [], MapOptions(K=K, area=area, verify=False))
    return {"no_param_luts": ref.stats.luts, "no_param_depth": ref.stats.depth,
            "no_param_param_only_luts": param_only_luts(ref.netlist, params)}


def uses_tmap() -> bool:
    """True when the selected mapper (:func:`map_logic`) is TMAP itself (``DCSFLOW_MAPPER`` unset)."""
    return _selected() is tmap_mapper


def param_only_luts(netlist, params) -> int:
    """How many LUTs of a TMAP netlist mapped *without* parameters (``tmap.netlist.TlutNetlist``)
    compute functions of the parameter inputs ``params`` alone (every input a parameter, a constant
    or such a LUT or wide multiplexer): the logic a TLUT build moves into the PPC."""
    from dcsflow.tmap.netlist import Mux

    ponly = set(params) | {"0", "1"}
    n = 0
    for cell in netlist.cells():           # LUTs and MUXF7/MUXF8 in topological order
        ins = [cell.i0, cell.i1, cell.s] if isinstance(cell, Mux) else cell.inputs
        if all(x in ponly for x in ins):
            ponly.add(cell.name)
            n += not isinstance(cell, Mux)
    return n


def _selected():
    spec = os.environ.get("DCSFLOW_MAPPER")
    if not spec:
        return tmap_mapper
    mod, _, fn = spec.partition(":")
    try:
        return getattr(importlib.import_module(mod), fn)
    except (ImportError, AttributeError) as e:
        raise MapperError(f"DCSFLOW_MAPPER={spec}: {e}") from e


def map_logic(aig_path: Path, params: list[str], out_dir: Path, area: bool = False, status=None,
              K: int = 6, tlut_k: int | None = None) -> MapOutcome:
    """Map the AIGER ``aig_path`` (parameter inputs named in ``params``) into ``out_dir`` with
    ``K``-input LUTs (the build's LUT size) and TLUTs of at most ``tlut_k`` regular inputs (None:
    ``K``; 5 for CFGLUT5).

    ``status`` (optional callable(str)) is told the mapper's current step (progress display).

    Raises:
        MapperError: a ``DCSFLOW_MAPPER`` function that takes no ``K`` at a LUT size other than 6
            (no ``tlut_k`` when one is asked for), or a mapping with a LUT of more than ``K``
            regular inputs or a TLUT of more than ``tlut_k``.
    """
    fn = _selected()
    if fn is tmap_mapper:
        return fn(aig_path, params, out_dir, area=area, status=status, K=K, tlut_k=tlut_k)
    kw = {"area": area} if area else {}
    if K != 6:
        import inspect

        sig = inspect.signature(fn)
        if "K" not in sig.parameters and not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
            raise MapperError(f"DCSFLOW_MAPPER={os.environ.get('DCSFLOW_MAPPER')}: takes no K argument, "
                              f"so it cannot map to the LUT size {K}")
        kw["K"] = K
    if tlut_k is not None:
        import inspect

        sig = inspect.signature(fn)
        if "tlut_k" not in sig.parameters and not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
            raise MapperError(f"DCSFLOW_MAPPER={os.environ.get('DCSFLOW_MAPPER')}: takes no tlut_k argument, "
                              f"so it cannot keep TLUTs to {tlut_k} inputs")
        kw["tlut_k"] = tlut_k
    mo = fn(aig_path, params, out_dir, **kw)
    if tlut_k is not None:
        for lut in mo.netlist.get("luts", []):
            if "ppc" in lut and len(lut.get("inputs", ())) > tlut_k:
                raise MapperError(f"DCSFLOW_MAPPER={os.environ.get('DCSFLOW_MAPPER')}: TLUT {lut.get('name')} "
                                  f"has more than {tlut_k} inputs")
    if K != 6:
        for lut in mo.netlist.get("luts", []):
            if len(lut.get("inputs", ())) > K:
                raise MapperError(f"DCSFLOW_MAPPER={os.environ.get('DCSFLOW_MAPPER')}: LUT {lut.get('name')} "
                                  f"has more than {K} inputs (the LUT size)")
    return mo
