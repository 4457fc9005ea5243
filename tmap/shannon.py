"""Shannon-expanded AIG variant: small-support cones rebuilt as multiplexers of cofactors.

A TLUT implements *any* function of its regular inputs, whatever the parameters do, so the size of
a cone that depends on few regular inputs does not matter, only how many there are. A node whose
cone reads ``n`` regular inputs with ``K < n <= K + extra`` (e.g. an entry of a parameter table
selected by a 5-bit index, at K = 4) needs ``2^(n-K)`` TLUTs on the cofactors and ``2^(n-K) - 1``
two-input multiplexers when it is expanded on ``n - K`` of its inputs::

    f = s ? f|s=1 : f|s=0        (f|s=b: the cone with input s fixed to b; K regular inputs each)

— at ``n = K + 1`` three LUTs in two levels. A priority-cut mapper finds this only when the AIG
holds the cofactors as nodes, and AIGs made from case statements, if chains or ``$pmux`` cells
rarely do (every internal node of an index comparison chain reads all index bits). This module
builds that AIG: the same inputs and outputs, with the chosen nodes (*roots*) replaced by the
expansion; the mapper maps it as one more candidate and keeps it only when its cover is better, and
the proof covers it like the ABC-optimized variants (``cec`` of variant and original, then the cut
points against the variant).

Roots: AND nodes with ``K < n <= K + extra`` regular inputs in their cone (inputs of the
combinational view: primary inputs and latch outputs) that drive an output or a node reading more
than ``K + extra`` regular inputs. Given the cover of the original AIG, only roots for which the
expansion needs no more LUTs than the cover spends on them alone (their maximum fanout-free cone in
the cover) at no greater LUT depth are expanded; the whole cover decides (a LUT shared by roots is
saved when all of them are expanded).

Reference: C. E. Shannon, "The synthesis of two-terminal switching circuits", Bell System
Technical Journal 28(1), 1949 (the expansion); the cofactor-multiplexer decomposition of functions
with more inputs than a LUT is the classical one of FPGA mapping (e.g. Xilinx F7/F8 multiplexers).
"""

from __future__ import annotations

from dcsflow.aig import Aig

from .cones import compact

__all__ = ["DEFAULT_EXTRA", "small_supports", "shannon_roots", "shannon_variant"]

#: Roots read at most K + DEFAULT_EXTRA regular inputs (expansion on up to this many inputs).
DEFAULT_EXTRA = 2


def small_supports(aig: Aig, param: bytearray, cap: int) -> list:
    """Per variable of the combinational ``aig``: the frozenset of regular input variables in its
    cone when there are at most ``cap``, else None. Parameter-only variables (``param`` flags) have
    the empty set."""
    n = aig.max_var + 1
    base = aig.first_and
    sup: list = [None] * n
    empty = frozenset()
    sup[0] = empty
    for v in range(1, base):
        sup[v] = empty if param[v] else frozenset((v,))
    for i, (a, b) in enumerate(aig.ands):
        v = base + i
        if param[v]:
            sup[v] = empty
            continue
        sa, sb = sup[a >> 1], sup[b >> 1]
        if sa is None or sb is None:
            continue
        s = sa | sb
        if len(s) <= cap:
            sup[v] = s
    return sup


def shannon_roots(aig: Aig, param: bytearray, K: int, extra: int = DEFAULT_EXTRA, cover=None) -> dict:
    """The roots to expand: variable -> its support (frozenset of regular input variables).

    Without ``cover`` every root (see the module docstring); with the cover of ``aig`` (a
    :class:`dcsflow.tmap.cuts.Cover`) only those that are LUTs of the cover and whose expansion
    (``2^(n-K)`` TLUTs and ``2^(n-K) - 1`` multiplexers, ``n - K + 1`` levels) needs no more LUTs
    than their maximum fanout-free cone in the cover (LUTs shared by several roots are saved only
    when all of them are expanded), at no greater arrival time. Empty for K < 3 (a multiplexer
    needs three inputs)."""
    if K < 3:
        return {}
    sup = small_supports(aig, param, K + extra)
    base = aig.first_and
    n = aig.max_var + 1
    feeds_wide = bytearray(n)
    for i, (a, b) in enumerate(aig.ands):
        v = base + i
        if sup[v] is None:
            feeds_wide[a >> 1] = 1
            feeds_wide[b >> 1] = 1
    for o in aig.outputs:
        feeds_wide[o >> 1] = 1
    roots = {}
    for v in range(base, n):
        s = sup[v]
        if s is not None and len(s) > K and feeds_wide[v] and not param[v]:
            roots[v] = s
    if cover is None or not roots:
        return roots
    refs = list(cover.refs)
    best = cover.best
    chosen = {}
    for v, s in roots.items():
        if not refs[v] or best[v] is None:
            continue
        e = len(s) - K
        cost = (1 << e) + (1 << e) - 1
        if e + 1 > cover.arrival[v]:
            continue
        if cost <= _mffc_size(v, best, refs, base):
            chosen[v] = s
    return chosen


