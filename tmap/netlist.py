"""The TLUT netlist: LUTs (static or tunable), MUXF7/MUXF8 cells, their JSON and BLIF forms, and
:func:`compose`, which turns a netlist and its PPC into one AIG.

The JSON document is format ``dcsflow-tlut-netlist`` (docs/formats.md): version 2 added the
wide-function multiplexers, version 3 the TLUT size ``tlut_k``; versions 1 and 2 are still read. A TLUT's truth table is a list of PPC output
indices (one per entry); the PPC itself is an AIG over the parameters (:mod:`dcsflow.tmap.ppc`).
Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dcsflow.aig import Aig

from .errors import TmapError

__all__ = ["NETLIST_FORMAT", "NETLIST_VERSION", "LUT6", "Lut", "Mux", "TlutNetlist", "compose"]

NETLIST_FORMAT = "dcsflow-tlut-netlist"
#: Version of the TLUT netlist format: 2 added the wide-function multiplexers (``muxes``), 3 the TLUT
#: size (``tlut_k``).
NETLIST_VERSION = 3
#: Inputs of one LUT site; cuts with more regular leaves are wide (LUT6 cofactors + MUXF7/MUXF8).
LUT6 = 6


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
    """LUT netlist with TLUTs (format ``dcsflow-tlut-netlist`` version 3, see docs/formats.md).

    Attributes:
        K: LUT size used for mapping.
        inputs: regular input names (AIG inputs that are not parameters, then latch outputs).
        params: parameter input names, in PPC input order.
        luts: LUTs in topological order (a LUT may read a mux output; that mux reads earlier LUTs).
        outputs: (output name, driver) pairs; a driver is a LUT or mux name, a regular input name,
            "0" or "1".
        source_hash: SHA-256 of the canonical source AIG.
        muxes: :class:`Mux` cells of the wide functions (a MUXF8 after the MUXF7s it reads).
        tlut_k: most regular inputs of one TLUT (0: ``K``); 5 when the TLUTs are CFGLUT5 (UG953).
    """

    K: int
    inputs: list
    params: list
    luts: list
    outputs: list
    source_hash: str = ""
    muxes: list = field(default_factory=list)
    tlut_k: int = 0

    @property
    def tlut_size(self) -> int:
        """Most regular inputs of one TLUT (``tlut_k``, else ``K``)."""
        return self.tlut_k or self.K

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
                "outputs": [{"name": n, "driver": d} for n, d in self.outputs], "source_hash": self.source_hash,
                "tlut_k": self.tlut_size}

    @classmethod
    def from_json_obj(cls, d: dict) -> "TlutNetlist":
        """Inverse of :meth:`to_json_obj` (version 1, without muxes, and 2, without ``tlut_k``, are
        read too); raises TmapError on another format or version, or a mux of unknown type."""
        if d.get("format") != NETLIST_FORMAT or d.get("version") not in (1, 2, NETLIST_VERSION):
            raise TmapError(f"not a {NETLIST_FORMAT} version 1 to {NETLIST_VERSION} document")
        luts = [Lut(x["name"], list(x["inputs"]), int(x["init"], 16) if "init" in x else None,
                    list(x["ppc"]) if "ppc" in x else None) for x in d["luts"]]
        muxes = [Mux(x["name"], x["type"], x["I0"], x["I1"], x["S"]) for x in d.get("muxes", [])]
        for m in muxes:
            if m.kind not in ("MUXF7", "MUXF8"):
                raise TmapError(f"mux {m.name}: unknown type {m.kind!r} (MUXF7 or MUXF8)")
        return cls(d["K"], list(d["inputs"]), list(d["params"]), luts,
                   [(o["name"], o["driver"]) for o in d["outputs"]], d.get("source_hash", ""), muxes,
                   int(d.get("tlut_k", 0)))

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
        """Number of LUT levels on the longest input-to-output path (MUXF7/MUXF8 add none, nor does a
        LUT without inputs: no input-to-output path passes it, and a parameter bit is a flip-flop)."""
        lvl = {}
        for c in self.cells():
            if isinstance(c, Mux):
                lvl[c.name] = max(lvl.get(c.i0, 0), lvl.get(c.i1, 0), lvl.get(c.s, 0))
            elif c.inputs:
                lvl[c.name] = 1 + max(lvl.get(x, 0) for x in c.inputs)
            else:
                lvl[c.name] = 0
        return max((lvl.get(d, 0) for _, d in self.outputs), default=0)


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
