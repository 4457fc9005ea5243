"""TMAP with a TLUT size below the LUT size (``MapOptions.tlut_k``, CFGLUT5): every TLUT has at most
``tlut_k`` regular inputs, a wider parameter-dependent cut becomes TLUT cofactors under MUXF7/MUXF8,
static LUTs keep six inputs, and the netlist is right for every input and parameter value (checked by
exhaustive simulation here, independently of TMAP's own ABC proof)."""

from __future__ import annotations

import random

import pytest

from dcsflow.tmap import generators as G
from dcsflow.tmap.errors import TmapError
from dcsflow.tmap.mapper import map_tluts
from dcsflow.tmap.netlist import TlutNetlist
from dcsflow.tmap.options import MapOptions

from test_tmap_wide import SLOW_PROOF, check_exhaustive, table_aig


def tluts(res):
    return [lut for lut in res.netlist.luts if lut.is_tlut]


def test_six_input_keyed_table_becomes_two_cfglut5_and_a_muxf7():
    """A 6-input table read at x ^ k: one LUT6 TLUT per output bit with frames, two 5-input TLUTs
    (the cofactors at the sixth input) under a MUXF7 with tlut_k = 5, at the same LUT depth."""
    g, params = table_aig(6, 3, keyed=True)
    frames = map_tluts(g, params, MapOptions(**SLOW_PROOF))
    cfg = map_tluts(g, params, MapOptions(tlut_k=5, **SLOW_PROOF))
    assert [len(t.inputs) for t in tluts(frames)] == [6, 6, 6]
    assert cfg.netlist.tlut_size == 5 and all(len(t.inputs) <= 5 for t in tluts(cfg))
    assert (cfg.stats.luts, cfg.stats.tluts, cfg.stats.muxf7, cfg.stats.depth) == (6, 6, 3, 1)
    assert cfg.stats.verified is True
    check_exhaustive(g, cfg)


def test_static_luts_keep_six_inputs():
    """Without parameters tlut_k changes nothing: a 6-input table stays one LUT6 per output."""
    g, params = table_aig(6, 2, keyed=False)
    res = map_tluts(g, params, MapOptions(tlut_k=5, **SLOW_PROOF))
    assert [len(lut.inputs) for lut in res.netlist.luts] == [6, 6] and not res.netlist.muxes
    check_exhaustive(g, res)


@pytest.mark.parametrize("pure", [False, True])
def test_random_circuits_tluts_fit(pure, monkeypatch):
    """Random AIGs with parameters, both cut selections (C core and Python reference): no TLUT wider
    than tlut_k, the netlist right for every input and parameter value, the JSON round trip keeps
    the TLUT size."""
    from dcsflow.tmap import cuts

    if pure:
        monkeypatch.setenv("TMAP_PURE_PYTHON", "1")
    elif cuts._cutsc is None:
        pytest.skip("compiled core not built")
    rng = random.Random(5)
    for _ in range(4):
        g = G.random_aig(rng, 9, 120, 5)
        params = rng.sample(g.input_names, 4)
        for tk in (4, 5):
            res = map_tluts(g, params, MapOptions(tlut_k=tk, cuts_per_node=8, aig_scripts=(), shannon=False))
            assert all(len(t.inputs) <= tk for t in tluts(res))
            assert all(len(lut.inputs) <= 6 for lut in res.netlist.luts)
            check_exhaustive(g, res)
            back = TlutNetlist.from_json_obj(res.netlist.to_json_obj())
            assert back.tlut_size == tk


def test_compiled_core_and_reference_agree(monkeypatch):
    """The C cut selection and the Python reference weigh TLUT cuts the same way: equal depth and
    (up to float tie-breaks) LUT counts with tlut_k = 5."""
    from dcsflow.tmap import cuts

    if cuts._cutsc is None:
        pytest.skip("compiled core not built")
    rng = random.Random(17)
    for _ in range(4):
        g = G.random_aig(rng, 10, 160, 6)
        params = rng.sample(g.input_names, 4)
        mode = dict(tlut_k=5, cuts_per_node=8, aig_scripts=(), shannon=False)
        a = map_tluts(g, params, MapOptions(**mode))
        monkeypatch.setenv("TMAP_PURE_PYTHON", "1")
        b = map_tluts(g, params, MapOptions(**mode))
        monkeypatch.delenv("TMAP_PURE_PYTHON")
        assert a.stats.depth == b.stats.depth
        assert abs(a.stats.luts - b.stats.luts) <= max(1, b.stats.luts // 20)


@pytest.mark.parametrize("seed", [1, 6, 31])
def test_fewer_cfglut5_at_equal_luts(seed, monkeypatch):
    """Every CFGLUT5 is a chain word of every rekey: of two covers with the same LUTs the mapper
    takes the one with fewer CFGLUT5s. Against the same selection costing LUTs alone (Python
    reference with a LUT-only cost table), on random circuits where the two differ; the C core
    agrees with the reference."""
    from dcsflow.tmap import cuts

    rng = random.Random(seed)
    g = G.random_aig(rng, 10, 100, 4)
    params = rng.sample(g.input_names, 3)
    mode = dict(tlut_k=5, area=True, cuts_per_node=8, aig_scripts=(), shannon=False)
    monkeypatch.setenv("TMAP_PURE_PYTHON", "1")
    ref = map_tluts(g, params, MapOptions(**mode))
    with monkeypatch.context() as m:
        m.setattr(cuts, "selection_costs", lambda K, lut_k, tlut_k: (
            [cuts.cut_luts(i, lut_k) for i in range(K + 1)] + [cuts.cut_luts(i, tlut_k) for i in range(K + 1)]))
        luts_only = map_tluts(g, params, MapOptions(**mode))
    assert ref.stats.luts == luts_only.stats.luts
    assert ref.stats.tluts < luts_only.stats.tluts
    check_exhaustive(g, ref)
    if cuts._cutsc is not None:
        monkeypatch.delenv("TMAP_PURE_PYTHON")
        c = map_tluts(g, params, MapOptions(**mode))
        assert (c.stats.luts, c.stats.tluts) == (ref.stats.luts, ref.stats.tluts)


@pytest.mark.parametrize("tk", [1, 7])
def test_tlut_size_out_of_range(tk):
    g, params = table_aig(4, 1, keyed=True)
    with pytest.raises(TmapError, match="TLUT inputs must be between 2 and K"):
        map_tluts(g, params, MapOptions(tlut_k=tk, **SLOW_PROOF))
