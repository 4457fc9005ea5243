"""tmap.cutpoint: the cut-point proof accepts correct mappings and never accepts a wrong one.

The independent oracle is ABC's global ``cec`` of the composed netlist (``verify(method="global")``):
whatever the cut-point proof accepts must be globally equivalent, and tampering that breaks the
function must be rejected by both.
"""

import copy
import random

import pytest

from dcsflow.tmap import generators as G
from dcsflow.tmap.errors import VerificationError
from dcsflow.tmap.mapper import map_tluts
from dcsflow.tmap.netlist import Lut
from dcsflow.tmap.options import ABC_AIG_SCRIPTS, MapOptions
from dcsflow.tmap.proof import verify


def _proved(res, comb, method):
    r = copy.deepcopy(res)
    try:
        verify(r, comb, 120, method=method)
        return True
    except VerificationError:
        return False


@pytest.mark.parametrize("K", [3, 6])
def test_cutpoint_proof_is_used_and_passes(K):
    for g, params in (G.multiplier(4), G.fir(3, 3, 3), G.tcam(4, 6), G.xor_key(5), G.ripple_adder(8)):
        for scripts in ((), ABC_AIG_SCRIPTS):
            res = map_tluts(g, params, MapOptions(K=K, aig_scripts=scripts))
            assert res.stats.verified
            assert res.stats.proof.startswith("cut-point proof:"), res.stats.proof
            assert "global" not in res.stats.proof


def _tlut(res):
    return next(lut for lut in res.netlist.luts if lut.is_tlut and len(lut.inputs) >= 2)


def test_tampered_entry_rejected():
    g, params = G.multiplier(3)
    res = map_tluts(g, params, MapOptions(K=3))
    tl = _tlut(res)
    tl.ppc[1] = next(j for j in range(res.ppc.num_outputs) if j != tl.ppc[1])
    assert not _proved(res, g.combinational(), "cutpoint")
    assert not _proved(res, g.combinational(), "global")


def test_swapped_inputs_rejected():
    g, params = G.multiplier(3)
    comb = g.combinational()
    res = map_tluts(g, params, MapOptions(K=3))
    found = 0
    for idx, lut in enumerate(res.netlist.luts):
        if len(lut.inputs) < 2:
            continue
        bad = copy.deepcopy(res)
        ins = bad.netlist.luts[idx].inputs
        ins[0], ins[1] = ins[1], ins[0]
        if not _proved(bad, comb, "global"):     # the swap changed the function (independent oracle)
            assert not _proved(bad, comb, "cutpoint")
            found += 1
    assert found >= 2


def test_wrong_claim_and_foreign_input_rejected():
    g, params = G.ripple_adder(4)
    res = map_tluts(g, params, MapOptions(K=3))
    comb = g.combinational()
    a, b = res.netlist.luts[0].name, res.netlist.luts[-1].name
    bad = copy.deepcopy(res)
    bad.claims[a], bad.claims[b] = res.claims[b], res.claims[a]
    assert not _proved(bad, comb, "cutpoint")
    bad = copy.deepcopy(res)
    bad.netlist.luts[0] = Lut(a, ["no_such_net"] + res.netlist.luts[0].inputs[1:], init=res.netlist.luts[0].init)
    assert not _proved(bad, comb, "cutpoint")
    bad = copy.deepcopy(res)
    bad.netlist.outputs[0] = (bad.netlist.outputs[0][0], bad.netlist.outputs[1][1])
    assert not _proved(bad, comb, "cutpoint")


def test_cutpoint_is_sound_against_global_cec_under_random_tampering():
    rng = random.Random(7)
    checked = rejected = 0
    for trial in range(40):
        g = G.random_aig(rng, 7, 50, 4, n_latch=rng.randint(0, 2))
        params = rng.sample(g.input_names, rng.randint(0, 4))
        res = map_tluts(g, params, MapOptions(K=rng.choice([3, 4, 6]), verify=False))
        comb = g.combinational()
        assert _proved(res, comb, "cutpoint")
        if not res.netlist.luts:
            continue
        bad = copy.deepcopy(res)
        lut = rng.choice(bad.netlist.luts)
        k = len(lut.inputs)
        kind = rng.randrange(3)
        if lut.is_tlut and kind == 0 and bad.ppc.num_outputs > 1:
            i = rng.randrange(1 << k)
            lut.ppc[i] = rng.choice([j for j in range(bad.ppc.num_outputs) if j != lut.ppc[i]])
        elif not lut.is_tlut and kind <= 1:
            lut.init ^= 1 << rng.randrange(1 << k)
        elif k >= 2:
            i, j = rng.sample(range(k), 2)
            lut.inputs[i], lut.inputs[j] = lut.inputs[j], lut.inputs[i]
        else:
            continue
        cp, gl = _proved(bad, comb, "cutpoint"), _proved(bad, comb, "global")
        assert not cp or gl, f"trial {trial}: cut-point proof accepted a netlist the global cec rejects"
        checked += 1
        rejected += not cp
    assert checked >= 20 and rejected >= 10


def test_unknown_method():
    g, params = G.xor_key(2)
    res = map_tluts(g, params, MapOptions(verify=False))
    with pytest.raises(ValueError):
        verify(res, g.combinational(), method="magic")
