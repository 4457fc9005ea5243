"""Affine TLUTs: TLUTs whose truth table is a fixed table with its index XORed by a mask linear in a
few parameter-only AIG nodes (their *frontier*), and optionally complemented.

A TLUT with regular inputs ``x`` (k bits) computes ``F(x, f)`` where ``f`` are the values of the
parameter-only nodes its cone reads (e.g. round-key bits; TMAP maps everything above them into the
PPC). It is **affine** when, for every frontier value ``f``::

    INIT(f)[i] = B[i ^ s(f)] ^ n(f)        for all entries i in 0 .. 2^k - 1

with ``B = INIT(0)``, ``s(f) = XOR_j f_j * col_j`` (k-bit) and ``n(f) = XOR_j f_j * neg_j`` (one bit):
the AddRoundKey-into-S-box case (``S(x ^ k)``) and key-XORed outputs. The SCG can then compute the
INIT from the frontier with ``k`` constant-time conditional butterfly stages on the 64-bit table
instead of evaluating one PPC output per entry (figures in designs/aes128/README.md).

Detection is exact: the cone is simulated over all ``2^(k+|F|)`` values of (inputs, frontier).
Pure Python, stdlib only.
"""

from __future__ import annotations

from dcsflow.aig import truth_vars

# the record and the index permutation live in the core, shared with the runtime (scg.affine)
from dcsflow.affine import MAX_FRONTIER, AffineTlut, xor_permute  # noqa: F401


def detect(tables: list[int], k: int, nf: int) -> tuple[tuple, int] | None:
    """Find (cols, neg) with ``tables[f] == B[i ^ s(f)] ^ n(f)`` for all f (B = tables[0]).

    Args:
        tables: the truth table (2^k entries) for each frontier value f in 0 .. 2^nf - 1.
    Returns:
        ``(cols, neg)`` or None when the TLUT is not affine. For a unit frontier value the first
        matching (col, neg) in index order is taken; the whole assignment is then checked for all f.
    """
    size = 1 << k
    full = (1 << size) - 1
    base = tables[0]
    cols, neg = [], 0
    for j in range(nf):
        want = tables[1 << j]
        found = None
        for s in range(size):
            p = xor_permute(base, s, k)
            if p == want:
                found = (s, 0)
                break
            if p ^ full == want:
                found = (s, 1)
                break
        if found is None:
            return None
        cols.append(found[0])
        neg |= found[1] << j
    for f in range(1, 1 << nf):
        s = n = 0
        for j in range(nf):
            if f >> j & 1:
                s ^= cols[j]
                n ^= (neg >> j) & 1
        if xor_permute(base, s, k) ^ (full if n else 0) != tables[f]:
            return None
    return tuple(cols), neg


def cone_tables(ands, base_var: int, cone: list, leaves: list, frontier: list, root: int) -> list[int]:
    """Truth tables of ``root`` over its leaves for every frontier value.

    Args:
        ands: the AIG's AND list (``ands[v - base_var] = (lit_a, lit_b)``); cone: the AND variables
            between the leaves/frontier and root, in topological order (root included);
        leaves: regular cut leaves (table index bits 0..k-1); frontier: parameter-only variables
            (index bits k..k+F-1 of the joint table).
    Returns:
        list over f of the 2^k-entry table of ``root`` (bit i = entry i).
    """
    k, nf = len(leaves), len(frontier)
    full = (1 << (1 << (k + nf))) - 1
    val = {0: 0}
    for v, pat in zip(leaves + frontier, truth_vars(k + nf)):
        val[v] = pat
    for x in cone:
        a, b = ands[x - base_var]
        va = val[a >> 1] ^ (full if a & 1 else 0)
        vb = val[b >> 1] ^ (full if b & 1 else 0)
        val[x] = va & vb
    t = val[root]
    mask = (1 << (1 << k)) - 1
    return [(t >> (f << k)) & mask for f in range(1 << nf)]
