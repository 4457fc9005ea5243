"""tmap.shannon: the Shannon-expanded AIG variant and its use by the mapper.

Expected values from independent sources: exhaustive simulation of the original AIG (every regular
input and parameter value), and the counting argument of the expansion (a function of K+1 regular
inputs is two K-input cofactors and one two-input multiplexer: three LUTs, two levels).
"""

from __future__ import annotations

import pytest

from dcsflow.aig import Aig
from dcsflow.tmap.cones import parameter_only
from dcsflow.tmap.mapper import map_tluts
from dcsflow.tmap.options import MapOptions
from dcsflow.tmap.shannon import shannon_roots, shannon_variant, small_supports


def table_select(index_bits: int, entries: int, outputs: int = 1) -> tuple[Aig, list[str]]:
    """``outputs`` parameter tables of ``entries`` one-bit entries, each output the entry picked by a
    regular ``index_bits``-bit index, 0 beyond the table; written as a priority chain of full index
    comparisons (every internal node reads all index bits, as synthesis makes if chains)."""
    g = Aig()
    idx = [g.add_input(f"idx[{i}]") for i in range(index_bits)]
    tabs = [[g.add_input(f"t{o}[{r}]") for r in range(entries)] for o in range(outputs)]
    for o in range(outputs):
        f = 0
        for r in reversed(range(entries)):
            eq = 1
            for i, x in enumerate(idx):
                eq = g.add_and(eq, x if r >> i & 1 else x ^ 1)
            f = g.add_mux(eq, tabs[o][r], f)
        g.add_output(f, f"y{o}")
    return g, [n for n in g.input_names if n.startswith("t")]


def exhaustive_equal(a: Aig, b: Aig) -> bool:
    """Same outputs for every input value (bit-parallel over all 2^n patterns)."""
    n = a.num_inputs
    width = 1 << n
    ones = (1 << width) - 1
    # input j: blocks of 2^j zeros and 2^j ones, repeated (the block times a repunit)
    pats = [(((1 << (1 << j)) - 1) << (1 << j)) * (ones // ((1 << (2 << j)) - 1)) for j in range(n)]
    return a.simulate(pats, width=width) == b.simulate(pats, width=width)


def _flags(g: Aig, params: list[str]) -> bytearray:
    return parameter_only(g, {1 + g.input_names.index(p) for p in params})


def test_supports_and_roots():
    g, params = table_select(4, 8)
    param = _flags(g, params)
    sup = small_supports(g, param, 5)
    out = g.outputs[0] >> 1
    assert sup[out] == frozenset(range(1, 5)), "the output reads the four index inputs only"
    assert shannon_roots(g, param, 4) == {}, "no root when the support fits in a LUT"
    assert shannon_roots(g, param, 3) == {out: sup[out]}
    assert shannon_roots(g, param, 2) == {}, "K = 2: a multiplexer LUT would need three inputs"
    g6, params6 = table_select(6, 40)
    param6 = _flags(g6, params6)
    wide = shannon_roots(g6, param6, 3)
    assert g6.outputs[0] >> 1 not in wide, "support 6 > K + 2 = 5: not expanded"
    assert wide and all(len(s) in (4, 5) and s <= frozenset(range(1, 7)) for s in wide.values()), \
        "instead the 4- and 5-input parts of the comparisons that feed wider nodes"


@pytest.mark.parametrize("bits,entries,K", [(4, 12, 3), (4, 16, 3), (5, 12, 3), (5, 15, 3)])
def test_variant_is_equivalent(bits, entries, K):
    # support K+1 (4-bit index) or K+2 (5-bit); up to 20 inputs, checked exhaustively
    g, params = table_select(bits, entries)
    param = _flags(g, params)
    roots = shannon_roots(g, param, K)
    assert list(roots) == [g.outputs[0] >> 1]
    v = shannon_variant(g, param, K, roots)
    assert v.input_names == g.input_names and v.output_names == g.output_names
    assert exhaustive_equal(g, v)


def test_mapping_k_plus_one():
    # 4-bit index, 16 entries, K = 3: each output two 3-input TLUTs and a multiplexer LUT
    g, params = table_select(4, 16, outputs=3)
    res = map_tluts(g, params, MapOptions(K=3))
    assert res.stats.verified
    assert (res.stats.luts, res.stats.tluts, res.stats.depth) == (9, 6, 2)
    assert any("Shannon" in n for n in res.notes)
    off = map_tluts(g, params, MapOptions(K=3, shannon=False))
    assert off.stats.luts > 9 or off.stats.depth > 2, "the AIG as given does not hold the cofactors"


def test_mapping_k_plus_two():
    # 5-bit index at K = 3: four cofactor TLUTs and three multiplexers, three levels at most
    g, params = table_select(5, 24)
    res = map_tluts(g, params, MapOptions(K=3))
    assert res.stats.verified
    assert res.stats.luts <= 7 and res.stats.depth <= 3


def test_no_variant_without_parameters_or_when_off():
    g, _ = table_select(4, 8)
    res = map_tluts(g, [], MapOptions(K=3))
    assert not any("Shannon" in n for n in res.notes)
    assert MapOptions().resolved(1000).shannon is True
    assert MapOptions(aig_scripts=()).resolved(1000).shannon is False
    assert MapOptions().resolved(10 ** 7).shannon is False
    assert MapOptions(shannon=True, aig_scripts=()).resolved(1000).shannon is True
