"""Affine TLUT patch: the frame bits of affine TLUTs computed from their frontier, not entry by entry.

TMAP marks a TLUT *affine* (record :class:`dcsflow.affine.AffineTlut`) when its table at frontier
value ``f`` is a base table ``B`` with its index XORed by ``s(f)`` and complemented by ``n(f)``, both
linear in ``f`` (the frontier = a few PPC outputs, e.g. round-key bits). The build's ``ppc.json``
carries the records
(key ``affine``, per template cell). This module turns them into per-TLUT rows for the firmware SCG:

- a 7-series LUT's 64 INIT bits lie in 4 frames (consecutive minors), 16 bits each, at the same
  word and the same half-word (FACTS.md, "LUT INIT bit i"). Numbering those bits ``v = m*16 + b``
  (m = frame of the 4 in FDRI order, b = bit in the half-word), the map INIT index -> v is affine
  over GF(2) (checked per TLUT), so an index XOR in INIT space is an index XOR ``D`` in v space:
  the 64-bit value ``V`` (half-word m in bits 16m..16m+15) at ``f`` is ``V0`` with its index XORed
  by ``D(f) = XOR_j f_j * dcol_j`` and complemented when ``n(f)`` = bit 6 of ``D`` is set;
- the frame ECC (Hamming code over bit positions, :func:`dcsflow.scg.device.word_ecc`) of a half-word ``h``
  at word bits ``o..o+15`` is ``parity(h) * code(word, o) ^ X(h)``, ``X`` = XOR of the positions of
  its set bits. Permuting ``h`` by an XOR ``d`` keeps the parity and turns ``X`` into
  ``X ^ parity * d``; complementing 16 bits keeps both. So each row carries ``(parity, X)`` of
  ``V0``'s four half-words and the firmware only permutes them with the two frame bits of ``D``.

Rows with the same frontier and columns share ``D`` (:func:`group_tables`: in AES the 32 TLUTs of
one S-box), so the firmware computes ``D`` once per group, and the ECC syndromes of a group's
half-words in one frame are pre-summed for each of the 4 values of ``D``'s two frame bits.

A cofactor TLUT of a wide function whose select inputs are XORed by key bits holds one of 2 or 4
quarter tables chosen by ``h(f)`` (record ``quarters``/``hcols``, :class:`dcsflow.affine.AffineTlut`):
its row carries ``V0`` for every value of ``h`` (bits 7..8 of ``D``), the firmware selects one with
masks (no key-dependent address), and the ECC pre-sums exist per value of ``h`` too. The
firmware loop (``scg.codegen.affine_source``) and :func:`apply_tables` (its Python mirror, for
tests) do the same constant-time steps: no branch and no address depends on the key.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from dcsflow.affine import AffineTlut, xor_permute

from .buildfolder import BuildFolder
from .device import ECC_WORD, FRAME_WORDS, bit_code
from .errors import BuildFolderError

_M64 = (1 << 64) - 1


@dataclass(frozen=True)
class AffineRow:
    """One affine TLUT as the firmware patches it.

    Attributes:
        name: TLUT cell name; frontier: PPC output per frontier bit; dcols: per frontier bit the
            v-space index mask (bits 0..5) and the complement flag (bit 6);
        v0: the 64-bit frame-order value V at f = 0; hidx: for m = 0..3 the 16-bit word index
            ``2 * (frame_index * 101 + word) + half`` of half-word m in the shadow frames;
        fidx: frame index (into the blob's FARs) of half-word m; q: byte m = X | parity << 4 of
            V0's half-word m; code: ECC code of the half-word's bit 0 (:func:`dcsflow.scg.device.bit_code`).
        v0s, qs: ``V0`` and ``q`` for each value h of the quarter choice (``dcols`` bits 7..8) of a
            wide function's cofactor TLUT; ``(v0,)`` and ``(q,)`` otherwise.
    """

    name: str
    frontier: tuple
    dcols: tuple
    v0: int
    hidx: tuple
    fidx: tuple
    q: int
    code: int
    v0s: tuple = ()
    qs: tuple = ()

    def candidates(self) -> tuple[tuple, tuple]:
        """(``v0s``, ``qs``), with ``(v0,)``, ``(q,)`` for a row without quarter choice."""
        return (self.v0s, self.qs) if self.v0s else ((self.v0,), (self.q,))


def _xidx(h: int) -> int:
    x = 0
    for b in range(16):
        if h >> b & 1:
            x ^= b
    return x


def _vmap(positions, far_order):
    """v index of each of the 64 INIT bits, the 4 FARs (FDRI order), the word and the half-word
    offset; None when the layout is not 4 frames x one half-word or not affine."""
    fars = sorted({p[0] for p in positions}, key=far_order)
    words = {p[1] for p in positions}
    if len(fars) != 4 or len(words) != 1:
        return None
    word = words.pop()
    o = positions[0][2] & 16
    if word == ECC_WORD or any(p[2] & ~15 != o for p in positions):
        return None
    v = [fars.index(far) * 16 + (bit - o) for far, _, bit in positions]
    lin = [v[1 << b] ^ v[0] for b in range(6)]
    for i in range(64):
        acc = v[0]
        for b in range(6):
            if i >> b & 1:
                acc ^= lin[b]
        if acc != v[i]:
            return None
    return v, lin, fars, word, o


def affine_rows(build: BuildFolder, check_keys: int = 16) -> tuple[list[AffineRow], set]:
    """Rows of the build's affine TLUTs and the frame bits they cover.

    Reads ``ppc.json`` key ``affine`` and ``tlut/framemap.json`` key ``tluts``; TLUTs in LUT6_2
    pairs, and layouts that are not affine, keep the generic patch. The rows are checked against
    the PPC itself on ``check_keys`` random parameter values (bit-parallel evaluation).

    Returns:
        ``(rows, covered)``: rows in frame-map order; covered = set of ``(far, word, bit)``.
    Raises:
        BuildFolderError: malformed records, or a row that disagrees with the PPC.
    """
    try:
        recs = {n: AffineTlut.from_json(d) for n, d in build.affine_records.items()}
    except (AttributeError, ValueError, KeyError, TypeError) as e:
        raise BuildFolderError(f"{build.path}/ppc.json: malformed affine TLUT records ({e})") from None
    if not recs:
        return [], set()
    fidx = {f: k for k, f in enumerate(build.fars)}
    n_out = build.ppc.num_outputs
    rows, covered = [], set()
    order = build.device.far_index.__getitem__
    for t in build.framemap_tluts:
        a = recs.get(t.get("name"))
        if a is None or "input_pins" in t or not str(t.get("bel", "")).endswith("6LUT"):
            continue
        if any(not 0 <= j < n_out for j in a.frontier):
            raise BuildFolderError(f"affine TLUT {t['name']}: frontier output out of range")
        pos = build.device.lut_bits(t["site"], t["bel"])
        vm = _vmap(pos, order)
        if vm is None:
            continue
        v, lin, fars, word, o = vm
        kmask = (1 << a.k) - 1

        def frame_order(table):
            v0 = 0
            for i in range(64):
                v0 |= ((table >> (i & kmask)) & 1) << v[i]
            q = 0
            for m in range(4):
                h = (v0 >> (16 * m)) & 0xFFFF
                q |= (_xidx(h) | (bin(h).count("1") & 1) << 4) << (8 * m)
            return v0, q

        dcols = []
        for j, col in enumerate(a.cols):
            d = 0
            for b in range(6):
                if col >> b & 1:
                    d ^= lin[b]
            hcol = a.hcols[j] if a.quarters else 0
            dcols.append(d | ((a.neg >> j) & 1) << 6 | hcol << 7)
        v0, q = frame_order(a.base)
        cand = [frame_order(a.quarters[a.q ^ h]) for h in range(len(a.quarters))] if a.quarters else []
        fi = tuple(fidx[f] for f in fars)
        rows.append(AffineRow(t["name"], tuple(a.frontier), tuple(dcols), v0,
                              tuple(2 * (f * FRAME_WORDS + word) + (o >> 4) for f in fi), fi, q,
                              bit_code(word, o), tuple(c[0] for c in cand), tuple(c[1] for c in cand)))
    at = {(far, w, b): j for far, w, b, j in build.entries} if rows else {}
    if rows and check_keys:
        _check_rows(build, rows, check_keys, at)
    rows = [r for r in rows if generic_cost(build, r, at) > ROW_COST]
    for r in rows:
        covered.update(_positions(build, r))
    return rows, covered


#: Cortex-A9 instructions per row of the firmware loop, all in (-O2, QEMU): aes128_pipe, 6400 rows in
#: 574 groups, 747,397 instructions per rekey of which 100,776 PPC: ~100 per row with its share of the
#: group masks and pre-summed ECC (the row loop alone is ~69)
ROW_COST = 100
#: instructions per OR/XOR term of the straight-line generic patch (load, AND, OR) and per AND node
TERM_COST, AND_COST = 3, 2


def _positions(build: BuildFolder, r: AffineRow) -> list:
    return [(build.fars[r.fidx[m]], (r.hidx[m] >> 1) % FRAME_WORDS, (r.hidx[m] & 1) * 16 + b)
            for m in range(4) for b in range(16)]


def generic_cost(build: BuildFolder, r: AffineRow, at: dict) -> int:
    """Estimated Cortex-A9 instructions for patching TLUT ``r`` entry by entry instead: one term per
    distinct non-constant PPC output in each of its frame words and in each frame's ECC, plus the
    AND nodes of its entries' cones below its frontier (an over-estimate where TLUTs share nodes).
    A row is used only when this exceeds :data:`ROW_COST` (e.g. not for picipher's key-XOR TLUTs,
    whose entries are parameter bits). ``at``: frame bit ``(far, word, bit)`` -> PPC output."""
    aig = build.ppc.aig
    words, frames = {}, {}
    outs = set()
    for far, w, b in _positions(build, r):
        j = at[(far, w, b)]
        if aig.outputs[j] >> 1:
            words.setdefault((far, w), set()).add(j)
            frames.setdefault(far, set()).add(j)
            outs.add(j)
    terms = sum(map(len, words.values())) + sum(map(len, frames.values()))
    base = aig.first_and
    stop = {aig.outputs[j] >> 1 for j in r.frontier}
    seen, stack = set(), [aig.outputs[j] >> 1 for j in outs]
    while stack:
        v = stack.pop()
        if v in seen or v in stop or v < base:
            continue
        seen.add(v)
        a, b = aig.ands[v - base]
        stack += [a >> 1, b >> 1]
    return TERM_COST * terms + AND_COST * len(seen)


def _check_rows(build: BuildFolder, rows: list[AffineRow], n: int, at: dict) -> None:
    """Every row's frame bits equal the PPC entries at those bits, on ``n`` random parameter values."""
    rng = random.Random(0x5CA)
    aig = build.ppc.aig
    vals = {name: rng.getrandbits(n) for name in aig.input_names}
    outs = aig.simulate(vals, width=n)
    for r in rows:
        want = [at.get(p) for p in _positions(build, r)]   # index 16m + b
        if None in want:
            raise BuildFolderError(f"affine TLUT {r.name}: its frame bits are not frame-map entries")
        for p in range(n):
            y = [(outs[j] >> p) & 1 for j in r.frontier]
            got = affine_value(r, y)
            exp = sum(((outs[j] >> p) & 1) << k for k, j in enumerate(want))
            if got != exp:
                raise BuildFolderError(f"affine TLUT {r.name} disagrees with the PPC: the build's ppc.json "
                                 "affine records do not belong to its ppc.aig")


def affine_value(r: AffineRow, fvals) -> int:
    """The 64-bit frame-order value V of row ``r`` for frontier bits ``fvals`` (0/1 each)."""
    d = 0
    for fj, c in zip(fvals, r.dcols):
        if fj:
            d ^= c
    v0s, _ = r.candidates()
    return xor_permute(v0s[d >> 7], d & 63, 6) ^ (_M64 if d >> 6 & 1 else 0)


@dataclass(frozen=True)
class AffineTables:
    """The rows grouped for the firmware: rows with the same frontier and columns share one mask
    ``D`` (in AES, the 32 TLUTs of one S-box), and their ECC syndromes are pre-summed per frame.

    Attributes:
        nf: frontier slots per group (the largest frontier; shorter ones padded with zero columns).
        groups: flat, per group ``[rows, ecc entries, frontier outputs[nf], columns[nf]]``.
        rows: flat, per row ``[V0 lo, V0 hi] * nh + [half-word index m=0..3]`` (2 nh + 4 words), in
            group order; pair e is V0 for quarter choice e (``D`` bits 7..8).
        eccs: flat, per (group, frame) ``[frame index] + [v0 | v1 << 16, v2 | v3 << 16] * nh`` with
            ``v_h`` = ``C | P << 13`` for the two frame bits ``h`` of ``D`` (D bits 4, 5): ``C`` = XOR
            over the group's half-words in that frame of ``X ^ parity * code`` of the half-word they
            then hold (13 bits), ``P`` = XOR of their parities; the syndrome is ``C ^ P * (D & 15)``.
        nh: quarter choices per row: 1 (no wide function's cofactor with key-XORed selects), 2 or 4.
    """

    nf: int
    groups: list
    rows: list
    eccs: list
    nh: int = 1

    @property
    def num_groups(self) -> int:
        """Number of groups."""
        return len(self.groups) // (2 + 2 * self.nf) if self.nf else 0


def group_tables(rows: list[AffineRow]) -> AffineTables:
    """Group ``rows`` (:func:`affine_rows`) into :class:`AffineTables` (groups in first-row order)."""
    nf = max((len(r.frontier) for r in rows), default=0)
    nh = max((len(r.candidates()[0]) for r in rows), default=1)
    by: dict = {}
    for r in rows:
        by.setdefault((r.frontier, r.dcols), []).append(r)
    groups, flat, eccs = [], [], []
    for (fr, dc), members in by.items():
        pad = nf - len(fr)
        per_frame: dict = {}
        for r in members:
            v0s, qs = r.candidates()
            for e in range(nh):
                v0 = v0s[e % len(v0s)]
                flat += [v0 & 0xFFFFFFFF, v0 >> 32]
            flat += r.hidx
            for m in range(4):
                vals = per_frame.setdefault(r.fidx[m], [[0, 0, 0, 0] for _ in range(nh)])
                for e in range(nh):
                    q = qs[e % len(qs)]
                    for h in range(4):
                        b = (q >> (8 * (m ^ h))) & 0x1F   # half-word m holds source half-word m ^ h
                        vals[e][h] ^= ((b & 15) ^ (r.code if b >> 4 else 0)) | (b >> 4) << 13
        groups += [len(members), len(per_frame), *fr, *([fr[0]] * pad), *dc, *([0] * pad)]
        for fi, ve in per_frame.items():
            eccs.append(fi)
            for v in ve:
                eccs += [v[0] | v[1] << 16, v[2] | v[3] << 16]
    return AffineTables(nf, groups, flat, eccs, nh)


def apply_tables(t: AffineTables, y: list[int], f16: list[int], eacc: list[int]) -> None:
    """Python mirror of the firmware loop (``scg.codegen.affine_source``), step by step: write every
    row's 4 half-words into ``f16`` (the shadow frames as 16-bit words, little-endian halves) and XOR
    the groups' ECC syndromes into ``eacc`` (per frame index). ``y``: PPC output bits (0/1)."""
    gi = ri = ei = 0
    nf, nh = t.nf, t.nh
    for _ in range(t.num_groups):
        g = t.groups[gi:gi + 2 + 2 * nf]
        gi += 2 + 2 * nf
        d = 0
        for i in range(nf):
            d ^= (0 - y[g[2 + i]]) & g[2 + nf + i]
        # the quarter choice by masks, as the firmware (no key-dependent index)
        sel = [(0 - (((((d >> 7) & 3) ^ e) - 1) >> 31 & 1)) & 0xFFFFFFFF for e in range(nh)]
        for _ in range(g[0]):
            lo = hi = 0
            for e in range(nh):
                lo |= t.rows[ri + 2 * e] & sel[e]
                hi |= t.rows[ri + 2 * e + 1] & sel[e]
            v = xor_permute(lo | hi << 32, d & 63, 6) ^ (_M64 if d >> 6 & 1 else 0)
            for m in range(4):
                f16[t.rows[ri + 2 * nh + m]] = (v >> (16 * m)) & 0xFFFF
            ri += 2 * nh + 4
        for _ in range(g[1]):
            fi = t.eccs[ei]
            a = b = 0
            for e in range(nh):
                a |= t.eccs[ei + 1 + 2 * e] & sel[e]
                b |= t.eccs[ei + 2 + 2 * e] & sel[e]
            ei += 1 + 2 * nh
            pair = b if d >> 5 & 1 else a
            v = (pair >> 16 if d >> 4 & 1 else pair) & 0xFFFF
            eacc[fi] ^= (v & 0x1FFF) ^ ((0 - (v >> 13)) & (d & 15))
