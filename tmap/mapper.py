"""TMAP: map an AIG with parameter inputs onto TLUTs and build the partial parameterized configuration.

Pipeline of :func:`map_tluts`:
1. combinational view of the AIG (latch outputs are inputs, latch next states are outputs);
2. mark parameter-only nodes (constant, parameter inputs, ANDs whose fanins are all parameter-only);
3. reduced-cut selection (:mod:`dcsflow.tmap.cuts`): depth-optimal priority cuts, then area flow and exact
   area without increasing the depth (``area=True``: area only);
4. per chosen cut, the LUT function: a truth table when the cone holds no parameter (static LUT,
   INIT), else one PPC literal per truth-table entry, built by evaluating the cone for each
   assignment of the regular leaves inside the PPC AIG (structural hashing folds constants and shares
   equal entries) — a TLUT;
5. PPC optimization with ABC and re-sharing of equal / constant outputs;
6. proof with ABC ``cec`` that netlist ∘ PPC equals the AIG for all parameter values.

Reference: K. Bruneel, W. Heirman, D. Stroobandt, "Dynamic data folding with parameterizable FPGA
configurations", ACM TODAES 16(4), 2011 (TMAP, reduced cuts, TLUTs).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from .affine import MAX_FRONTIER, AffineTlut, cone_tables, detect
from dcsflow.aig import Aig, truth_vars

from .cones import ParamLiterals, compact, parameter_only
from .cuts import _cover_size, cut_luts, select_cover
from .errors import ParamError, TmapError, VerificationError

__all__ = ["ABC_AIG_SCRIPTS", "FULL_MODE_ANDS", "PPC_OPT_MAX_ANDS", "MapOptions", "MapStats", "MapResult", "Lut", "Mux",
           "TlutNetlist", "map_tluts", "read_param_file", "check_params", "resolve_params", "ParamSelection", "compose",
           "NETLIST_FORMAT", "PPC_FORMAT"]

NETLIST_FORMAT = "dcsflow-tlut-netlist"
PPC_FORMAT = "dcsflow-ppc"
FORMAT_VERSION = 1
#: Version of the TLUT netlist format: 2 added the wide-function multiplexers (``muxes``).
NETLIST_VERSION = 2
#: Inputs of one LUT site; cuts with more regular leaves are wide (LUT6 cofactors + MUXF7/MUXF8).
LUT6 = 6
#: Up to this many parameters, PPC outputs are compared by exhaustive simulation (exact sharing).
EXHAUSTIVE_PARAMS = 12
#: ABC scripts of the AIG variants tried by the flow (``MapOptions.aig_scripts``): ``dc2`` (AIG
#: rewriting/refactoring/balancing) and ``&syn2`` (ABC's GIA synthesis script).
ABC_AIG_SCRIPTS = ("strash; dc2", "strash; &get -n; &st; &syn2; &put")
#: Default mode (:meth:`MapOptions.resolved`): AIGs up to this many AND nodes get 16 priority cuts,
#: the ABC-optimized variants and the 8-cut cover as candidates; larger ones 8 cuts on the AIG as given. Decided from
#: benchmarks/tmap_bench.py (see README, "dcsflow map").
FULL_MODE_ANDS = 100_000
#: PPCs above this many AND nodes are not optimized by ABC (``strash; dc2; dc2`` on aes128_pipe's PPC,
#: 2.4M AND nodes, did not finish in 600 s); below, an optimization that runs out of
#: ``MapOptions.ppc_opt_seconds`` keeps the PPC as built (a note says so) instead of failing.
PPC_OPT_MAX_ANDS = 500_000


@dataclass
class MapOptions:
    """Options of :func:`map_tluts`.

    ``cuts_per_node``, ``aig_scripts`` and ``extra_cuts`` left at ``None`` select the default mode by
    the size of the AIG (:meth:`resolved`, figures in benchmarks/tmap_bench.py and README): up to
    :data:`FULL_MODE_ANDS` AND nodes 16 priority cuts, the ABC-optimized variants
    :data:`ABC_AIG_SCRIPTS` and the 8-cut cover of the AIG as further candidate, the best cover kept;
    above, 8 cuts on the AIG as given (bounded time on e.g. EPFL ``hyp``).

    Attributes:
        K: LUT size, maximum number of regular inputs per LUT (2..6).
        cuts_per_node: priority cuts C kept per node (None: default mode).
        area: trade depth for area (no depth constraint during area recovery).
        verify: prove netlist ∘ PPC ≡ AIG with ABC ``cec`` (failure raises VerificationError).
        param_latches: also treat latches whose next state depends only on parameters and on such
            latches as parameters, including load-enabled registers ``q' = load ? d : q`` whose ``d``
            does (parameter registers, e.g. key registers).
        optimize_ppc: optimize the PPC with ABC (``strash; dc2; dc2``), at most ``ppc_opt_seconds``
            and only up to :data:`PPC_OPT_MAX_ANDS` AND nodes (else the PPC is kept as built, with a note).
        flow_passes, exact_passes: area-recovery passes (area flow, exact area).
        proof_seconds: time limit of the ABC proof (an undecided proof is an error).
        proof_method: ``"auto"``, ``"cutpoint"`` or ``"global"`` (see :func:`verify`).
        aig_scripts: ABC scripts (e.g. ``"strash; dc2"``) giving optimized variants of the AIG, with
            the parameters as ordinary inputs; each variant is mapped too and the best cover kept
            (default mode: fewer LUTs at no greater depth; area mode: fewer LUTs). The proof is
            always against the original AIG. None: default mode; ``()``: the AIG as given only.
        extra_cuts: further priority-cut counts with which the AIG as given is mapped too, keeping
            the better cover by (depth, LUTs), in area mode (LUTs, depth) (more cuts is not always
            better: priority cuts are a heuristic); the ABC variants are compared afterwards, so the
            result is never worse in that order than the cover with those cuts alone. None: default
            mode, ``(8,)`` in the full mode (never worse than the previous default, 8 cuts on the AIG
            as given), else ``()``.
        wide: wide functions on MUXF7/MUXF8 (UG474): cuts of 7 or 8 regular leaves become 2 or 4 LUT6
            (TLUTs when the cone reads parameters) on the cofactors of their last one or two leaves
            plus MUXF7 / MUXF7+MUXF7+MUXF8 cells (:class:`Mux`). Every candidate cover is remapped
            with wide cuts (area recovery bounded by its depth; the ABC and Shannon variants only when
            they paid off on the AIG as given) and the wide cover is kept only when it
            has no more LUTs and no greater LUT depth (MUXF7/MUXF8 add no LUT level) and beats it in one
            of them; when a wide table is affine in its frontier, key bits XORed into the selects
            choose which quarter each cofactor TLUT holds (affine records with quarters), else selects
            read through a parameter XOR get that XOR's LUT (:meth:`_LutBuilder._add_wide`), and when
            those LUTs outweigh the saving the cover without wide cuts is built. None: on at K = 6; off at other K (False is forced there).
        shannon: with parameters, also map the Shannon-expanded variant of the AIG
            (:mod:`dcsflow.tmap.shannon`: nodes reading K+1 or K+2 regular inputs rebuilt as
            multiplexers of cofactors on K inputs each, where the cover of the AIG as given spends
            more LUTs on them) and keep its cover when it is better (as for ``aig_scripts``; proved
            the same way). None: on whenever ABC-optimized variants are tried (``aig_scripts`` not
            empty after :meth:`resolved`: the full default mode, ``--abc-opt``), else off.
    """

    K: int = 6
    cuts_per_node: int | None = None
    area: bool = False
    verify: bool = True
    param_latches: bool = False
    optimize_ppc: bool = True
    ppc_opt_seconds: float = 600.0
    flow_passes: int = 3
    exact_passes: int = 3
    proof_seconds: float = 600.0
    aig_scripts: tuple | None = None
    proof_method: str = "auto"
    extra_cuts: tuple | None = None
    shannon: bool | None = None
    wide: bool | None = None

    def resolved(self, aig_ands: int) -> "MapOptions":
        """A copy with the default mode filled in for an AIG of ``aig_ands`` AND nodes (``params``:
        it has parameter inputs): up to :data:`FULL_MODE_ANDS` nodes 16 cuts,
        :data:`ABC_AIG_SCRIPTS` and (when the cut count is not given) ``extra_cuts=(8,)``; above, 8
        cuts and no variants; ``shannon`` on when variants are tried; ``wide`` on at K = 6. Values given
        explicitly are kept."""
        full = aig_ands <= FULL_MODE_ANDS
        scripts = tuple(self.aig_scripts) if self.aig_scripts is not None else (ABC_AIG_SCRIPTS if full else ())
        return dataclasses.replace(
            self, extra_cuts=tuple(self.extra_cuts) if self.extra_cuts is not None else
            ((8,) if full and self.cuts_per_node is None else ()),
            shannon=self.shannon if self.shannon is not None else bool(scripts),
            wide=bool(self.wide if self.wide is not None else True) and self.K == LUT6,
            cuts_per_node=self.cuts_per_node if self.cuts_per_node is not None else (16 if full else 8),
            aig_scripts=scripts)


@dataclass
class Lut:
    """One LUT of the netlist.

    Attributes:
        name: net name of its output (unique, distinct from input names).
        inputs: ordered regular input nets (inputs[0] is truth-table index bit 0, Xilinx I0).
        init: static LUT truth table, bit i = value for entry i; None for a TLUT.
        ppc: TLUT only: for each of the 2^k entries, the index of the PPC output driving it.
    """

    name: str
    inputs: list
    init: int | None = None
    ppc: list | None = None

    @property
    def is_tlut(self) -> bool:
        """True for a TLUT (truth table given by PPC outputs)."""
        return self.ppc is not None


@dataclass
class Mux:
    """A wide-function multiplexer (Xilinx unisim MUXF7 / MUXF8, UG474): ``O = S ? I1 : I0``.

    A MUXF7 reads two LUT outputs (its slice's A/B or C/D LUT), a MUXF8 two MUXF7 outputs; the select
    ``s`` is a regular input or LUT output (any net, through the slice's bypass pin).

    Attributes:
        name: net name of its output; kind: ``"MUXF7"`` or ``"MUXF8"``; i0, i1, s: input net names.
    """

    name: str
    kind: str
    i0: str
    i1: str
    s: str


@dataclass
class TlutNetlist:
    """LUT netlist with TLUTs (format ``dcsflow-tlut-netlist`` version 2, see docs/formats.md).

    Attributes:
        K: LUT size used for mapping.
        inputs: regular input names (AIG inputs that are not parameters, then latch outputs).
        params: parameter input names, in PPC input order.
        luts: LUTs in topological order (a LUT may read a mux output; that mux reads earlier LUTs).
        outputs: (output name, driver) pairs; a driver is a LUT or mux name, a regular input name,
            "0" or "1".
        source_hash: SHA-256 of the canonical source AIG.
        muxes: :class:`Mux` cells of the wide functions (a MUXF8 after the MUXF7s it reads).
    """

    K: int
    inputs: list
    params: list
    luts: list
    outputs: list
    source_hash: str = ""
    muxes: list = field(default_factory=list)

    def cells(self) -> list:
        """LUTs and muxes in one topological order: each mux right after the last cell it reads."""
        pos = {lut.name: i for i, lut in enumerate(self.luts)}
        keyed = [((i, 0, 0), lut) for i, lut in enumerate(self.luts)]
        mpos = {}
        for j, m in enumerate(self.muxes):
            p = max(pos.get(x, mpos.get(x, -1)) for x in (m.i0, m.i1, m.s))
            mpos[m.name] = p
            keyed.append(((p, 1, j), m))
        keyed.sort(key=lambda t: t[0])
        return [c for _, c in keyed]

    def mux_counts(self) -> tuple[int, int]:
        """(MUXF7 cells, MUXF8 cells)."""
        f7 = sum(1 for m in self.muxes if m.kind == "MUXF7")
        return f7, len(self.muxes) - f7

    def to_json_obj(self) -> dict:
        """The JSON document (dict) of this netlist."""
        luts = []
        for lut in self.luts:
            d = {"name": lut.name, "inputs": list(lut.inputs)}
            if lut.is_tlut:
                d["ppc"] = list(lut.ppc)
            else:
                d["init"] = format(lut.init, "x")
            luts.append(d)
        return {"format": NETLIST_FORMAT, "version": NETLIST_VERSION, "K": self.K, "inputs": list(self.inputs),
                "params": list(self.params), "luts": luts,
                "muxes": [{"name": m.name, "type": m.kind, "I0": m.i0, "I1": m.i1, "S": m.s} for m in self.muxes],
                "outputs": [{"name": n, "driver": d} for n, d in self.outputs], "source_hash": self.source_hash}

    @classmethod
    def from_json_obj(cls, d: dict) -> "TlutNetlist":
        """Inverse of :meth:`to_json_obj` (version 1, without muxes, is read too); raises TmapError on
        another format or version, or a mux of unknown type."""
        if d.get("format") != NETLIST_FORMAT or d.get("version") not in (1, NETLIST_VERSION):
            raise TmapError(f"not a {NETLIST_FORMAT} version 1 or {NETLIST_VERSION} document")
        luts = [Lut(x["name"], list(x["inputs"]), int(x["init"], 16) if "init" in x else None,
                    list(x["ppc"]) if "ppc" in x else None) for x in d["luts"]]
        muxes = [Mux(x["name"], x["type"], x["I0"], x["I1"], x["S"]) for x in d.get("muxes", [])]
        for m in muxes:
            if m.kind not in ("MUXF7", "MUXF8"):
                raise TmapError(f"mux {m.name}: unknown type {m.kind!r} (MUXF7 or MUXF8)")
        return cls(d["K"], list(d["inputs"]), list(d["params"]), luts,
                   [(o["name"], o["driver"]) for o in d["outputs"]], d.get("source_hash", ""), muxes)

    def to_blif(self, model: str = "tmap") -> str:
        """BLIF text readable by Yosys ``read_blif``: static LUTs as ``.names``; TLUTs as
        ``.subckt LUT<k>`` (Xilinx primitive, k ≥ 1) with ``.param INIT`` all zero (template
        placeholder) and ``.attr tlut_ppc "<indices>"`` (PPC output per entry); a TLUT with no
        input is written as LUT1 on constant 0 with its entry repeated; muxes as ``.subckt MUXF7`` /
        ``.subckt MUXF8`` (ports I0, I1, S, O). Outputs are buffers."""
        out = [f"# {NETLIST_FORMAT} version {NETLIST_VERSION} K={self.K} source_hash={self.source_hash}",
               f".model {model}", ".inputs " + " ".join(self.inputs + self.params),
               ".outputs " + " ".join(n for n, _ in self.outputs)]
        need_const0 = False
        for lut in self.luts:
            k = len(lut.inputs)
            if lut.is_tlut:
                ins = lut.inputs
                ppc = lut.ppc
                if k == 0:
                    need_const0 = True
                    ins, ppc = ["$tmap_const0"], [ppc[0], ppc[0]]
                pins = " ".join(f"I{j}={x}" for j, x in enumerate(ins))
                out.append(f".subckt LUT{len(ins)} {pins} O={lut.name}")
                out.append(f".param INIT {'0' * (1 << len(ins))}")
                out.append(".attr tlut_ppc \"" + " ".join(map(str, ppc)) + "\"")
            else:
                out.append(".names " + " ".join(lut.inputs + [lut.name]))
                for i in range(1 << k):
                    if lut.init >> i & 1:
                        out.append("".join(str(i >> j & 1) for j in range(k)) + (" 1" if k else "1"))
        for m in self.muxes:
            out.append(f".subckt {m.kind} I0={m.i0} I1={m.i1} S={m.s} O={m.name}")
        for n, d in self.outputs:
            if d == "0":
                out.append(f".names {n}")
            elif d == "1":
                out.append(f".names {n}\n1")
            else:
                out.append(f".names {d} {n}\n1 1")
        if need_const0:
            out.append(".names $tmap_const0")
        out.append(".end")
        return "\n".join(out) + "\n"

    def depth(self) -> int:
        """Number of LUT levels on the longest input-to-output path (MUXF7/MUXF8 add none)."""
        lvl = {}
        for c in self.cells():
            if isinstance(c, Mux):
                lvl[c.name] = max(lvl.get(c.i0, 0), lvl.get(c.i1, 0), lvl.get(c.s, 0))
            else:
                lvl[c.name] = 1 + max((lvl.get(x, 0) for x in c.inputs), default=0)
        return max((lvl.get(d, 0) for _, d in self.outputs), default=0)


@dataclass
class MapStats:
    """Figures of one mapping: LUT count (static + TLUTs), TLUTs, LUT depth, PPC AND nodes and
    outputs, proof result (None when not run), mapping seconds (wall, including the PPC optimization,
    whose share is ``ppc_seconds``; the proof is not included), AIG AND nodes, parameter count,
    MUXF7 and MUXF8 cells of wide functions."""

    luts: int
    tluts: int
    depth: int
    ppc_ands: int
    ppc_outputs: int
    verified: bool | None
    seconds: float
    aig_ands: int
    params: int
    ppc_seconds: float = 0.0
    proof: str = ""
    muxf7: int = 0
    muxf8: int = 0

    def as_dict(self) -> dict:
        """Plain dict of the figures."""
        return dict(self.__dict__)


@dataclass
class MapResult:
    """Result of :func:`map_tluts`: the TLUT netlist, the PPC (an AIG whose inputs are
    ``netlist.params`` and whose output j drives every TLUT entry that names j) and the stats."""

    netlist: TlutNetlist
    ppc: Aig
    stats: MapStats
    notes: list = field(default_factory=list)
    #: LUT name -> literal of the mapped AIG that the LUT computes (cut points of the proof)
    claims: dict | None = None
    #: the ABC-optimized AIG variant the cover was taken from (None: the input AIG itself)
    variant: Aig | None = None
    #: TLUT name -> :class:`dcsflow.tmap.affine.AffineTlut` (TLUTs found affine in their frontier)
    affine: dict = field(default_factory=dict)

    def manifest(self) -> dict:
        """PPC manifest (format ``dcsflow-ppc`` version 1)."""
        return {"format": PPC_FORMAT, "version": FORMAT_VERSION, "K": self.netlist.K,
                "params": list(self.netlist.params), "outputs": self.ppc.num_outputs,
                "ands": self.ppc.num_ands, "aiger": "ppc.aig",
                "tluts": {lut.name: list(lut.ppc) for lut in self.netlist.luts if lut.is_tlut},
                "affine": {n: a.as_json() for n, a in sorted(self.affine.items())},
                "source_hash": self.netlist.source_hash, "verified": self.stats.verified}

    def write(self, out_dir) -> list[Path]:
        """Write ``netlist.json``, ``netlist.blif``, ``ppc.aig`` and ``ppc.json`` into ``out_dir``
        (created if needed; each file written atomically). All four or none: when one cannot be
        written, the others of the set are removed too (no new netlist beside an old PPC).
        Returns the paths.

        Raises:
            OSError: the folder or a file cannot be written (``filename`` names it).
        """
        from dcsflow.fileio import write_bytes_atomic, write_text_atomic  # flow is installed with tmap

        d = Path(out_dir)
        paths = [d / "netlist.json", d / "netlist.blif", d / "ppc.aig", d / "ppc.json"]
        texts = [json.dumps(self.netlist.to_json_obj()) + "\n", self.netlist.to_blif(), self.ppc.to_bytes(),
                 json.dumps(self.manifest(), indent=1) + "\n"]
        try:
            d.mkdir(parents=True, exist_ok=True)
            for path, data in zip(paths, texts):
                if isinstance(data, bytes):
                    write_bytes_atomic(path, data)
                else:
                    write_text_atomic(path, data)
        except BaseException:
            for path in paths:
                try:
                    path.unlink()
                except OSError:
                    pass
            raise
        return paths


# --------------------------------------------------------------------------- parameters
def read_param_file(path) -> list[str]:
    """Read parameter input names, one per line (blank lines and ``#`` comments ignored).

    Raises:
        ParamError: the file cannot be read, or is not UTF-8 text (the message names the line and
            the byte).
    """
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise ParamError(f"{path}: cannot read parameter file: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ParamError(f"{path}: line {line}: not UTF-8 text (byte 0x{data[e.start]:02x}); a parameter "
                         "file holds AIGER input names, one per line") from None
    names = []
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith("#"):
            names.append(s)
    return names


def _close_hint(name: str, known: list) -> str:
    """``"; did you mean 'a', 'b'?"`` with up to three close matches (difflib), or ``""``."""
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    return f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""


def check_params(aig: Aig, params: list[str], param_latches: bool = False) -> list[str]:
    """Validate parameter names against the AIG's inputs (and latch names); returns them without
    duplicates, in the given order.

    Raises:
        ParamError: a name is not an input; the message gives close matches (difflib).
    """
    known = list(aig.input_names) + list(aig.latch_names)
    kset = set(known)
    seen, res = set(), []
    for p in params:
        if p not in kset:
            raise ParamError(f"parameter {p!r} is not an input of the AIG{_close_hint(p, known)}")
        if p not in seen:
            seen.add(p)
            res.append(p)
    return res


@dataclass
class ParamSelection:
    """Result of :func:`resolve_params`: which names of a parameter list select AIG inputs.

    Attributes:
        used: AIG input/latch names selected, without duplicates, in the order of the list (a port
            name expands to its bits in AIG order).
        missing: names of the list that select nothing, in the order of the list, without duplicates.
        given: number of distinct names in the list.
    """

    used: list
    missing: list
    given: int

    def warning(self, shown: int = 6) -> str:
        """One warning line about ``missing`` (empty when nothing is missing), e.g.
        ``24 of 192 parameter names are not inputs of the AIG and were skipped: a[7], ... (+18 more)``."""
        if not self.missing:
            return ""
        names = ", ".join(self.missing[:shown])
        more = f", ... (+{len(self.missing) - shown} more)" if len(self.missing) > shown else ""
        return (f"{len(self.missing)} of {self.given} parameter names are not inputs of the AIG and were "
                f"skipped: {names}{more}")


_BIT_RE = re.compile(r"^(.+?)\s*[\[<(]\s*(\d+)\s*[\]>)]$")


def resolve_params(aig: Aig, names: list[str], strict: bool = False) -> ParamSelection:
    """Match a parameter list written for this or another TLUT tool against the AIG's inputs and
    latch names (as the published TMAP flow writes them: bit-blasted names, one per bit of a port).

    A name selects the input of the same name; ``port<7>`` and ``port(7)`` select ``port[7]``; a name
    without index that is no input itself selects every bit ``name[i]`` present in the AIG. Names that
    select nothing (e.g. the parity bits of a DES key, which synthesis removes) are returned in
    ``missing``.

    Raises:
        ParamError: no name selects an input (and the list is not empty), or ``strict`` and some name
            selects nothing; the message names the first such name and gives close matches.
    """
    known = list(aig.input_names) + list(aig.latch_names)
    kset = set(known)
    ports: dict = {}
    for n in known:
        m = _BIT_RE.match(n)
        if m:
            ports.setdefault(m.group(1), []).append(n)
    used, missing, seen_used, seen = [], [], set(), set()
    for name in names:
        if name in seen:
            continue
        seen.add(name)
        if name in kset:
            sel = [name]
        else:
            m = _BIT_RE.match(name)
            alt = f"{m.group(1)}[{m.group(2)}]" if m else None
            sel = [alt] if alt in kset else list(ports.get(name, []))
        if not sel:
            missing.append(name)
        for n in sel:
            if n not in seen_used:
                seen_used.add(n)
                used.append(n)
    if missing and (strict or not used):
        p = missing[0]
        what = "none of the parameter names is an input of the AIG" if not used else \
            f"{len(missing)} of {len(seen)} parameter names are not inputs of the AIG (--strict)"
        raise ParamError(f"{what}: {p!r}{_close_hint(p, known)}")
    return ParamSelection(used, missing, len(seen))


def _hold_mux_data(aig: Aig, lit: int, own: int) -> int:
    """For a next-state literal ``lit = s ? d : own`` (or ``s ? own : d``; ``own`` the latch's
    positive literal, the multiplexer as :meth:`Aig.add_mux` and Yosys ``aigmap`` build it) return
    ``d`` (repeatedly, for nested load enables); otherwise ``lit`` itself."""
    base = aig.first_and
    while lit & 1 and (lit >> 1) >= base:
        a, b = aig.ands[(lit >> 1) - base]
        if not (a & 1 and b & 1 and (a >> 1) >= base and (b >> 1) >= base):
            break
        (a0, a1), (b0, b1) = aig.ands[(a >> 1) - base], aig.ands[(b >> 1) - base]
        d = None
        for s, x in ((a0, a1), (a1, a0)):
            for t, y in ((b0, b1), (b1, b0)):
                if s ^ t == 1 and own in (x, y):
                    d = y if x == own else x
        if d is None:
            break
        lit = d
    return lit


def _param_latches(aig: Aig, pvars: set) -> set:
    """Latch variables whose next state depends only on parameters and on such latches (greatest
    fixpoint); a load-enabled register ``q' = load ? d : q`` counts when ``d`` does (a parameter
    register, as the front end folds them: its value is a parameter once loaded)."""
    I, L = aig.num_inputs, aig.num_latches
    base = aig.first_and
    cand = set(range(1 + I, 1 + I + L))
    supp_cache = {}

    def support(lit):
        v = lit >> 1
        if v in supp_cache:
            return supp_cache[v]
        stack, seen, sup = [v], set(), set()
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            if x >= base:
                a, b = aig.ands[x - base]
                stack += [a >> 1, b >> 1]
            elif x:
                sup.add(x)
        supp_cache[v] = sup
        return sup

    changed = True
    while changed:
        changed = False
        for lv in sorted(cand):
            sup = support(_hold_mux_data(aig, aig.latch_next[lv - 1 - I], 2 * lv))
            if not sup <= (pvars | cand):
                cand.discard(lv)
                changed = True
    return cand


# --------------------------------------------------------------------------- mapping
def map_tluts(aig: Aig, params: list[str], options: MapOptions | None = None, progress=None) -> MapResult:
    """Map ``aig`` onto LUTs/TLUTs with at most ``options.K`` regular inputs each and build the PPC.

    Args:
        aig: the circuit (latches allowed; mapped combinationally).
        params: names of parameter inputs (input or latch names); may be empty (conventional mapping).
        options: :class:`MapOptions`.
        progress: optional callable(str) told the current step.
    Returns:
        :class:`MapResult`.
    Raises:
        ParamError: unknown parameter name. TmapError: K outside 2..6.
        VerificationError: the ABC proof failed (``options.verify``). ToolError: ABC failed.
        ToolMissing (:mod:`dcsflow.tools`): ABC missing.
    """
    opt = (options or MapOptions()).resolved(aig.num_ands)
    if not 2 <= opt.K <= 6:
        raise TmapError(f"K must be between 2 and 6, got {opt.K}")
    if opt.cuts_per_node < 1:
        raise TmapError(f"cuts per node must be at least 1, got {opt.cuts_per_node}")
    say = progress or (lambda s: None)
    t0 = time.perf_counter()
    notes = []
    params = check_params(aig, params)
    comb = aig.combinational()
    name_to_var = {n: 1 + j for j, n in enumerate(comb.input_names)}
    pvars = {name_to_var[p] for p in params}
    if opt.param_latches and aig.num_latches:
        extra = _param_latches(aig, pvars)
        for v in sorted(extra):
            if v not in pvars:
                pvars.add(v)
                params.append(comb.input_names[v - 1])
        if extra:
            notes.append(f"{len(extra)} latch(es) treated as parameters")
    if not params:
        notes.append("no parameter inputs: conventional LUT mapping")
    # parameter order = order of the AIG's inputs
    params = [n for n in comb.input_names if name_to_var[n] in pvars]

    say("selecting cuts")
    # ABC-optimized variants of the AIG (parameters as ordinary inputs), made by yosys-abc processes
    # that run while the AIG itself is mapped; the proof below is always against the original ``comb``
    from concurrent.futures import ThreadPoolExecutor

    from .abc import optimize_aig

    with ThreadPoolExecutor(max_workers=max(1, len(opt.aig_scripts))) as pool:
        futures = [pool.submit(optimize_aig, comb, script, what=f"ABC variant: {script}") for script in opt.aig_scripts]
        # with opt.wide every candidate cover is improved by wide cuts (_wide_cover) before the
        # comparisons, so the default mode stays never worse than each candidate alone
        nowide = {}                          # id(wide-improved cover) -> (it, the cover without wide cuts)

        def without_wide(cv):
            hit = nowide.get(id(cv))
            return hit[1] if hit and hit[0] is cv else None

        g, cover, param = comb, *_cover_of(comb, pvars, opt, wide_pass=nowide)
        # the same choices made on the covers without wide cuts (today's choice, ``base``: g, its
        # wide-improved cover, its cover without wide cuts, param, note); used at the end when the
        # choice among wide-improved covers is not at least as good in LUTs and depth
        base = [g, cover, without_wide(cover) or cover, param, None]

        def follow(better: bool, g_, cv, prm, note=None) -> None:
            """Update ``base`` with candidate (g_, cv) when its cover without wide cuts wins."""
            if better:
                base[:] = [g_, cv, without_wide(cv) or cv, prm, note]

        # further cut counts on the AIG itself: compared by (depth, LUTs), or (LUTs, depth) in area
        # mode, so the result is never worse in that order than the cover with those cuts alone
        rank = (lambda cv: (_cover_size(cv, comb.first_and), cv.depth)) if opt.area else \
            (lambda cv: (cv.depth, _cover_size(cv, comb.first_and)))
        for c in opt.extra_cuts:
            if c != opt.cuts_per_node:
                cover2, param2 = _cover_of(comb, pvars, dataclasses.replace(opt, cuts_per_node=c), wide_pass=nowide)
                follow(rank(without_wide(cover2) or cover2) < rank(base[2]), comb, cover2, param2)
                if rank(cover2) < rank(cover):
                    cover, param = cover2, param2
        comb_cover = without_wide(cover) or cover    # Shannon roots: on a cover of K-input cuts
        # the ABC variants and the Shannon variant are remapped with wide cuts only when these paid off
        # on the AIG as given (bounded time: without parameters, e.g. aes128_iter's logic, they rarely do)
        wide_pass = nowide if nowide else None
        variant_note = None
        for script, fut in zip(opt.aig_scripts, futures):
            say(f"mapping the ABC-optimized AIG ({script})")
            g2 = fut.result()
            if g2 is comb:
                continue
            cover2, param2 = _cover_of(g2, pvars, opt, wide_pass=wide_pass)
            follow(_better(without_wide(cover2) or cover2, g2.first_and, base[2], base[0].first_and, opt.area),
                   g2, cover2, param2, "mapped an ABC-optimized AIG")
            if _better(cover2, g2.first_and, cover, g.first_and, opt.area):
                g, cover, param = g2, cover2, param2
                variant_note = "mapped an ABC-optimized AIG"
    if opt.shannon and pvars:
        from .shannon import shannon_roots, shannon_variant

        # roots chosen on the cover of the AIG as given (its own parameter-only flags)
        comb_param = parameter_only(comb, pvars)
        roots = shannon_roots(comb, comb_param, opt.K, cover=comb_cover)
        if roots:
            say("mapping the Shannon-expanded AIG")
            g3 = shannon_variant(comb, comb_param, opt.K, roots)
            cover3, param3 = _cover_of(g3, pvars, opt, wide_pass=wide_pass)
            follow(_better(without_wide(cover3) or cover3, g3.first_and, base[2], base[0].first_and, opt.area),
                   g3, cover3, param3, f"mapped the Shannon-expanded AIG ({len(roots)} node(s) expanded)")
            if _better(cover3, g3.first_and, cover, g.first_and, opt.area):
                g, cover, param = g3, cover3, param3
                variant_note = f"mapped the Shannon-expanded AIG ({len(roots)} node(s) expanded)"
    if opt.wide and not (_cover_size(cover, g.first_and) <= _cover_size(base[2], base[0].first_and)
                         and cover.depth <= base[2].depth):
        # never worse than the choice without wide cuts: that choice, with its own wide improvement
        g, cover, _, param, variant_note = base
    if variant_note:
        notes.append(variant_note)
    nw = without_wide(cover) if opt.wide else None
    say("building LUTs and PPC")
    netlist, ppc, claims, affine, n_sel = _build(g, params, param, cover, opt.K)
    if nw is not None:
        n_wide = sum(1 for v in range(g.first_and, len(cover.best))
                     if cover.refs[v] and cover.best[v] is not None and len(cover.best[v]) > LUT6)
        before, after = _cover_size(nw, g.first_and), _cover_size(cover, g.first_and) + n_sel
        if after > before:
            # the select XOR LUTs that keep cofactor TLUTs affine cost more than the wide cuts saved
            notes.append(f"wide functions not used: {before} LUTs without, {after} with their {n_sel} "
                         "select LUTs")
            cover = nw
            netlist, ppc, claims, affine, n_sel = _build(g, params, param, cover, opt.K)
        else:
            sel = f" + {n_sel} select LUTs" if n_sel else ""
            notes.append(f"wide functions: {n_wide} on MUXF7/MUXF8 ({before} -> {after} LUTs{sel}, "
                         f"depth {nw.depth} -> {cover.depth})")
    netlist.source_hash = aig.canonical_hash()
    ppc_seconds = 0.0
    if opt.optimize_ppc and ppc.num_ands > PPC_OPT_MAX_ANDS:
        notes.append(f"PPC optimization skipped: {ppc.num_ands:,} AND nodes > {PPC_OPT_MAX_ANDS:,} "
                     "(yosys-abc dc2 would take longer than its time limit)")
    elif opt.optimize_ppc and ppc.num_ands:
        say("optimizing PPC (yosys-abc)")
        from .abc import optimize_aig
        from .errors import ToolTimeout

        t1 = time.perf_counter()
        try:
            ppc = optimize_aig(ppc, "strash; dc2; dc2", timeout=opt.ppc_opt_seconds,
                               what="PPC optimization: strash; dc2; dc2")
        except ToolTimeout:
            notes.append(f"PPC optimization stopped after {opt.ppc_opt_seconds:.0f} s; "
                         "the PPC is used as built")
        ppc_seconds = time.perf_counter() - t1
    if ppc.num_outputs:
        netlist, ppc, affine = _reshare(netlist, ppc, affine)
    seconds = time.perf_counter() - t0
    tl = sum(1 for lut in netlist.luts if lut.is_tlut)
    f7, f8 = netlist.mux_counts()
    stats = MapStats(luts=len(netlist.luts), tluts=tl, depth=netlist.depth(), ppc_ands=ppc.num_ands,
                     ppc_outputs=ppc.num_outputs, verified=None, seconds=seconds, aig_ands=aig.num_ands,
                     params=len(params), ppc_seconds=ppc_seconds, muxf7=f7, muxf8=f8)
    res = MapResult(netlist, ppc, stats, notes, claims, g if g is not comb else None, affine)
    if opt.verify:
        say("proving netlist ∘ PPC ≡ AIG (yosys-abc cec)")
        verify(res, comb, opt.proof_seconds, opt.proof_method)
    return res


def _wide_cover(g: Aig, pvars: set, opt: MapOptions, cover):
    """The cover of ``g`` with wide cuts (:func:`dcsflow.tmap.cuts.select_cover` ``wide``) when it
    beats ``cover`` (the cover without them): no more LUTs and no greater depth, better in one; of
    such covers the one with the fewest LUTs, then the smaller depth. One wide cover is selected,
    its area recovery bounded by the depth of ``cover`` (the slack of a shallower wide cover is spent
    on area; area mode has no bound).
    Returns the chosen cover (``cover`` itself when the wide one does not beat it)."""
    base = (_cover_size(cover, g.first_and), cover.depth)
    cw, _ = _cover_of(g, pvars, opt, wide=True, depth_bound=0 if opt.area else cover.depth)
    key = (_cover_size(cw, g.first_and), cw.depth)
    return cw if key[0] <= base[0] and key[1] <= base[1] and key < base else cover


def _cover_of(comb: Aig, pvars: set, opt: MapOptions, wide: bool = False, depth_bound: int = 0,
              wide_pass: dict | None = None, single: bool = False):
    """Mark parameter-only variables of ``comb`` and select its cover (``wide``: with wide cuts,
    ``depth_bound``: see :func:`dcsflow.tmap.cuts.select_cover`); returns (cover, param).

    ``wide_pass`` (a dict) with ``opt.wide``: select the cover without wide cuts, improve it with
    :func:`_wide_cover`, and record ``id(result) -> (result, cover without wide cuts)`` in the dict."""
    if wide_pass is not None and opt.wide and not wide:
        cover, param = _cover_of(comb, pvars, opt, depth_bound=depth_bound)
        better = _wide_cover(comb, pvars, opt, cover)
        if better is not cover:
            wide_pass[id(better)] = (better, cover)   # the object too: ids of dropped covers are reused
        return better, param
    if opt.cuts_per_node is None:
        opt = opt.resolved(comb.num_ands)
    n = comb.max_var + 1
    base = comb.first_and
    fanin0 = [0] * n
    fanin1 = [0] * n
    param = parameter_only(comb, pvars)
    for i, (a, b) in enumerate(comb.ands):
        fanin0[base + i] = a >> 1
        fanin1[base + i] = b >> 1
    out_vars = [o >> 1 for o in comb.outputs]
    cover = select_cover(base, fanin0, fanin1, param, [v for v in out_vars if v >= base and not param[v]],
                         K=opt.K, C=opt.cuts_per_node, area_mode=opt.area, flow_passes=opt.flow_passes,
                         exact_passes=opt.exact_passes, wide=wide, depth_bound=depth_bound, single=single)
    return cover, param


def _better(c2, first2: int, c1, first1: int, area: bool) -> bool:
    """True when cover ``c2`` beats ``c1``: fewer LUTs at no greater depth (default mode), or fewer
    LUTs, then lower depth (area mode)."""
    a1, a2 = _cover_size(c1, first1), _cover_size(c2, first2)
    if area:
        return (a2, c2.depth) < (a1, c1.depth)
    return c2.depth <= c1.depth and a2 < a1


def verify(res: MapResult, comb: Aig, seconds: float = 600.0, method: str = "auto") -> None:
    """Prove ``res.netlist`` ∘ ``res.ppc`` equivalent to the combinational AIG ``comb`` for all
    parameter values; sets ``res.stats.verified``/``proof``.

    Methods: ``"global"``: ABC ``cec`` of the composed netlist (every TLUT a multiplexer of its PPC
    outputs) against ``comb``. ``"cutpoint"``: :func:`dcsflow.tmap.cutpoint.cutpoint_proof` with the mapper's
    LUT claims as cut points (scales to arithmetic, where the global miter does not), plus ABC
    ``cec`` of ``comb`` against the ABC-optimized variant the cover came from, if any. ``"auto"``:
    cut points when ``res.claims`` is known, and the global proof if that does not succeed (a netlist
    read back from files has no claims). Raises VerificationError when not proved, ValueError for an
    unknown method.
    """
    from .abc import cec

    if method not in ("auto", "global", "cutpoint"):
        raise ValueError(f"unknown proof method {method!r}")
    verdicts = []
    ok = False
    if method != "global" and res.claims is not None:
        from .cutpoint import cutpoint_proof

        ok, verdict = cutpoint_proof(res.netlist, res.ppc, res.variant or comb, res.claims, seconds)
        verdicts.append(verdict)
        if ok and res.variant is not None:
            ok, verdict = cec(comb, res.variant, seconds, what="cec: AIG variant vs AIG")
            verdicts.append(f"ABC-optimized AIG variant vs AIG: {verdict}")
    if not ok and method != "cutpoint":
        composed = compose(res.netlist, res.ppc, comb.input_names)
        ok, verdict = cec(comb, composed, seconds, what="cec: netlist ∘ PPC vs AIG")
        verdicts.append(f"global: {verdict}" if verdicts else verdict)
    res.stats.verified = ok
    res.stats.proof = "; ".join(verdicts) if verdicts else "no claims for a cut-point proof"
    if not ok:
        raise VerificationError(f"equivalence proof failed: {res.stats.proof}")


def _unique_namer(taken: set):
    def name(base: str) -> str:
        s = base
        while s in taken:
            s += "_t"
        taken.add(s)
        return s
    return name


class _Ppc:
    """The PPC AIG under construction: its inputs are the parameters, :meth:`literal` gives the PPC
    literal of a parameter-only variable of the mapped AIG (building its cone once,
    :class:`dcsflow.tmap.cones.ParamLiterals`), :meth:`output` the PPC output of a literal (one
    output per distinct literal, named ``e<i>``)."""

    def __init__(self, comb: Aig, params: list):
        self.aig = Aig()
        self.out_index = {}        # PPC literal -> output index
        pos = {nm: j for j, nm in enumerate(comb.input_names)}
        inputs = {}
        for p in params:
            inputs[1 + pos[p]] = self.aig.add_input(p)
        self.literal = ParamLiterals(comb.ands, comb.first_and, self.aig, inputs).literal

    def output(self, lit: int) -> int:
        """Index of the PPC output driven by ``lit`` (added on first use)."""
        j = self.out_index.get(lit)
        if j is None:
            j = self.aig.add_output(lit, f"e{len(self.aig.outputs)}")
            self.out_index[lit] = j
        return j


def _mapped_nodes(comb: Aig, param: bytearray, cover) -> list[int]:
    """AND variables that get a LUT: referenced by the cover, not parameter-only, with a cut."""
    return [v for v in range(comb.first_and, comb.max_var + 1)
            if cover.refs[v] and not param[v] and cover.best[v] is not None]


def _leaf_vars(mapped: list[int], best, n: int) -> bytearray:
    """Flag per variable: a leaf of some mapped node's cut (its LUT must exist in positive form)."""
    used_as_leaf = bytearray(n)
    for v in mapped:
        for l in best[v]:
            used_as_leaf[l] = 1
    return used_as_leaf


def _output_polarities(comb: Aig, param: bytearray) -> tuple[bytearray, bytearray]:
    """Flags per variable: an output reads the AND node positive / complemented (parameter-only
    nodes excluded)."""
    n, base = comb.max_var + 1, comb.first_and
    pos_out = bytearray(n)
    neg_out = bytearray(n)
    for o in comb.outputs:
        if o >> 1 >= base and not param[o >> 1]:
            if o & 1:
                neg_out[o >> 1] = 1
            else:
                pos_out[o >> 1] = 1
    return pos_out, neg_out


def _cone(v: int, leaves, ands, base: int, param: bytearray) -> tuple[list[int], list[int]]:
    """(AND variables between the cut ``leaves`` and ``v`` in topological order, the parameter-only
    variables the cone reads (its frontier, constant 0 excluded))."""
    cone = []
    frontier = []
    stack = [v]
    seen = set(leaves)
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if param[x]:
            if x:
                frontier.append(x)
            continue
        cone.append(x)
        a, b = ands[x - base]
        stack.append(a >> 1)
        stack.append(b >> 1)
    cone.sort()
    return cone, frontier


def _cone_function(v: int, cone: list[int], leaves, ands, base: int, param: bytearray, ppc: _Ppc):
    """The function of ``v`` over its cut ``leaves``: an int truth table (no parameter in the cone:
    static) or a list of PPC literals, one per truth-table entry (tunable)."""
    k = len(leaves)
    size = 1 << k
    mask = (1 << size) - 1
    val = {}
    for j, l in enumerate(leaves):
        val[l] = truth_vars(k)[j]
    for x in cone:
        a, b = ands[x - base]
        va = _value(a, val, param, ppc.literal, mask, size)
        vb = _value(b, val, param, ppc.literal, mask, size)
        if isinstance(va, int) and isinstance(vb, int):
            val[x] = va & vb
        else:
            if isinstance(va, int):
                va = [(va >> i) & 1 for i in range(size)]
            if isinstance(vb, int):
                vb = [(vb >> i) & 1 for i in range(size)]
            val[x] = [ppc.aig.add_and(p, q) for p, q in zip(va, vb)]
    return val[v]


def _affine_shape(comb: Aig, v: int, f, cone: list[int], leaves, frontier: list[int], param: bytearray):
    """(sorted frontier, cols, neg, table at frontier 0) when the tunable function ``f`` of ``v`` is an
    affine TLUT (:mod:`dcsflow.tmap.affine`), else None. Only cones with 1..MAX_FRONTIER frontier nodes and
    no parameter-only leaf are tested."""
    if isinstance(f, int) or not 1 <= len(frontier) <= MAX_FRONTIER or any(param[l] for l in leaves):
        return None
    frontier.sort()
    tabs = cone_tables(comb.ands, comb.first_and, cone, list(leaves), frontier, v)
    found = detect(tabs, len(leaves), len(frontier))
    if found is None:
        return None
    return (frontier, found[0], found[1], tabs[0])


class _LutBuilder:
    """The LUTs of a cover: one per mapped node and output polarity, plus tunable constants and
    inverters the outputs need. ``luts`` in creation order; ``lut_name``/``neg_name``: variable (or
    a ``("tc", lit)`` / ``("inv", v)`` key) -> name of the LUT computing it / its complement;
    ``claims``: LUT name -> literal of the mapped AIG it computes; ``affine``: TLUT name ->
    AffineTlut."""

    def __init__(self, comb: Aig, param: bytearray, ppc: _Ppc):
        self.comb = comb
        self.param = param
        self.ppc = ppc
        # LUT names differ from input and output names
        self.namer = _unique_namer(set(comb.input_names) | set(comb.output_names))
        self.luts = []
        self.muxes = []
        self.select_luts = 0       # LUTs of select XOR nodes made for wide functions (_add_wide)
        self.best = None           # the cover's cuts (cover.best), for the select XOR nodes' cuts
        self._tab_memo = (None, None)
        self._mux_memo = {}
        self.affine = {}
        self.claims = {}
        self.lut_name = {}
        self.neg_name = {}

    def _lut(self, nm: str, ins: list, f, c: int, mask: int) -> Lut:
        """LUT ``nm`` of function ``f`` complemented if ``c``: static when ``f`` is a truth table or
        all its PPC literals are constant, else a TLUT on the PPC outputs of its entries."""
        if isinstance(f, int):
            return Lut(nm, ins, init=(f ^ mask) if c else f)
        if all(p <= 1 for p in f):
            t = 0
            for i, p in enumerate(f):
                t |= (p ^ c) << i
            return Lut(nm, ins, init=t)
        return Lut(nm, ins, ppc=[self.ppc.output(p ^ c) for p in f])

    def add_node(self, v: int, leaves, polarities: list[int]) -> None:
        """The LUTs of mapped node ``v`` with cut ``leaves`` in the ``polarities`` asked for (0:
        positive, 1: complement)."""
        comb, param, ppc = self.comb, self.param, self.ppc
        k = len(leaves)
        mask = (1 << (1 << k)) - 1
        cone, frontier = _cone(v, leaves, comb.ands, comb.first_and, param)
        if k > LUT6:
            self._add_wide(v, list(leaves), cone, frontier, polarities)
            return
        f = _cone_function(v, cone, leaves, comb.ands, comb.first_and, param, ppc)
        ins = [_leaf_name(l, self.lut_name, comb.input_names) for l in leaves]
        aff = _affine_shape(comb, v, f, cone, leaves, frontier, param)
        for c in polarities:
            nm = self.namer(f"n{v}" if c == 0 else f"n{v}_inv")
            lut = self._lut(nm, ins, f, c, mask)
            self.luts.append(lut)
            if lut.is_tlut and aff is not None:
                fr, cols, neg, b0 = aff
                self.affine[nm] = AffineTlut(k, tuple(ppc.output(ppc.literal(x)) for x in fr), cols, neg,
                                             b0 ^ (mask if c else 0))
            (self.neg_name if c else self.lut_name)[v] = nm
            self.claims[nm] = 2 * v + c

    def _select_xor(self, v: int, leaves: list, s: int):
        """For select leaf ``s`` of node ``v``'s wide cut: the cone node ``t = s XOR p`` (``p`` a
        parameter-only literal; AIG form ``AND(NOT AND(a, b), NOT AND(NOT a, NOT b))``) through which
        alone the cone reads ``s``, or None."""
        comb, param = self.comb, self.param
        ands, base = comb.ands, comb.first_and
        others = set(leaves) - {s}
        found = None
        stack, seen = [v], set()
        while stack:                                 # nodes of the cone between v and the leaves
            x = stack.pop()
            if x in seen or x in others or param[x]:
                continue
            seen.add(x)
            if x == s:
                return None                          # s read other than through one XOR node
            a, b = ands[x - base]
            if found is None and a & 1 and b & 1 and (a >> 1) >= base and (b >> 1) >= base:
                ga, gb = ands[(a >> 1) - base], ands[(b >> 1) - base]
                if sorted(ga) == sorted(l ^ 1 for l in gb) and s in (ga[0] >> 1, ga[1] >> 1):
                    p = ga[1] if ga[0] >> 1 == s else ga[0]
                    if param[p >> 1] and p >> 1:
                        found = x
                        continue                     # stop at t: its cone is s and p only
            stack += [a >> 1, b >> 1]
        return found

    def _tables(self, v: int, cone: list, leaves: list, frontier: list) -> tuple[list, list]:
        """(sorted frontier, :func:`dcsflow.tmap.affine.cone_tables` of ``v`` over ``leaves`` per frontier
        value), memoized for the last cut asked."""
        key = (v, tuple(leaves))
        if self._tab_memo[0] != key:
            fr = sorted(frontier)
            self._tab_memo = (key, (fr, cone_tables(self.comb.ands, self.comb.first_and, cone, list(leaves), fr, v)))
        return self._tab_memo[1]

    def _entries_from_tables(self, fr: list, tabs: list, k: int) -> list:
        """The PPC literal of each of the 2^k entries of a cone whose tables per frontier value are
        ``tabs`` (frontier ``fr``, at most MAX_FRONTIER nodes): entry i as a function of the frontier
        (bit f of its table = bit i of ``tabs[f]``), built as a multiplexer tree over the frontier
        literals, shared by every entry and cone with the same sub-table (the same functions as
        :func:`_cone_function`, without evaluating the cone once per entry)."""
        nf = len(fr)
        lits = [self.ppc.literal(x) for x in fr]
        memo = self._mux_memo.setdefault(tuple(lits), {})
        aig = self.ppc.aig

        def lit(tt: int, n: int) -> int:
            if n == 0:
                return tt & 1
            key = (tt, n)
            r = memo.get(key)
            if r is None:
                h = 1 << (n - 1)
                lo, hi = tt & ((1 << h) - 1), tt >> h
                r = lit(lo, n - 1) if lo == hi else aig.add_mux(lits[n - 1], lit(hi, n - 1), lit(lo, n - 1))
                memo[key] = r
            return r

        size = 1 << k
        tt = [0] * size
        for f, t in enumerate(tabs):
            bit = 1 << f
            while t:
                low = t & -t
                tt[low.bit_length() - 1] |= bit
                t ^= low
        return [lit(x, nf) for x in tt]

    def _affine_quarters(self, v: int, cone: list, leaves: list, frontier: list, c: int) -> list | None:
        """Per cofactor LUT of a wide cut (64-entry quarter of the table over ``leaves``), its
        AffineTlut (complemented when ``c``), or None when some quarter is not affine (or the cone is
        out of range for the test, as in :func:`_affine_shape`)."""
        if not 1 <= len(frontier) <= MAX_FRONTIER or any(self.param[l] for l in leaves):
            return None
        fr, tabs = self._tables(v, cone, leaves, frontier)
        m64 = (1 << 64) - 1
        out = []
        for q in range(1 << (len(leaves) - LUT6)):
            qt = [(t >> (64 * q)) & m64 for t in tabs]
            found = detect(qt, LUT6, len(fr))
            if found is None:
                return None
            out.append(AffineTlut(LUT6, tuple(self.ppc.output(self.ppc.literal(x)) for x in fr), found[0],
                                  found[1], qt[0] ^ (m64 if c else 0)))
        return out

    def _quarter_records(self, v: int, cone: list, leaves: list, frontier: list, c: int) -> list | None:
        """Per cofactor LUT of a wide cut, its AffineTlut (complemented when ``c``) when the whole
        2^k-entry table over ``leaves`` is affine in the frontier (:func:`dcsflow.tmap.affine.detect`
        on k = 7 or 8 inputs): index XOR ``S(f)`` and complement ``n(f)``. The low six bits of ``S``
        permute within a quarter, the select bits choose which quarter each cofactor holds
        (:class:`dcsflow.affine.AffineTlut` ``quarters``/``hcols``; none when no select is XORed).
        None when the table is not affine (or out of range for the test, as in :func:`_affine_shape`)."""
        if not 1 <= len(frontier) <= MAX_FRONTIER or any(self.param[l] for l in leaves):
            return None
        k = len(leaves)
        fr, tabs = self._tables(v, cone, leaves, frontier)
        found = detect(tabs, k, len(fr))
        if found is None:
            return None
        cols, neg = found
        m64 = (1 << 64) - 1
        nq = 1 << (k - LUT6)
        quarters = tuple(((tabs[0] >> (64 * q)) & m64) ^ (m64 if c else 0) for q in range(nq))
        low = tuple(x & 63 for x in cols)
        hcols = tuple(x >> 6 for x in cols)
        outs = tuple(self.ppc.output(self.ppc.literal(x)) for x in fr)
        if not any(hcols):
            return [AffineTlut(LUT6, outs, low, neg, quarters[q]) for q in range(nq)]
        return [AffineTlut(LUT6, outs, low, neg, quarters[q], quarters, q, hcols) for q in range(nq)]

    def _add_wide(self, v: int, leaves: list, cone: list, frontier: list, polarities: list[int]) -> None:
        """A wide function of node ``v`` (7 or 8 cut ``leaves``; ``cone`` and ``frontier`` as in
        :meth:`add_node`): per polarity, LUT6 ``<name>_q<q>`` on the first
        six leaves holding the entries ``q * 64 .. q * 64 + 63`` (the cofactor at select 7 = q & 1,
        select 8 = q >> 1), MUXF7 ``O = sel7 ? q1 : q0`` (and q3/q2), and for 8 leaves MUXF8
        ``O = sel8 ? F7(q2, q3) : F7(q0, q1)`` (UG474). The last mux carries the node's name and claim.

        A select leaf is a regular leaf; a parameter read on the way from it changes which entries land
        in which cofactor (the PPC entries), so a cofactor TLUT of ``S(x ^ k)`` holds a quarter chosen
        by key bits. When the whole table is affine in the frontier (:meth:`_quarter_records`), each
        cofactor TLUT gets a record with the quarter tables and the key bits that choose among them
        (:class:`dcsflow.affine.AffineTlut` ``quarters``/``hcols``), which the SCG's row patching
        handles, and no LUT is added. Otherwise, when the cone reads a select leaf ``s`` only through one node
        ``t = s XOR p`` (``p`` parameter-only, e.g. AddRoundKey before an S-box) and the cofactors over
        ``t`` are affine TLUTs (:mod:`dcsflow.tmap.affine`) while those over ``s`` are not, the select
        is ``t``'s LUT instead (a 1-input affine TLUT, shared by every wide cut that selects on it; no
        extra LUT level: it reads ``s`` as the cofactor LUTs read their leaves), so the SCG's affine
        row patching keeps covering the cofactor TLUTs."""
        comb, param = self.comb, self.param
        m64 = (1 << 64) - 1
        low = leaves[:LUT6]
        aff = None
        if frontier:                     # the cone reads parameters: cofactor TLUTs, affine ones wanted
            qa = [self._quarter_records(v, cone, leaves, frontier, c) for c in polarities]
            if None not in qa:
                aff = qa                 # affine over the whole table: quarters chosen by key bits
            else:
                ts = [self._select_xor(v, leaves, s) for s in leaves[LUT6:]]
                if None not in ts and len(set(ts)) == len(ts):
                    leaves2 = low + ts
                    cone2, frontier2 = _cone(v, leaves2, comb.ands, comb.first_and, param)
                    aff2 = [self._affine_quarters(v, cone2, leaves2, frontier2, c) for c in polarities]
                    if None not in aff2 and (self._affine_quarters(v, cone, leaves, frontier, 0) is None):
                        for t, s in zip(ts, leaves[LUT6:]):
                            if t not in self.lut_name:
                                # t = s XOR p over s's own cut when s is a LUT (p is free: a reduced cut), so
                                # s's LUT is swept when nothing else reads it; else a 1-input TLUT on s
                                cut = self.best[s] if self.best is not None and s >= comb.first_and else None
                                n0 = len(self.luts)
                                self.add_node(t, tuple(cut) if cut is not None and len(cut) <= LUT6 else (s,), [0])
                                self.select_luts += len(self.luts) - n0
                        leaves, cone, frontier, aff = leaves2, cone2, frontier2, aff2
            if aff is None:
                aff = [self._affine_quarters(v, cone, leaves, frontier, c) for c in polarities]
        if frontier and len(frontier) <= MAX_FRONTIER and not any(param[l] for l in leaves):
            fr, tabs = self._tables(v, cone, leaves, frontier)
            f = self._entries_from_tables(fr, tabs, len(leaves))
        else:
            f = _cone_function(v, cone, leaves, comb.ands, comb.first_and, param, self.ppc)
        ins = [_leaf_name(l, self.lut_name, comb.input_names) for l in leaves]
        nsel = len(ins) - LUT6
        for pi, c in enumerate(polarities):
            top = self.namer(f"n{v}" if c == 0 else f"n{v}_inv")
            q = []
            for j in range(1 << nsel):
                fq = (f >> (64 * j)) & m64 if isinstance(f, int) else f[64 * j:64 * (j + 1)]
                nm = self.namer(f"{top}_q{j}")
                lut = self._lut(nm, ins[:LUT6], fq, c, m64)
                self.luts.append(lut)
                if lut.is_tlut and aff is not None and aff[pi] is not None:
                    self.affine[nm] = aff[pi][j]
                q.append(nm)
            if nsel == 1:
                self.muxes.append(Mux(top, "MUXF7", q[0], q[1], ins[6]))
            else:
                a, b = self.namer(f"{top}_f7a"), self.namer(f"{top}_f7b")
                self.muxes += [Mux(a, "MUXF7", q[0], q[1], ins[6]), Mux(b, "MUXF7", q[2], q[3], ins[6]),
                               Mux(top, "MUXF8", a, b, ins[7])]
            (self.neg_name if c else self.lut_name)[v] = top
            self.claims[top] = 2 * v + c

    def _shared_lut(self, key, nm_base: str, ins: list, o: int, **function) -> str:
        """Name of the LUT for ``key`` (a tunable constant or an inverter an output needs), made on
        first use with ``function`` (``init=`` or ``ppc=``; a ``ppc`` output is already there when
        the LUT is)."""
        if key not in self.lut_name:
            nm = self.namer(nm_base)
            self.luts.append(Lut(nm, ins, **function))
            self.lut_name[key] = nm
            self.claims[nm] = o
        return self.lut_name[key]

    def output_driver(self, o: int) -> str:
        """The netlist name driving an output of literal ``o``: a constant "0"/"1", a regular input,
        a tunable constant (TLUT without inputs), an inverter LUT of an input, or a node's LUT."""
        v, c = o >> 1, o & 1
        if v == 0:
            return str(c)
        if self.param[v]:
            lit = self.ppc.literal(v) ^ c
            if lit <= 1:
                return str(lit)
            return self._shared_lut(("tc", lit), f"n{v}" if not c else f"n{v}_inv", [], o,
                                    ppc=[self.ppc.output(lit)])
        if v < self.comb.first_and:
            name = self.comb.input_names[v - 1]
            if not c:
                return name
            return self._shared_lut(("inv", v), f"n{v}_inv", [name], o, init=1)
        return self.neg_name[v] if c else self.lut_name[v]


def _build(comb: Aig, params: list, param: bytearray, cover, K: int):
    """Turn the chosen cuts into LUTs/TLUTs and the PPC AIG (before ABC).

    Returns (netlist, PPC AIG, claims: LUT name -> literal of ``comb`` it computes, affine: TLUT name
    -> AffineTlut, number of select LUTs made for wide functions beyond the cover)."""
    ppc = _Ppc(comb, params)
    mapped = _mapped_nodes(comb, param, cover)
    used_as_leaf = _leaf_vars(mapped, cover.best, comb.max_var + 1)
    pos_out, neg_out = _output_polarities(comb, param)
    lb = _LutBuilder(comb, param, ppc)
    lb.best = cover.best
    for v in mapped:
        want_pos = pos_out[v] or used_as_leaf[v] or not neg_out[v]
        want_neg = neg_out[v]
        lb.add_node(v, cover.best[v], ([0] if want_pos else []) + ([1] if want_neg else []))
    outputs = [(oname, lb.output_driver(o)) for oname, o in zip(comb.output_names, comb.outputs)]
    if lb.select_luts:
        lb.select_luts -= _sweep(lb, outputs)
    regular_inputs = [nm for j, nm in enumerate(comb.input_names) if not param[1 + j]]
    netlist = TlutNetlist(K=K, inputs=regular_inputs, params=list(params), luts=lb.luts, outputs=outputs,
                          muxes=lb.muxes)
    return netlist, ppc.aig, lb.claims, lb.affine, lb.select_luts


def _sweep(lb: "_LutBuilder", outputs: list) -> int:
    """Remove the LUTs that nothing reads (a LUT whose only reader became a wide function's select
    XOR LUT, :meth:`_LutBuilder._add_wide`), with their claims and affine records; returns how many."""
    read = {d for _, d in outputs}
    for m in lb.muxes:
        read.update((m.i0, m.i1, m.s))
    removed = 0
    while True:
        reads = set(read)
        for lut in lb.luts:
            reads.update(lut.inputs)
        dead = {lut.name for lut in lb.luts if lut.name not in reads}
        if not dead:
            return removed
        removed += len(dead)
        lb.luts = [lut for lut in lb.luts if lut.name not in dead]
        for n in dead:
            lb.claims.pop(n, None)
            lb.affine.pop(n, None)


def _leaf_name(l, lut_name, names_in):
    """Netlist name of cut leaf ``l``: its LUT, else the AIG input."""
    return lut_name[l] if l in lut_name else names_in[l - 1]


def _value(lit, val, param, get_ppc, mask, size):
    """Value of ``lit`` in a cone: an int truth table (``mask``: all ones) or a list of ``size`` PPC
    literals; a parameter-only literal is a constant table or the same PPC literal in every entry."""
    v = lit >> 1
    if param[v]:
        p = get_ppc(v) ^ (lit & 1)
        if p <= 1:
            return mask if p else 0
        return [p] * size
    x = val[v]
    if lit & 1:
        if isinstance(x, int):
            return x ^ mask
        return [p ^ 1 for p in x]
    return x


def _reshare(netlist: TlutNetlist, ppc: Aig, affine: dict | None = None):
    """After ABC: merge PPC outputs with equal literals; TLUTs whose entries all became constant
    turn into static LUTs. ``affine`` (TLUT name -> AffineTlut) has its frontier outputs renumbered
    and kept; records of TLUTs that became static are dropped. Returns the new netlist, PPC and
    affine records."""
    affine = dict(affine or {})
    new = Aig(num_inputs=ppc.num_inputs, ands=ppc.ands, input_names=list(ppc.input_names))
    index = {}
    remap = []
    canon = list(ppc.outputs)
    if ppc.num_inputs <= EXHAUSTIVE_PARAMS:
        # exhaustive simulation over all parameter values: exact constant detection and sharing of
        # functionally equal entries
        width = 1 << ppc.num_inputs
        pats = [sum(1 << i for i in range(width) if i >> j & 1) for j in range(ppc.num_inputs)]
        full = (1 << width) - 1
        sims = ppc.simulate(pats, width=width)
        first = {}
        for j, (lit, sv) in enumerate(zip(ppc.outputs, sims)):
            if sv == 0:
                canon[j] = 0
            elif sv == full:
                canon[j] = 1
            else:
                canon[j] = first.setdefault(sv, lit)
    for lit in canon:
        j = index.get(lit)
        if j is None:
            j = new.add_output(lit, f"e{len(new.outputs)}")
            index[lit] = j
        remap.append(j)
    luts = []
    const_luts = {}  # tunable constants that turned out constant -> "0"/"1" (they only drive outputs)
    for lut in netlist.luts:
        if lut.is_tlut:
            lits = [canon[j] for j in lut.ppc]
            if not lut.inputs and lits[0] <= 1:
                const_luts[lut.name] = str(lits[0])
                continue
            if all(x <= 1 for x in lits):
                t = 0
                for i, x in enumerate(lits):
                    t |= x << i
                luts.append(Lut(lut.name, lut.inputs, init=t))
                continue
            luts.append(Lut(lut.name, lut.inputs, ppc=[remap[j] for j in lut.ppc]))
        else:
            luts.append(lut)
    tl = {lut.name for lut in luts if lut.is_tlut}
    affine = {n: dataclasses.replace(a, frontier=tuple(remap[j] for j in a.frontier))
              for n, a in affine.items() if n in tl}
    # drop outputs no longer used (keep numbering dense)
    used = sorted({j for lut in luts if lut.is_tlut for j in lut.ppc}
                  | {j for a in affine.values() for j in a.frontier})
    if len(used) != new.num_outputs:
        dense = {j: i for i, j in enumerate(used)}
        final = Aig(num_inputs=new.num_inputs, ands=new.ands, input_names=list(new.input_names))
        for j in used:
            final.add_output(new.outputs[j], f"e{dense[j]}")
        luts = [Lut(l.name, l.inputs, ppc=[dense[j] for j in l.ppc]) if l.is_tlut else l for l in luts]
        affine = {n: dataclasses.replace(a, frontier=tuple(dense[j] for j in a.frontier))
                  for n, a in affine.items()}
        new = final
    netlist.luts = luts
    netlist.outputs = [(n, const_luts.get(d, d)) for n, d in netlist.outputs]
    return netlist, compact(new), affine


def compose(netlist: TlutNetlist, ppc: Aig, input_names: list[str]) -> Aig:
    """Build one AIG computing the netlist with its TLUT entries driven by the PPC outputs.

    Inputs are ``input_names`` (must contain all regular inputs and parameters), outputs are the
    netlist outputs in order. Each LUT becomes a multiplexer tree over its inputs (Shannon
    expansion, entry i at select value i), each MUXF7/MUXF8 one multiplexer ``S ? I1 : I0``. Used for
    the equivalence proof.
    """
    g = Aig()
    lit = {}
    for nm in input_names:
        lit[nm] = g.add_input(nm)
    missing = [p for p in netlist.params + netlist.inputs if p not in lit]
    if missing:
        raise TmapError(f"compose: names not among the inputs: {missing[:3]}")
    pl = {0: 0}
    for j, p in enumerate(ppc.input_names):
        pl[1 + j] = lit[netlist.params[j]]
    pbase = ppc.first_and
    for i, (a, b) in enumerate(ppc.ands):
        pl[pbase + i] = g.add_and(pl[a >> 1] ^ (a & 1), pl[b >> 1] ^ (b & 1))
    ppc_out = [pl[o >> 1] ^ (o & 1) for o in ppc.outputs]
    lit["0"], lit["1"] = 0, 1
    for lut in netlist.cells():
        if isinstance(lut, Mux):
            lit[lut.name] = g.add_mux(lit[lut.s], lit[lut.i1], lit[lut.i0])
            continue
        sel = [lit[x] for x in lut.inputs]
        k = len(sel)
        if lut.is_tlut:
            vals = [ppc_out[j] for j in lut.ppc]
        else:
            vals = [(lut.init >> i) & 1 for i in range(1 << k)]
        for j in range(k):
            vals = [g.add_mux(sel[j], vals[2 * i + 1], vals[2 * i]) for i in range(len(vals) // 2)]
        lit[lut.name] = vals[0]
    lit["0"], lit["1"] = 0, 1
    for oname, d in netlist.outputs:
        g.add_output(lit[d], oname)
    return g