def _mffc_size(v: int, best, refs: list, base: int) -> int:
    """LUTs of the cover used only through the LUT of ``v`` (its maximum fanout-free cone), by
    dereferencing and re-referencing (``refs`` is restored)."""
    size = 0
    stack = [v]
    touched = []
    while stack:
        x = stack.pop()
        size += 1
        for l in best[x]:
            if l >= base and best[l] is not None:
                refs[l] -= 1
                touched.append(l)
                if refs[l] == 0:
                    stack.append(l)
    for l in touched:
        refs[l] += 1
    return size


def shannon_variant(aig: Aig, param: bytearray, K: int, roots: dict, extra: int = DEFAULT_EXTRA) -> Aig | None:
    """The combinational ``aig`` with the ``roots`` (from :func:`shannon_roots` with the same
    ``param``, ``K`` and ``extra``) replaced by their expansion; same inputs and outputs (order and
    names), only the nodes reachable from the outputs. None when ``roots`` is empty.

    Each root with ``n`` regular inputs is expanded on ``n - K`` of them, chosen one after the other
    as the input on which the fewest nodes of the cone depend (fewer copied nodes); the cofactor
    cones are copied with those inputs fixed (constants fold, equal nodes are shared by structural
    hashing, also between roots)."""
    if not roots:
        return None
    base = aig.first_and
    ands = aig.ands
    sup = small_supports(aig, param, K + extra)
    g = Aig()
    for name in aig.input_names:
        g.add_input(name)
    lit = [0] * (aig.max_var + 1)
    for v in range(1, base):
        lit[v] = 2 * v
    for i, (a, b) in enumerate(ands):
        v = base + i
        if v in roots:
            lit[v] = _expand(g, v, roots[v], K, ands, base, sup, lit)
        else:
            lit[v] = g.add_and(lit[a >> 1] ^ (a & 1), lit[b >> 1] ^ (b & 1))
    for o, name in zip(aig.outputs, aig.output_names):
        g.add_output(lit[o >> 1] ^ (o & 1), name)
    return compact(g)


def _expand(g: Aig, x: int, support: frozenset, K: int, ands, base: int, sup: list, lit: list) -> int:
    """Literal of root ``x`` as a multiplexer tree over cofactors on ``len(support) - K`` inputs."""
    cone = _cone(x, ands, base, sup, support)
    split = []
    left = set(support)
    for _ in range(len(support) - K):
        s = min(sorted(left), key=lambda i: sum(1 for y in cone if i in sup[y]))
        split.append(s)
        left.discard(s)

    def cofactor(fixed: dict) -> int:
        val = dict(fixed)
        for y in cone:
            if sup[y].isdisjoint(fixed):
                continue
            a, b = ands[y - base]
            la = val[a >> 1] if (a >> 1) in val else lit[a >> 1]
            lb = val[b >> 1] if (b >> 1) in val else lit[b >> 1]
            val[y] = g.add_and(la ^ (a & 1), lb ^ (b & 1))
        return val[x] if x in val else lit[x]

    def tree(i: int, fixed: dict) -> int:
        if i == len(split):
            return cofactor(fixed)
        s = split[i]
        return g.add_mux(2 * s, tree(i + 1, {**fixed, s: 1}), tree(i + 1, {**fixed, s: 0}))

    return tree(0, {})


def _cone(x: int, ands, base: int, sup: list, support: frozenset) -> list:
    """AND variables of ``x``'s cone that read a regular input (topological order, ``x`` last)."""
    seen = set()
    todo = [x]
    while todo:
        y = todo.pop()
        if y in seen or y < base or not sup[y]:
            continue
        seen.add(y)
        a, b = ands[y - base]
        todo += [a >> 1, b >> 1]
    return sorted(seen)
