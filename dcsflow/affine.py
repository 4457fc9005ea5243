"""Affine TLUT records: the ``ppc.json`` key ``affine`` (docs/formats.md), shared by the mapper that
finds and writes them (:mod:`dcsflow.tmap.affine`) and the runtime that patches affine TLUTs from
their frontier (:mod:`dcsflow.scg.affine`).

A TLUT with ``k`` regular inputs is *affine* when, for every value ``f`` of its frontier (a few
parameter-only PPC nodes), ``INIT(f)[i] = B[i ^ s(f)] ^ n(f)`` with ``B = INIT(0)``,
``s(f) = XOR_j f_j * col_j`` and ``n(f) = XOR_j f_j * neg_j``.

A cofactor TLUT of a wide function (LUT6 under MUXF7/MUXF8, quarter ``q`` of a 2^(6+m)-entry table,
m = 1 or 2 select inputs) whose selects are XORed by parameter-only bits holds a quarter chosen by
those bits: ``INIT(f)[i] = Q[q ^ h(f)][i ^ s(f)] ^ n(f)`` with ``h(f) = XOR_j f_j * hcol_j`` (m bits)
and ``Q`` the 2^m quarter tables at f = 0 (so ``B = Q[q]``): the record's ``quarters``, ``q`` and
``hcols``. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

#: largest frontier for which a TLUT is tested (2^(k+F) truth-table bits, k <= 6); 8 takes in an S-box
#: whose cone reads a whole key byte (aes128_pipe: its first-round S-boxes read 7 key-derived nodes)
MAX_FRONTIER = 8

#: butterfly masks: entries whose index bit s is 0 (within a 64-entry table)
_LOW = [0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F,
        0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF, 0x00000000FFFFFFFF]


@dataclass(frozen=True)
class AffineTlut:
    """An affine TLUT (module docstring).

    Attributes:
        k: number of regular inputs (the table has 2^k entries).
        frontier: PPC output index of each frontier node (value f_j), length 1..MAX_FRONTIER.
        cols: per frontier bit, the k-bit index mask col_j.
        neg: bit mask over the frontier: bit j set = f_j complements the table.
        base: B = the table at f = 0 (int, bit i = entry i).
        quarters: for a cofactor TLUT of a wide function (module docstring), the 2 or 4 quarter
            tables at f = 0 (``quarters[q] == base``); empty otherwise.
        q: which quarter this TLUT holds at f = 0; hcols: per frontier bit, the quarter-index mask.
    """

    k: int
    frontier: tuple
    cols: tuple
    neg: int
    base: int
    quarters: tuple = ()
    q: int = 0
    hcols: tuple = ()

    def quarter(self, fvals) -> int:
        """Index into :attr:`quarters` of the table held at frontier values ``fvals`` (0 without
        quarters)."""
        h = 0
        for fj, c in zip(fvals, self.hcols):
            if fj:
                h ^= c
        return self.q ^ h

    def table(self, fvals) -> int:
        """The truth table for frontier values ``fvals`` (sequence of 0/1, one per frontier bit)."""
        s = n = 0
        for j, fj in enumerate(fvals):
            if fj:
                s ^= self.cols[j]
                n ^= (self.neg >> j) & 1
        b = self.quarters[self.quarter(fvals)] if self.quarters else self.base
        t = xor_permute(b, s, self.k)
        return t ^ (((1 << (1 << self.k)) - 1) if n else 0)

    def as_json(self) -> dict:
        """JSON form (docs/formats.md, ``ppc.json`` key ``affine``)."""
        d = {"k": self.k, "frontier": list(self.frontier), "cols": list(self.cols),
             "neg": self.neg, "base": f"{self.base:x}"}
        if self.quarters:
            d.update(quarters=[f"{x:x}" for x in self.quarters], q=self.q, hcols=list(self.hcols))
        return d

    @classmethod
    def from_json(cls, d: dict) -> "AffineTlut":
        """Inverse of :meth:`as_json`. Raises ValueError/KeyError/TypeError on a malformed record."""
        k = int(d["k"])
        fr = tuple(int(x) for x in d["frontier"])
        cols = tuple(int(x) for x in d["cols"])
        neg, base = int(d["neg"]), int(str(d["base"]), 16)
        if not 0 <= k <= 6 or not 1 <= len(fr) <= MAX_FRONTIER or len(cols) != len(fr) \
                or any(not 0 <= c < (1 << k) for c in cols) or neg >> len(fr) or base >> (1 << k):
            raise ValueError(f"malformed affine TLUT record {d!r}")
        if "quarters" not in d:
            return cls(k, fr, cols, neg, base)
        quarters = tuple(int(str(x), 16) for x in d["quarters"])
        q = int(d["q"])
        hcols = tuple(int(x) for x in d["hcols"])
        if k != 6 or len(quarters) not in (2, 4) or not 0 <= q < len(quarters) or len(hcols) != len(fr) \
                or any(not 0 <= c < len(quarters) for c in hcols) or any(x >> 64 for x in quarters) \
                or quarters[q] != base:
            raise ValueError(f"malformed affine TLUT record {d!r}")
        return cls(k, fr, cols, neg, base, quarters, q, hcols)


def _low_mask(b: int, k: int) -> int:
    """Entries of a 2^k-entry table whose index bit ``b`` is 0 (cached)."""
    key = (b, k)
    m = _LOW_K.get(key)
    if m is None:
        if b < 6:
            rep = _LOW[b]
            width = 64
        else:
            rep = (1 << (1 << b)) - 1
            width = 1 << (b + 1)
        m = 0
        for t in range(0, max(1 << k, width), width):
            m |= rep << t
        m &= (1 << (1 << k)) - 1
        _LOW_K[key] = m
    return m


_LOW_K: dict = {}


def xor_permute(t: int, s: int, k: int) -> int:
    """Table ``t`` (2^k entries, k <= 8) with its index XORed by ``s``: result[i] = t[i ^ s]."""
    for b in range(k):
        if s >> b & 1:
            sh = 1 << b
            lo = _low_mask(b, k)
            t = ((t & lo) << sh) | ((t >> sh) & lo)
    return t
