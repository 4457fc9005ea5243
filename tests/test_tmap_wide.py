"""Wide functions on MUXF7/MUXF8: cuts of 7/8 regular leaves as 2/4 LUT6 + MUXF7/MUXF8.

Expected values from independent sources: the counting argument of UG474 (a function of 8 inputs
is 4 LUT6 on the cofactors of two inputs, two MUXF7 and one MUXF8, one LUT level; of 7 inputs two
LUT6 and one MUXF7), exhaustive bit-parallel simulation of the original AIG against an evaluator
written here (``test_tmap_mapper.evaluate``, not the mapper's ``compose``), and ABC ``cec``.
"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from dcsflow.aig import Aig
from dcsflow.tmap import generators as G
from dcsflow.tmap.cutpoint import cutpoint_proof
from dcsflow.tmap.errors import TmapError, VerificationError
from dcsflow.tmap.mapper import map_tluts
from dcsflow.tmap.netlist import Mux, TlutNetlist
from dcsflow.tmap.options import MapOptions
from dcsflow.tmap.proof import verify

from test_tmap_mapper import check_structure, evaluate


def table_aig(n_sel: int, n_out: int, keyed: bool, seed: int = 1) -> tuple[Aig, list[str]]:
    """``n_out`` random ``n_sel``-input tables (an S-box when 8) read at ``x`` (``x ^ k`` when
    ``keyed``: k a parameter), each a multiplexer tree, as synthesis leaves a case statement."""
    rng = random.Random(seed)
    g = Aig()
    x = [g.add_input(f"x[{i}]") for i in range(n_sel)]
    k = [g.add_input(f"k[{i}]") for i in range(n_sel)] if keyed else []
    y = [g.add_xor(a, b) for a, b in zip(x, k)] if keyed else x
    for o in range(n_out):
        vals = [rng.randrange(2) for _ in range(1 << n_sel)]
        for j in range(n_sel):
            vals = [g.add_mux(y[j], vals[2 * i + 1], vals[2 * i]) for i in range(len(vals) // 2)]
        g.add_output(vals[0], f"s[{o}]")
    return g, [f"k[{i}]" for i in range(n_sel)] if keyed else []


def exhaustive(g: Aig) -> tuple[dict, int]:
    """Every input value at once: input name -> pattern int, and the width."""
    n = g.num_inputs
    width = 1 << n
    vals = {nm: sum(1 << p for p in range(width) if p >> j & 1) for j, nm in enumerate(g.input_names)}
    return vals, width


def check_exhaustive(g: Aig, res) -> None:
    vals, width = exhaustive(g)
    want = dict(zip(g.output_names, g.simulate([vals[n] for n in g.input_names], width=width)))
    assert evaluate(res.netlist, res.ppc, vals, width) == want


SLOW_PROOF = dict(cuts_per_node=8, aig_scripts=(), shannon=False)


def check_records_against_ppc(res) -> None:
    """Every affine record's table (:meth:`AffineTlut.table`) equals the TLUT's entries evaluated
    from the PPC, for every parameter value (the PPC is proved against the AIG separately)."""
    n = res.ppc.num_inputs
    width = 1 << n
    pats = [sum(1 << p for p in range(width) if p >> j & 1) for j in range(n)]
    outs = res.ppc.simulate(pats, width=width)
    for lut in res.netlist.luts:
        a = res.affine.get(lut.name)
        if a is None:
            continue
        for p in range(width):
            f = [(outs[j] >> p) & 1 for j in a.frontier]
            want = sum(((outs[e] >> p) & 1) << i for i, e in enumerate(lut.ppc))
            assert a.table(f) == want, (lut.name, p)


@pytest.mark.parametrize("keyed", [True, False])
def test_sbox_is_four_lut6_and_f7_f8_per_bit(keyed):
    g, params = table_aig(8, 3, keyed)
    base = map_tluts(g, params, MapOptions(wide=False, **SLOW_PROOF))
    res = map_tluts(g, params, MapOptions(**SLOW_PROOF))          # wide: on at K=6 by default
    assert base.stats.muxf7 == base.stats.muxf8 == 0 and not base.netlist.muxes
    # UG474 counting: 4 LUT6 + 2 MUXF7 + 1 MUXF8 per 8-input table, one LUT level; keyed, the selects
    # are x[6] and x[7] themselves and k[6], k[7] only choose which quarter of its table each
    # cofactor TLUT holds, its index XORed by k[0..5] (affine records with quarters)
    assert (res.stats.muxf7, res.stats.muxf8, res.stats.depth) == (6, 3, 1)
    assert (res.stats.luts, res.stats.tluts) == ((12, 12) if keyed else (12, 0))
    assert {m.s for m in res.netlist.muxes} == {"x[6]", "x[7]"}
    if keyed:
        assert sorted(res.affine) == sorted(l.name for l in res.netlist.luts), "every TLUT affine"
        check_records_against_ppc(res)
    assert base.stats.depth == 2 and base.stats.luts > res.stats.luts
    assert res.stats.verified is True and "cut-point proof" in res.stats.proof
    assert any("wide functions" in n for n in res.notes)
    check_structure(res, 6)
    check_exhaustive(g, res)
    for m in res.netlist.muxes:
        assert m.s not in params, "select inputs are never parameters"


def test_seven_input_function_is_two_luts_and_a_muxf7():
    g, params = table_aig(7, 2, True, seed=3)
    res = map_tluts(g, params, MapOptions(**SLOW_PROOF))
    # two LUT6 per table (cofactors at the select x[6]; k[6] chooses which half each holds);
    # without wide functions a 7-input function is 3 LUTs (two cofactors and a multiplexer LUT)
    assert (res.stats.luts, res.stats.muxf7, res.stats.muxf8, res.stats.depth) == (4, 2, 0, 1)
    assert len(res.affine) == 4 and all(len(a.quarters) == 2 for a in res.affine.values())
    check_records_against_ppc(res)
    check_exhaustive(g, res)
    # the global proof (composed netlist, every mux a multiplexer) agrees with the cut-point proof
    verify(res, g.combinational(), 120, "global")
    assert res.stats.verified is True


def _swap_first_mux(res):
    bad = dataclasses.replace(res, netlist=dataclasses.replace(res.netlist, muxes=list(res.netlist.muxes)))
    m = bad.netlist.muxes[0]
    bad.netlist.muxes[0] = Mux(m.name, m.kind, m.i1, m.i0, m.s)
    return bad


@pytest.mark.parametrize("n_sel", [7, 8])
def test_swapped_mux_data_inputs_fail_the_proof(n_sel):
    g, params = table_aig(n_sel, 2, True, seed=5)
    res = map_tluts(g, params, MapOptions(**SLOW_PROOF))
    assert res.netlist.muxes
    ok, verdict = cutpoint_proof(res.netlist, res.ppc, g.combinational(), res.claims)
    assert ok, verdict
    bad = _swap_first_mux(res)
    vals, width = exhaustive(g)
    want = dict(zip(g.output_names, g.simulate([vals[n] for n in g.input_names], width=width)))
    assert evaluate(bad.netlist, bad.ppc, vals, width) != want, "the swap changes the function"
    ok, verdict = cutpoint_proof(bad.netlist, bad.ppc, g.combinational(), bad.claims)
    assert not ok and "failed" in verdict
    with pytest.raises(VerificationError):
        verify(bad, g.combinational(), 120, "cutpoint")
    if n_sel == 7:
        with pytest.raises(VerificationError):
            verify(bad, g.combinational(), 120, "global")


def test_mux_reading_a_claimed_lut_fails_the_proof():
    """A mux whose data input is a LUT with a claim of its own (not a cofactor) is no wide cell."""
    g, params = table_aig(7, 1, False, seed=2)
    res = map_tluts(g, params, MapOptions(**SLOW_PROOF))
    m = res.netlist.muxes[0]
    claims = dict(res.claims)
    claims[m.i0] = claims[m.name]
    ok, verdict = cutpoint_proof(res.netlist, res.ppc, g.combinational(), claims)
    assert not ok and "failed" in verdict


def test_one_keyed_table_is_four_tluts():
    """One keyed 8-input table: 4 cofactor TLUTs + MUXF7/MUXF8 (one LUT level), against 5 TLUTs at
    depth 2 without wide functions (4 quarter TLUTs + a multiplexer TLUT): the key bits on the
    selects cost no LUT."""
    g, params = table_aig(8, 1, True, seed=9)
    res = map_tluts(g, params, MapOptions(**SLOW_PROOF))
    base = map_tluts(g, params, MapOptions(wide=False, **SLOW_PROOF))
    assert (res.stats.luts, res.stats.depth, len(res.netlist.muxes)) == (4, 1, 3)
    assert (base.stats.luts, base.stats.depth) == (5, 2)
    check_exhaustive(g, res)
    check_records_against_ppc(res)


def test_netlist_v2_round_trip_blif_and_v1():
    g, params = table_aig(8, 1, False)
    res = map_tluts(g, params, MapOptions(**SLOW_PROOF))
    d = json.loads(json.dumps(res.netlist.to_json_obj()))
    assert d["version"] == 3 and [m["type"] for m in d["muxes"]] == ["MUXF7", "MUXF7", "MUXF8"]
    back = TlutNetlist.from_json_obj(d)
    assert back.muxes == res.netlist.muxes and back.depth() == 1
    blif = res.netlist.to_blif()
    assert blif.count(".subckt MUXF7 ") == 2 and blif.count(".subckt MUXF8 ") == 1
    v1 = dict(d, version=1)
    del v1["muxes"]
    assert TlutNetlist.from_json_obj(v1).muxes == []
    v2 = dict(d, version=2)
    del v2["tlut_k"]
    assert TlutNetlist.from_json_obj(v2).tlut_size == d["K"]
    with pytest.raises(TmapError):
        TlutNetlist.from_json_obj(dict(d, version=4))
    with pytest.raises(TmapError, match="MUXF9"):
        TlutNetlist.from_json_obj(dict(d, muxes=[dict(d["muxes"][0], type="MUXF9")]))


def test_wide_off_at_other_k_and_by_option():
    g, params = table_aig(8, 1, True)
    for opt in (MapOptions(K=5, **SLOW_PROOF), MapOptions(wide=False, **SLOW_PROOF),
                MapOptions(K=4, wide=True, **SLOW_PROOF)):
        res = map_tluts(g, params, opt)
        assert not res.netlist.muxes and all(len(l.inputs) <= opt.K for l in res.netlist.luts)


@pytest.mark.parametrize("seed", range(4))
def test_wide_never_more_luts_or_depth(seed):
    rng = random.Random(seed)
    g = G.random_aig(rng, 12, 250, 6)
    params = rng.sample(g.input_names, 3)
    a = map_tluts(g, params, MapOptions(wide=False, **SLOW_PROOF))
    b = map_tluts(g, params, MapOptions(**SLOW_PROOF))
    assert b.stats.luts <= a.stats.luts and b.stats.depth <= a.stats.depth
    assert b.stats.verified
    check_structure(b, 6)


def test_compiled_core_matches_python_reference_with_wide_cuts(monkeypatch):
    from dcsflow.tmap import cuts
    from dcsflow.tmap.candidates import cover_of

    if cuts._cutsc is None:
        pytest.skip("compiled core not built")
    g, params = table_aig(8, 2, True, seed=7)
    comb = g.combinational()
    pvars = {1 + comb.input_names.index(p) for p in params}
    opt = MapOptions(cuts_per_node=8).resolved(comb.num_ands)
    a, _ = cover_of(comb, pvars, opt, wide=True)
    monkeypatch.setenv("TMAP_PURE_PYTHON", "1")
    b, _ = cover_of(comb, pvars, opt, wide=True)
    sa, sb = cuts._cover_size(a, comb.first_and), cuts._cover_size(b, comb.first_and)
    assert a.depth == b.depth == 1 and sa == sb == 8
    assert cuts.cut_luts(6) == 1 and cuts.cut_luts(7) == 2 and cuts.cut_luts(8) == 4


def test_wide_default_on_at_k6_whatever_the_size():
    """Wide functions are on by default at K = 6 for every AIG size, with or without parameters (the
    cut-point proof decides wide TLUT entries by simulation over their frontier), off at other K."""
    from dcsflow.tmap.options import FULL_MODE_ANDS

    for n in (10, FULL_MODE_ANDS + 1, 10 * FULL_MODE_ANDS):
        assert MapOptions().resolved(n).wide is True
        assert MapOptions(wide=False).resolved(n).wide is False
    assert MapOptions(K=5, wide=True).resolved(10).wide is False


def test_keyed_table_entries_decided_by_frontier_simulation():
    """Entries of cofactor TLUTs over a keyed table are functions of the key bits their cone reads
    (the frontier): they are decided by exhaustive simulation over the frontier, without ABC, and a
    wrong entry among them is still rejected (it goes to ``cec``, which finds the difference)."""
    g, params = table_aig(8, 3, True, seed=4)
    res = map_tluts(g, params, MapOptions(**SLOW_PROOF))
    assert res.netlist.muxes
    ok, verdict = cutpoint_proof(res.netlist, res.ppc, g.combinational(), res.claims)
    assert ok, verdict
    n_local = int(verdict.split(" by simulation over their frontier")[0].rsplit(", ", 1)[1])
    cofactor_entries = 64 * sum(1 for lut in res.netlist.luts if lut.is_tlut and len(lut.inputs) == 6)
    assert n_local >= cofactor_entries // 2, verdict
    assert "without SAT" in verdict
    vals, width = exhaustive(g)
    want = dict(zip(g.output_names, g.simulate([vals[n] for n in g.input_names], width=width)))
    tl = next(lut for lut in res.netlist.luts if lut.is_tlut and len(lut.inputs) == 6)
    for i in range(64):
        bad = dataclasses.replace(res, netlist=TlutNetlist.from_json_obj(res.netlist.to_json_obj()))
        bl = next(lut for lut in bad.netlist.luts if lut.name == tl.name)
        bl.ppc[i] = bl.ppc[(i + 1) % 64]
        if evaluate(bad.netlist, bad.ppc, vals, width) == want:
            continue                                  # the two entries are the same function
        ok, verdict = cutpoint_proof(bad.netlist, bad.ppc, g.combinational(), bad.claims)
        assert not ok and "failed" in verdict, (i, verdict)
        break
    else:
        pytest.fail("no entry of the TLUT differs from its neighbour")


def test_frontier_simulation_is_sound_under_correlated_frontiers():
    """``_decide_local`` treats the frontier nodes as free variables: it may leave pairs that are
    equal only because the frontier nodes are correlated, but every pair it decides is equal for
    every parameter value (checked by exhaustive simulation over the parameters)."""
    from dcsflow.tmap.cutpoint import _decide_local

    rng = random.Random(7)
    decided_total = left_correlated = 0
    for trial in range(40):
        m = Aig()
        ps = [m.add_input(f"p{j}") for j in range(5)]
        # frontier: nodes over the parameters, some of them correlated (e.g. f2 = f0 AND f1)
        fr = [m.add_xor(rng.choice(ps), rng.choice(ps) ^ rng.randrange(2)) for _ in range(3)]
        fr.append(m.add_and(fr[0], fr[1]))
        fr = [f for f in fr if f > 1]
        items = []
        for _ in range(12):
            def rand_fn(depth=3):
                if depth == 0:
                    return rng.choice(fr) ^ rng.randrange(2)
                return m.add_and(rand_fn(depth - 1), rand_fn(depth - 1)) ^ rng.randrange(2)
            a = rand_fn()
            b = rand_fn() if rng.random() < 0.5 else m.add_and(a ^ 1, a ^ 1) ^ 1   # b == a
            items.append((a, b, f"pair {len(items)}"))
        left = _decide_local(m, {f >> 1 for f in fr}, items)
        width = 1 << len(ps)
        pats = [sum(1 << t for t in range(width) if t >> j & 1) for j in range(len(ps))]
        for a, b, what in items:
            m2 = Aig(num_inputs=m.num_inputs, ands=m.ands, input_names=list(m.input_names))
            m2.add_output(a)
            m2.add_output(b)
            sa, sb = m2.simulate(pats, width=width)
            if (a, b, what) not in left:
                assert sa == sb, (trial, what)
                decided_total += 1
            elif sa == sb:
                left_correlated += 1
    assert decided_total > 50 and left_correlated > 0
