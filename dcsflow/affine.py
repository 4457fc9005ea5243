"""Affine TLUT records: the ``ppc.json`` key ``affine`` (docs/formats.md), shared by the mapper that
finds and writes them (:mod:`dcsflow.tmap.affine`) and the runtime that patches affine TLUTs from
their frontier (:mod:`dcsflow.scg.affine`).

A TLUT with ``k`` regular inputs is *affine* when, for every value ``f`` of its frontier (a few
parameter-only PPC nodes), ``INIT(f)[i] = B[i ^ s(f)] ^ n(f)`` with ``B = INIT(0)``,
``s(f) = XOR_j f_j * col_j`` and ``n(f) = XOR_j f_j * neg_j``. Standard library only.
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
    """

    k: int
    frontier: tuple
    cols: tuple
    neg: int
    base: int

    def table(self, fvals) -> int:
        """The truth table for frontier values ``fvals`` (sequence of 0/1, one per frontier bit)."""
        s = n = 0
        for j, fj in enumerate(fvals):
            if fj:
                s ^= self.cols[j]
                n ^= (self.neg >> j) & 1
        t = xor_permute(self.base, s, self.k)
        return t ^ (((1 << (1 << self.k)) - 1) if n else 0)

    def as_json(self) -> dict:
        """JSON form (docs/formats.md, ``ppc.json`` key ``affine``)."""
        return {"k": self.k, "frontier": list(self.frontier), "cols": list(self.cols),
                "neg": self.neg, "base": f"{self.base:x}"}

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
        return cls(k, fr, cols, neg, base)


def xor_permute(t: int, s: int, k: int) -> int:
    """Table ``t`` (2^k entries) with its index XORed by ``s``: result[i] = t[i ^ s]."""
    for b in range(k):
        if s >> b & 1:
            sh = 1 << b
            lo = _LOW[b] & ((1 << (1 << k)) - 1)
            t = ((t & lo) << sh) | ((t >> sh) & lo)
    return t
