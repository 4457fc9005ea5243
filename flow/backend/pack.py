"""Slice packer for Xilinx 7-series CLBs (UG474 "CLB resources").

Input: a flat Yosys JSON module of Xilinx primitives (``LUT1``..``LUT6``, ``INV``, ``FD*``, ``CARRY4``,
``MUXF7``, ``MUXF8``; ``IBUF``/``OBUF``/``BUFG`` are I/O and clock cells outside the CLBs; TLUTs are LUT
cells with attribute ``dcs_tlut`` and ``dcs_ppc``). Output: :class:`Packing`, a list of
:class:`PackedSlice`.

Rules (UG474):
- a slice has 4 LUT6 sites A..D; a site holds one LUT (<= 6 inputs) or two LUTs of <= 5 inputs whose
  inputs together are <= 5 nets (LUT6_2: O6 with A6 tied high, O5 = INIT[31:0]);
- a TLUT always takes a whole LUT6 site (its 64 INIT bits are rewritten at run time) and TLUTs are
  packed 4 per slice so that they occupy as few LUT columns as possible;
- 8 flip-flops per slice with one control set (clock, CE, SR, sync/async); an FF whose D input is
  not driven from inside its slice enters through one of the 4 bypass pins AX..DX, which MUXF7/F8
  selects and CARRY4 DI/CYINIT inputs also use (at most 4 distinct nets per slice);
- a CARRY4 takes one slice; S[i] comes from the O6 of LUT i of the same slice; chained CARRY4s
  (CO[3] -> CI) go in vertically consecutive slices; a S input that is not the output of a LUT free
  to move there gets a route-through LUT (INIT = A1), a constant S input of a used stage a constant LUT;
- a MUXF7 takes the O6 of LUTs A/B (F7AMUX) or C/D (F7BMUX) of its slice; a MUXF8 the two MUXF7s;
  inputs not driven by a free LUT get route-through LUTs;
- SRL16E/SRLC32E are SLICEM-only (a whole LUT site in a SLICEM).
Simplifications (documented in docs/formats.md): an FD from inside the slice reaches any of its 8
FFs; DI of CARRY4 uses the bypass pins; the O5 of a LUT6_2 leaves through the xMUX output.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from ..errors import FlowError

LUT_CELLS = {"LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "INV"}
FF_CELLS = {"FDRE", "FDSE", "FDCE", "FDPE"}
SRL_CELLS = {"SRL16E", "SRLC32E"}
IO_CELLS = {"IBUF", "OBUF", "BUFG", "IOBUF", "OBUFT", "BUFGCTRL"}
LETTERS = "ABCD"
#: physical INIT of a route-through LUT: O6 = A1 (LUT6 truth-table index, A1 = LSB).
RT_INIT = 0xAAAAAAAAAAAAAAAA


class PackError(FlowError):
    """The netlist holds cells the built-in packer cannot place (BRAM, DSP, latches...)."""


@dataclass
class LutCell:
    """A logical LUT: ``inputs`` nets of I0..I(k-1) (int net or "0"/"1"), ``output`` net, ``init``
    (int, bit i = output for input pattern i, I0 = LSB), ``tlut``/``ppc`` (PPC output per INIT bit)."""

    name: str
    k: int
    inputs: list
    output: object
    init: int
    tlut: bool = False
    ppc: list = field(default_factory=list)
    srl: bool = False


@dataclass
class LutSite:
    """Occupant of one LUT6 site.

    kind: ``lut`` (one LUT on O6), ``pair`` (LUT6_2: ``o6`` and ``o5``), ``tlut``, ``tlutpair`` (two
    TLUTs as a LUT6_2, opt-in), ``rt`` (route-through
    buffer O6 = A1 of net ``pins[0]``), ``const`` (constant ``const_value`` on O6), ``srl``.
    pins: nets on physical pins A1..A6 (len <= 6; missing pins are unused).
    feeds: for ``rt``/``const``, the (cell, port, bit) its O6 drives instead of the original net.
    """

    kind: str
    o6: str | None = None
    o5: str | None = None
    pins: list = field(default_factory=list)
    rt_net: object = None
    const_value: int = 0
    feeds: tuple | None = None


@dataclass
class PackedSlice:
    """One packed slice: ``luts`` A..D (LutSite or None), ``ffs`` [(cell, bel)], ``control_set``,
    ``carry`` (CARRY4 cell), ``muxf7`` [F7AMUX cell, F7BMUX cell], ``muxf8``, ``slicem`` (needs a
    SLICEM), ``chain`` (chain index, position from the bottom) or None, ``tlut`` (holds TLUTs),
    ``bypass``: nets on the AX..DX bypass pins (at most 4: MUXF7/F8 selects, CARRY4 DI/CYINIT, and
    the D inputs of FFs whose driver is outside the slice)."""

    luts: list = field(default_factory=lambda: [None] * 4)
    ffs: list = field(default_factory=list)
    control_set: tuple | None = None
    carry: str | None = None
    muxf7: list = field(default_factory=lambda: [None, None])
    muxf8: str | None = None
    slicem: bool = False
    chain: tuple | None = None
    tlut: bool = False
    bypass: set = field(default_factory=set)

    def free_lut_positions(self) -> list[int]:
        """Indices 0..3 of empty LUT sites."""
        return [i for i, s in enumerate(self.luts) if s is None]

    def n_luts(self) -> int:
        """Logical LUTs in the slice (a pair counts 2; route-throughs and constants count 0)."""
        n = 0
        for s in self.luts:
            if s is not None:
                n += 2 if s.kind in ("pair", "tlutpair") else (1 if s.kind in ("lut", "tlut", "srl") else 0)
        return n


@dataclass
class Packing:
    """Result of :func:`pack`: slices, carry chains (lists of slice indices, bottom first), the
    logical LUTs by name, route-through count, and the cells left outside the CLBs (I/O, BUFG)."""

    slices: list
    chains: list
    luts: dict
    route_throughs: int
    io_cells: list

    def utilization(self) -> dict:
        """Slices, LUT sites, LUTs, TLUTs, FFs, CARRY4, MUXF7/F8, route-through LUTs, LUT6_2 pairs."""
        sl = self.slices
        return {
            "slices": len(sl), "slicem": sum(1 for s in sl if s.slicem),
            "lut_sites": sum(1 for s in sl for x in s.luts if x is not None),
            "luts": sum(s.n_luts() for s in sl),
            "tluts": sum({"tlut": 1, "tlutpair": 2}.get(x.kind, 0) for s in sl for x in s.luts if x is not None),
            "tlut_sites": sum(1 for s in sl for x in s.luts if x is not None and x.kind in ("tlut", "tlutpair")),
            "lut6_2_pairs": sum(1 for s in sl for x in s.luts if x is not None and x.kind == "pair"),
            "route_throughs": sum(1 for s in sl for x in s.luts if x is not None and x.kind in ("rt", "const")),
            "ffs": sum(len(s.ffs) for s in sl), "carry4": sum(1 for s in sl if s.carry),
            "muxf7": sum(1 for s in sl for m in s.muxf7 if m), "muxf8": sum(1 for s in sl if s.muxf8),
            "tlut_slices": sum(1 for s in sl if s.tlut),
        }


def _init_of(cell: dict, k: int) -> int:
    v = cell.get("parameters", {}).get("INIT", "0")
    if isinstance(v, int):
        return v
    s = str(v).strip()
    if set(s) <= set("01xz") and s:
        return int(s.replace("x", "0").replace("z", "0"), 2)
    return int(s, 0)


def parse_luts(module: dict) -> dict[str, LutCell]:
    """Logical LUT cells of a module (INV becomes a LUT1 with INIT 2'b01)."""
    out = {}
    for cn, c in module["cells"].items():
        t = c["type"]
        con = c["connections"]
        if t == "INV":
            out[cn] = LutCell(cn, 1, [con["I"][0]], con["O"][0], 0b01)
        elif t in LUT_CELLS:
            k = int(t[3:])
            attrs = c.get("attributes", {})
            tl = "dcs_tlut" in attrs
            ppc = [int(x) for x in str(attrs.get("dcs_ppc", "")).strip().rstrip(",").split(",") if x != ""] if tl else []
            out[cn] = LutCell(cn, k, [con[f"I{i}"][0] for i in range(k)], con["O"][0], _init_of(c, k), tl, ppc)
        elif t in SRL_CELLS:
            out[cn] = LutCell(cn, 0, [], con["Q"][0], _init_of(c, 0), srl=True)
    return out


def control_set(cell: dict) -> tuple:
    """(clock net, CE net, SR net, async?) of an FD* cell (constants as "0"/"1")."""
    con = cell["connections"]
    t = cell["type"]
    sr = con.get("R") or con.get("S") or con.get("CLR") or con.get("PRE") or ["0"]
    return (str(con["C"][0]), str(con.get("CE", ["1"])[0]), str(sr[0]), t in ("FDCE", "FDPE"))


def pack(module: dict, tlut_pairs: bool = False) -> Packing:
    """Pack a flat netlist module into slices (rules in the module docstring).

    ``tlut_pairs`` (opt-in, off by default: the default rule is one TLUT per LUT6 site) lets two
    TLUTs of <= 5 inputs sharing <= 5 input nets share one LUT6_2 site (kind ``tlutpair``: both
    halves of the INIT are tunable, the frame map names both).
    Deterministic: cells are visited in the module's order and in a breadth-first order of the
    LUT connectivity graph. Raises PackError for cell types without a CLB model (RAMB*, DSP48*, LD*).
    """
    cells = module["cells"]
    luts = parse_luts(module)
    driver: dict = {}
    loads: dict = {}
    for cn, c in cells.items():
        dirs = c.get("port_directions", {})
        for p, bits in c["connections"].items():
            for b in bits:
                if not isinstance(b, int):
                    continue
                if dirs.get(p) == "output":
                    driver[b] = cn
                else:
                    loads.setdefault(b, []).append(cn)
    carries, ffs, mux7, mux8, io = [], [], [], [], []
    for cn, c in cells.items():
        t = c["type"]
        if t == "CARRY4":
            carries.append(cn)
        elif t in FF_CELLS:
            ffs.append(cn)
        elif t == "MUXF7":
            mux7.append(cn)
        elif t == "MUXF8":
            mux8.append(cn)
        elif t in IO_CELLS:
            io.append(cn)
        elif cn in luts:
            pass
        else:
            raise PackError(f"cell {cn} of type {t} has no model in the built-in back end "
                            "(supported: LUT1-6, INV, FD[RSCP]E, CARRY4, MUXF7/F8, SRL16E/SRLC32E, I/O buffers)")
    used: set[str] = set()
    slices: list[PackedSlice] = []
    n_rt = 0

    def lut_for(net, allow_tlut=False):
        """The free LUT driving ``net`` on its own (not a TLUT unless allowed), else None."""
        d = driver.get(net) if isinstance(net, int) else None
        if d is None or d not in luts or d in used or luts[d].srl:
            return None
        if luts[d].tlut and not allow_tlut:
            return None
        return d

    def site_for(cell: str, port: str, bit: int) -> LutSite:
        nonlocal n_rt
        net = cells[cell]["connections"][port][bit]
        d = lut_for(net)
        if d is not None:
            used.add(d)
            return LutSite("lut", o6=d, pins=list(luts[d].inputs))
        n_rt += 1
        if not isinstance(net, int):
            return LutSite("const", const_value=int(net == "1"), feeds=(cell, port, bit))
        return LutSite("rt", pins=[net], rt_net=net, feeds=(cell, port, bit))

    # ---- carry chains
    chains = []
    carry_set = set(carries)
    nxt = {}
    has_prev = set()
    for cn in carries:
        ci = cells[cn]["connections"]["CI"][0]
        d = driver.get(ci) if isinstance(ci, int) else None
        if d in carry_set and cells[d]["connections"]["CO"][3] == ci:
            if d in nxt:
                raise PackError(f"CARRY4 {d} drives two carry inputs")
            nxt[d] = cn
            has_prev.add(cn)

    def bit_used(c: dict, i: int) -> bool:
        con = c["connections"]
        return any(isinstance(con[p][j], int) and con[p][j] in loads for p in ("O", "CO") for j in range(i, 4))

    for head in carries:
        if head in has_prev:
            continue
        chain = []
        cn = head
        while cn is not None:
            c = cells[cn]
            s = PackedSlice(carry=cn, chain=(len(chains), len(chain)))
            for i in range(4):
                net = c["connections"]["S"][i]
                if not isinstance(net, int) and not bit_used(c, i) and (i == 3 or cn not in nxt):
                    continue  # unused top of the chain: LUT i stays free
                s.luts[i] = site_for(cn, "S", i)
            chain.append(len(slices))
            slices.append(s)
            cn = nxt.get(cn)
        chains.append(chain)
    if len(carry_set) != sum(len(c) for c in chains):
        raise PackError("CARRY4 cells form a loop")

    # ---- wide multiplexers
    f7_in_f8 = set()
    for m8 in mux8:
        s = PackedSlice(muxf8=m8)
        con = cells[m8]["connections"]
        for half, p in enumerate(("I0", "I1")):
            net = con[p][0]
            d = driver.get(net) if isinstance(net, int) else None
            if d is None or cells[d]["type"] != "MUXF7" or d in f7_in_f8:
                raise PackError(f"MUXF8 {m8}: input {p} is not driven by its own MUXF7")
            f7_in_f8.add(d)
            s.muxf7[half] = d
            s.luts[2 * half] = site_for(d, "I0", 0)
            s.luts[2 * half + 1] = site_for(d, "I1", 0)
        slices.append(s)
    pending7 = [m for m in mux7 if m not in f7_in_f8]
    for j in range(0, len(pending7), 2):
        s = PackedSlice()
        for half, m7 in enumerate(pending7[j:j + 2]):
            s.muxf7[half] = m7
            s.luts[2 * half] = site_for(m7, "I0", 0)
            s.luts[2 * half + 1] = site_for(m7, "I1", 0)
        slices.append(s)

    # ---- breadth-first order of the remaining LUTs (locality)
    rest = [n for n in luts if n not in used]
    rest_set = set(rest)
    order = []
    seen = set()
    for start in rest:
        if start in seen:
            continue
        seen.add(start)
        q = deque([start])
        while q:
            n = q.popleft()
            order.append(n)
            lc = luts[n]
            nbrs = []
            for net in lc.inputs:
                d = driver.get(net) if isinstance(net, int) else None
                if d in rest_set:
                    nbrs.append(d)
            if isinstance(lc.output, int):
                nbrs.extend(x for x in loads.get(lc.output, ()) if x in rest_set)
            for m in nbrs:
                if m not in seen:
                    seen.add(m)
                    q.append(m)

    # ---- TLUT slices: 4 TLUTs each
    tl = [n for n in order if luts[n].tlut]
    tunits = [LutSite("tlut", o6=n, pins=list(luts[n].inputs)) for n in tl]
    if tlut_pairs:
        import networkx as nx

        tpos = {n: i for i, n in enumerate(tl)}
        ok = [n for n in tl if luts[n].k <= 5 and all(isinstance(x, int) for x in luts[n].inputs)]
        tg = nx.Graph()
        tg.add_nodes_from(ok)
        by_in: dict = {}
        for n in ok:
            for net in dict.fromkeys(luts[n].inputs):
                by_in.setdefault(net, []).append(n)
        for n in ok:
            for net in dict.fromkeys(luts[n].inputs):
                for m in by_in[net]:
                    if tpos[m] > tpos[n] and len(set(luts[n].inputs) | set(luts[m].inputs)) <= 5:
                        tg.add_edge(n, m)
        mate = {}
        for a, b in nx.max_weight_matching(tg, maxcardinality=True):
            mate[a], mate[b] = b, a
        tunits = []
        for n in tl:
            if n in mate and tpos[mate[n]] < tpos[n]:
                continue
            if n in mate:
                m = mate[n]
                tunits.append(LutSite("tlutpair", o6=n, o5=m, pins=list(dict.fromkeys(luts[n].inputs + luts[m].inputs))))
            else:
                tunits.append(LutSite("tlut", o6=n, pins=list(luts[n].inputs)))
    for j in range(0, len(tunits), 4):
        s = PackedSlice(tlut=True)
        for i, u in enumerate(tunits[j:j + 4]):
            s.luts[i] = u
            used.update(x for x in (u.o6, u.o5) if x)
        slices.append(s)

    # ---- SRLs: SLICEM sites
    srls = [n for n in order if luts[n].srl]
    for j in range(0, len(srls), 4):
        s = PackedSlice(slicem=True)
        for i, n in enumerate(srls[j:j + 4]):
            s.luts[i] = LutSite("srl", o6=n, pins=[])
            used.add(n)
        slices.append(s)

    # ---- static LUTs: LUT6_2 pairing, then slice fill
    static = [n for n in order if n not in used]
    pos = {n: i for i, n in enumerate(static)}
    by_net: dict = {}
    for n in static:
        lc = luts[n]
        if lc.k <= 5 and all(isinstance(x, int) for x in lc.inputs):
            for net in set(lc.inputs):
                by_net.setdefault(net, []).append(n)
    paired: dict[str, str] = {}

    def can_pair(a: str, b: str) -> bool:
        la, lb = luts[a], luts[b]
        return (la.k <= 5 and lb.k <= 5 and all(isinstance(x, int) for x in la.inputs + lb.inputs)
                and len(set(la.inputs) | set(lb.inputs)) <= 5)

    # maximum matching on the graph of LUT pairs that share an input and fit one LUT6_2 (networkx)
    import networkx as nx

    g = nx.Graph()
    for n in static:
        if luts[n].k <= 5 and all(isinstance(x, int) for x in luts[n].inputs):
            g.add_node(n)
            for net in dict.fromkeys(luts[n].inputs):
                for m in by_net.get(net, ()):
                    if pos[m] > pos[n] and can_pair(n, m):
                        g.add_edge(n, m)
    # LUTs fixed in carry slices take an O5 partner too (it leaves through the xMUX output)
    # (only in carry slices where the stage's O[i]/CO[i] do not need the xMUX output)
    fixed_sites = {}
    for s in slices:
        if s.carry is None:
            continue
        con = cells[s.carry]["connections"]
        for i, site in enumerate(s.luts):
            xmux_free = all(not (isinstance(con[p][i], int) and con[p][i] in loads) or (p == "CO" and i == 3)
                            for p in ("O", "CO"))
            if (xmux_free and site is not None and site.kind == "lut" and luts[site.o6].k <= 5
                    and all(isinstance(x, int) for x in luts[site.o6].inputs)):
                fixed_sites[site.o6] = site
    for n in fixed_sites:
        g.add_node(n)
        for net in dict.fromkeys(luts[n].inputs):
            for m in by_net.get(net, ()):
                if can_pair(n, m):
                    g.add_edge(n, m)
    matching = nx.max_weight_matching(g, maxcardinality=True)
    absorbed = set()
    for a, b in sorted(matching, key=lambda e: min(pos.get(e[0], -1), pos.get(e[1], -1))):
        if a in fixed_sites or b in fixed_sites:
            f, m = (a, b) if a in fixed_sites else (b, a)
            site = fixed_sites[f]
            site.kind, site.o5 = "pair", m
            site.pins = list(dict.fromkeys(luts[f].inputs + luts[m].inputs))
            absorbed.add(m)
            used.add(m)
        else:
            paired[a], paired[b] = b, a
    static = [n for n in static if n not in absorbed]
    for n in static:  # unrelated small LUTs close in the order
        if n in paired or luts[n].k > 4 or not all(isinstance(x, int) for x in luts[n].inputs):
            continue
        for m in static[pos[n] + 1:pos[n] + 32]:
            if m not in paired and can_pair(n, m):
                paired[n], paired[m] = m, n
                break
    units = []
    done = set()
    for n in static:
        if n in done:
            continue
        done.add(n)
        if n in paired:
            m = paired[n]
            done.add(m)
            pins = list(dict.fromkeys(luts[n].inputs + luts[m].inputs))
            units.append(LutSite("pair", o6=n, o5=m, pins=pins))
        else:
            units.append(LutSite("lut", o6=n, pins=list(luts[n].inputs)))
        used.update(x for x in (n, paired.get(n)) if x)
    # free positions of carry/mux slices first (unused top of carry chains), then new slices
    holes = [(si, i) for si, s in enumerate(slices) if not s.tlut and not s.slicem for i in s.free_lut_positions()]
    hi = 0
    cur = None
    for u in units:
        if hi < len(holes):
            si, i = holes[hi]
            hi += 1
            slices[si].luts[i] = u
            continue
        if cur is None or not cur.free_lut_positions():
            cur = PackedSlice()
            slices.append(cur)
        cur.luts[cur.free_lut_positions()[0]] = u

    # ---- flip-flops by control set
    lut_slice = {}
    for si, s in enumerate(slices):
        for site in s.luts:
            if site is not None:
                for n in (site.o6, site.o5):
                    if n:
                        lut_slice[luts[n].output] = si
        for m in (s.carry, s.muxf8, *s.muxf7):
            if m:
                for p, bits in cells[m]["connections"].items():
                    if cells[m]["port_directions"][p] == "output":
                        for b in bits:
                            lut_slice.setdefault(b, si)
    for si, s in enumerate(slices):
        for m, ports in ((s.muxf7[0], ("S",)), (s.muxf7[1], ("S",)), (s.muxf8, ("S",)), (s.carry, ("DI", "CYINIT"))):
            if m:
                for p in ports:
                    s.bypass.update(b for b in cells[m]["connections"][p] if isinstance(b, int))
    overflow = []

    def fits(si: int, cs: tuple, d) -> bool:
        s = slices[si]
        if len(s.ffs) >= 8 or (s.control_set is not None and s.control_set != cs):
            return False
        return lut_slice.get(d) == si or d in s.bypass or not isinstance(d, int) or len(s.bypass) < 4

    def add_ff(si: int, cn: str, cs: tuple, d) -> None:
        s = slices[si]
        s.control_set = cs
        if lut_slice.get(d) != si and isinstance(d, int):
            s.bypass.add(d)
        k = len(s.ffs)
        s.ffs.append((cn, f"{LETTERS[k % 4]}{'FF' if k < 4 else '5FF'}"))

    def full(si: int) -> bool:
        return len(slices[si].ffs) >= 8 or len(slices[si].bypass) >= 4

    for cn in ffs:
        cs = control_set(cells[cn])
        d = cells[cn]["connections"]["D"][0]
        si = lut_slice.get(d)
        if si is not None and fits(si, cs, d):
            add_ff(si, cn, cs, d)
        else:
            overflow.append((cn, cs, d))
    by_cs: dict = {}
    for si, s in enumerate(slices):
        by_cs.setdefault(s.control_set, []).append(si)
    ptr: dict = {}
    empty = [si for si, s in enumerate(slices) if s.control_set is None]
    ei = 0
    for cn, cs, d in overflow:
        lst = by_cs.setdefault(cs, [])
        j = ptr.get(cs, 0)
        while j < len(lst) and full(lst[j]):
            j += 1
        ptr[cs] = j
        hit = next((lst[t] for t in range(j, min(len(lst), j + 16)) if fits(lst[t], cs, d)), None)
        if hit is not None:
            add_ff(hit, cn, cs, d)
            continue
        while ei < len(empty) and (slices[empty[ei]].control_set is not None or not fits(empty[ei], cs, d)):
            ei += 1
        if ei < len(empty):
            si = empty[ei]
        else:
            si = len(slices)
            slices.append(PackedSlice())
        add_ff(si, cn, cs, d)
        lst.append(si)
    return Packing(slices, chains, luts, n_rt, io)
