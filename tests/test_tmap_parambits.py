"""Parameter bits (``MapOptions.param_bits``, :mod:`dcsflow.tmap.parambits`): a TLUT whose entries
are constants or one parameter function becomes a static LUT on a parameter bit (a TLUT without
inputs), and the cut-point proof proves the result.

Expected values come from the source AIG (``Aig.simulate``, exhaustive over every input and
parameter value) and from the same mapping without parameter bits, never from the code under test;
tampered netlists show that the proof can fail.
"""

from __future__ import annotations

import copy
import random

import pytest

from dcsflow.aig import Aig
from dcsflow.tmap.cutpoint import cutpoint_proof
from dcsflow.tmap.errors import VerificationError
from dcsflow.tmap.mapper import map_tluts
from dcsflow.tmap.netlist import Lut, Mux, TlutNetlist, compose
from dcsflow.tmap.options import MapOptions
from dcsflow.tmap.parambits import split_param_bits
from dcsflow.tmap.proof import verify

from test_tmap_mapper import evaluate
from test_tmap_wide import exhaustive

OPTS = dict(K=6, tlut_k=5, verify=True, proof_method="cutpoint")


def _table(g: Aig, sel: list[int], rng: random.Random) -> int:
    """A random function of the literals ``sel`` (an S-box bit), as a multiplexer tree."""
    vals = [rng.randrange(2) for _ in range(1 << len(sel))]
    while len(set(vals)) < 2:
        vals = [rng.randrange(2) for _ in range(1 << len(sel))]
    return g.add_mux_tree(sel, vals)


def keyed_aig(seed: int = 1) -> tuple[Aig, list[str]]:
    """Data bits XORed / ANDed / ORed with key bits, two S-box bits of several key bits meeting
    several data bits, and one output reading both S-box bits (its TLUT must not split)."""
    rng = random.Random(seed)
    g = Aig()
    x = [g.add_input(f"x[{i}]") for i in range(6)]
    k = [g.add_input(f"k[{i}]") for i in range(6)]
    sb = _table(g, [k[2], k[3], k[4], k[5]], rng)
    sb2 = _table(g, [k[0], k[2], k[4], k[5]], rng)
    maj = g.add_or(g.add_and(x[0], x[1]), g.add_and(x[4], g.add_or(x[0], x[1])))
    outs = {
        "a0": g.add_xor(x[0], k[0]),
        "a1": g.add_and(x[1], k[1]),
        "a2": g.add_or(g.add_xor(x[2], x[3]), k[0]),          # k[0] again: shares a0's parameter bit
        "b0": g.add_xor(maj, sb),
        "b1": g.add_mux(sb, g.add_and(x[2], x[5]), g.add_or(x[3], x[4])),
        "b2": g.add_and(g.add_xor(x[1], x[5]), sb ^ 1),
        "c0": g.add_mux(x[5], g.add_and(sb, x[0]), g.add_xor(sb2, x[1])),
    }
    for name, lit in outs.items():
        g.add_output(lit, name)
    return g, [f"k[{i}]" for i in range(6)]


def wide_aig(seed: int = 2) -> tuple[Aig, list[str]]:
    """A 6-input data table XORed with an S-box bit of key bits: with tlut_k = 5 two 5-input cofactor
    TLUTs under a MUXF7, each reading the one S-box bit."""
    rng = random.Random(seed)
    g = Aig()
    x = [g.add_input(f"x[{i}]") for i in range(6)]
    k = [g.add_input(f"k[{i}]") for i in range(3)]
    sb = _table(g, k, rng)
    for o in range(2):
        g.add_output(g.add_xor(_table(g, x, rng), sb), f"w[{o}]")
    return g, [f"k[{i}]" for i in range(3)]


def check_against_aig(g: Aig, res) -> None:
    """netlist ∘ PPC equals the source AIG for every input and parameter value: through ``compose``
    and through the test's own evaluator (``test_tmap_mapper.evaluate``)."""
    vals, width = exhaustive(g)
    want = g.simulate([vals[n] for n in g.input_names], width=width)
    composed = compose(res.netlist, res.ppc, g.input_names)
    assert composed.simulate([vals[n] for n in g.input_names], width=width) == want
    assert evaluate(res.netlist, res.ppc, vals, width) == dict(zip(g.output_names, want))


def agrees_with_aig(g: Aig, res) -> bool:
    vals, width = exhaustive(g)
    want = dict(zip(g.output_names, g.simulate([vals[n] for n in g.input_names], width=width)))
    return evaluate(res.netlist, res.ppc, vals, width) == want


def ppc_values(ppc: Aig) -> list[int]:
    """Per PPC output, its value for every parameter value (bit p = value at parameter value p)."""
    n = ppc.num_inputs
    width = 1 << n
    return ppc.simulate([sum(1 << p for p in range(width) if p >> j & 1) for j in range(n)], width=width)


def one_variable(lits: list[int]) -> int | None:
    """The variable of the non-constant literals when there is exactly one (the split condition)."""
    vs = {lit >> 1 for lit in lits if lit > 1}
    return vs.pop() if len(vs) == 1 else None


def is_param_bit(res, lut) -> bool:
    return lut.is_tlut and not lut.inputs and lut.name not in res.claims


def proved(res, comb) -> bool:
    r = copy.deepcopy(res)
    try:
        verify(r, comb, 120, "cutpoint")
        return True
    except VerificationError:
        return False


def check_split(base, res, K: int = 6) -> int:
    """``res`` (param_bits) is ``base`` (same mapping without) with exactly the TLUTs that read one
    PPC variable split: each becomes a static LUT of the same name on its inputs and a parameter bit
    of that variable, whose INIT equals the TLUT's entries for every parameter value. Returns the
    number of TLUTs split."""
    assert res.ppc.outputs == base.ppc.outputs and res.ppc.ands == base.ppc.ands
    outs = base.ppc.outputs
    pv = ppc_values(base.ppc)
    width = 1 << base.ppc.num_inputs
    after = {lut.name: lut for lut in res.netlist.luts}
    bits = {lut.name: lut for lut in res.netlist.luts if is_param_bit(res, lut)}
    assert len(after) == len(res.netlist.luts) == len(base.netlist.luts) + len(bits)
    split_vars = set()
    n_split = 0
    for t in base.netlist.luts:
        r = after[t.name]
        k = len(t.inputs)
        var = one_variable([outs[j] for j in t.ppc]) if t.is_tlut else None
        if var is None or not 1 <= k <= K - 1:
            assert r == t, f"{t.name} must stay as it is"
            continue
        n_split += 1
        assert not r.is_tlut and r.inputs[:-1] == t.inputs and r.inputs[-1] in bits
        q = bits[r.inputs[-1]]
        assert outs[q.ppc[0]] >> 1 == var
        split_vars.add(var)
        for p in range(width):
            qv = pv[q.ppc[0]] >> p & 1
            for a in range(1 << k):
                assert (r.init >> (a | qv << k)) & 1 == pv[t.ppc[a]] >> p & 1, (t.name, p, a)
    assert len(bits) == len(split_vars) == res.stats.param_bits
    assert {outs[q.ppc[0]] >> 1 for q in bits.values()} == split_vars
    for lut in res.netlist.luts:
        if lut.is_tlut and lut.inputs:
            assert one_variable([outs[j] for j in lut.ppc]) is None or len(lut.inputs) + 1 > K, \
                f"TLUT {lut.name} reads one parameter function but was not split"
        assert not set(lut.inputs) & set(bits) or not lut.is_tlut
    return n_split


def test_keyed_gates_and_sbox_bits_become_parameter_bits():
    g, params = keyed_aig()
    base = map_tluts(g, params, MapOptions(**OPTS))
    res = map_tluts(g, params, MapOptions(param_bits=True, **OPTS))
    n_split = check_split(base, res)
    assert n_split >= 5 and res.stats.param_bits >= 3
    assert any(f"{n_split} TLUTs read one parameter function" in n for n in res.notes)
    # a0 and a2 read k[0], b0..b2 the S-box bit: they share parameter bits
    assert res.stats.param_bits < n_split
    # c0 reads two S-box bits: a TLUT with inputs remains
    assert any(lut.is_tlut and lut.inputs for lut in res.netlist.luts)
    assert res.stats.verified is True and res.stats.proof.startswith("cut-point proof:")
    assert f"{res.stats.param_bits} parameter bits" in res.stats.proof
    assert res.stats.tluts == sum(1 for lut in res.netlist.luts if lut.is_tlut)
    assert res.stats.depth == base.stats.depth, "a parameter bit is no LUT level"
    assert not set(res.affine) - {lut.name for lut in res.netlist.luts if lut.is_tlut}
    check_against_aig(g, res)
    glob = copy.deepcopy(res)
    verify(glob, g.combinational(), 120, "global")          # ABC cec of the composed netlist
    assert glob.stats.verified is True
    back = TlutNetlist.from_json_obj(res.netlist.to_json_obj())
    assert back.luts == res.netlist.luts
    assert "pbit" in res.netlist.to_blif()


def test_wide_cofactors_become_parameter_bits():
    """Cofactor TLUTs of a wide function split too: static LUT6 under the MUXF7, proved as one cell."""
    g, params = wide_aig()
    base = map_tluts(g, params, MapOptions(**OPTS))
    res = map_tluts(g, params, MapOptions(param_bits=True, **OPTS))
    assert base.stats.muxf7 == res.stats.muxf7 == 2
    assert check_split(base, res) == 4 and res.stats.param_bits == 1
    assert not any(lut.is_tlut and lut.inputs for lut in res.netlist.luts)
    assert res.stats.verified is True
    check_against_aig(g, res)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_other_seeds(seed):
    g, params = keyed_aig(seed)
    base = map_tluts(g, params, MapOptions(**OPTS))
    res = map_tluts(g, params, MapOptions(param_bits=True, **OPTS))
    assert check_split(base, res) >= 5
    check_against_aig(g, res)


def _split_result():
    g, params = keyed_aig()
    res = map_tluts(g, params, MapOptions(param_bits=True, **OPTS))
    comb = g.combinational()
    assert proved(res, comb)
    return g, comb, res


def test_flipped_init_bit_of_a_split_lut_fails_the_proof():
    g, comb, res = _split_result()
    bits = {lut.name for lut in res.netlist.luts if is_param_bit(res, lut)}
    split = [i for i, lut in enumerate(res.netlist.luts) if set(lut.inputs) & bits]
    rng = random.Random(3)
    n = 0
    for i in split:
        lut = res.netlist.luts[i]
        size = 1 << len(lut.inputs)
        for b in sorted({0, size - 1} | set(rng.sample(range(size), min(size, 6)))):
            bad = copy.deepcopy(res)
            bad.netlist.luts[i].init ^= 1 << b
            assert not agrees_with_aig(g, bad)          # the oracle: every INIT bit of R matters
            ok, verdict = cutpoint_proof(bad.netlist, bad.ppc, comb, bad.claims, 120)
            assert not ok, verdict
            n += 1
    assert n >= 20
    bad = copy.deepcopy(res)
    bad.netlist.luts[split[0]].init ^= 1
    with pytest.raises(VerificationError):
        verify(bad, comb, 120, "cutpoint")


def test_parameter_bit_on_another_ppc_output_fails_the_proof():
    g, comb, res = _split_result()
    n = 0
    for i, lut in enumerate(res.netlist.luts):
        if not is_param_bit(res, lut):
            continue
        for j in range(res.ppc.num_outputs):
            if j == lut.ppc[0]:
                continue
            bad = copy.deepcopy(res)
            bad.netlist.luts[i].ppc = [j]
            assert not agrees_with_aig(g, bad)
            assert not proved(bad, comb), (lut.name, j)
            n += 1
    assert n >= 3


def test_parameter_bit_after_its_reader_or_as_select_fails():
    g, comb, res = _split_result()
    bad = copy.deepcopy(res)
    q = bad.netlist.luts.pop(0)
    assert is_param_bit(res, q)
    bad.netlist.luts.append(q)
    ok, verdict = cutpoint_proof(bad.netlist, bad.ppc, comb, bad.claims, 120)
    assert not ok and q.name in verdict
    # a parameter bit as the select of a MUXF7 over two copies of a split LUT
    g2, params2 = wide_aig()
    res2 = map_tluts(g2, params2, MapOptions(param_bits=True, **OPTS))
    bad = copy.deepcopy(res2)
    q = next(lut for lut in bad.netlist.luts if is_param_bit(bad, lut))
    m = bad.netlist.muxes[0]
    bad.netlist.muxes[0] = Mux(m.name, m.kind, m.i0, m.i1, q.name)
    ok, verdict = cutpoint_proof(bad.netlist, bad.ppc, g2.combinational(), bad.claims, 120)
    assert not ok and "mux select" in verdict, verdict


def test_parameter_bit_driving_an_output():
    """A TLUT without inputs and without a claim that drives an output is proved against the AIG
    output (a function of the parameters); on another PPC output it is rejected, and so it is when
    the AIG output reads a regular input."""
    g = Aig()
    x = g.add_input("x")
    k = [g.add_input(f"k[{i}]") for i in range(3)]
    g.add_output(g.add_and(x, k[0]), "o0")
    g.add_output(g.add_xor(g.add_and(k[1], k[2]), k[0]), "o1")
    res = map_tluts(g, ["k[0]", "k[1]", "k[2]"], MapOptions(**OPTS))
    comb = g.combinational()
    drv = dict(res.netlist.outputs)["o1"]
    assert next(lut for lut in res.netlist.luts if lut.name == drv).inputs == []
    del res.claims[drv]                                  # now a parameter bit
    ok, verdict = cutpoint_proof(res.netlist, res.ppc, comb, res.claims, 120)
    assert ok, verdict
    lut = next(lut for lut in res.netlist.luts if lut.name == drv)
    for j in range(res.ppc.num_outputs):
        if j != lut.ppc[0]:
            bad = copy.deepcopy(res)
            next(q for q in bad.netlist.luts if q.name == drv).ppc = [j]
            assert not cutpoint_proof(bad.netlist, bad.ppc, comb, bad.claims, 120)[0]
    bad = copy.deepcopy(res)
    bad.netlist.outputs = [("o0", drv), ("o1", drv)]
    ok, verdict = cutpoint_proof(bad.netlist, bad.ppc, comb, bad.claims, 120)
    assert not ok and "reads regular input x" in verdict, verdict


def test_split_by_hand():
    """:func:`split_param_bits` on a small netlist: polarity, sharing, the K limit, two variables,
    name collisions and affine records."""
    ppc = Aig()
    p0, p1 = ppc.add_input("p0"), ppc.add_input("p1")
    ppc.add_output(p0)                     # 0
    ppc.add_output(p0 ^ 1)                 # 1
    ppc.add_output(p1)                     # 2
    ppc.add_output(ppc.add_and(p0, p1))    # 3
    ppc.add_output(0)                      # 4
    ins = [f"x{i}" for i in range(6)] + ["pbit1"]
    luts = [Lut("a", ["x0"], ppc=[1, 0]),                      # ~p0, p0: x0 XOR q... first seen ~p0
            Lut("b", ["x1", "x2"], ppc=[0, 4, 4, 1]),          # p0, 0, 0, ~p0: shares a's bit
            Lut("c", ["x0", "x1"], ppc=[0, 2, 4, 4]),          # two variables: stays
            Lut("d", ins[:5], ppc=[2] * 32),                   # k + 1 = 6 <= K: splits
            Lut("e", ins[:6], ppc=[2] * 64),                   # k + 1 = 7 > K: stays
            Lut("f", ["x3"], init=2)]
    nl = TlutNetlist(6, ins, ["p0", "p1"], luts, [("pbit2", "a"), ("o", "c")])
    affine = {"a": "rec a", "c": "rec c"}
    nl, affine, n_split, n_bits = split_param_bits(nl, ppc, affine, 6)
    assert (n_split, n_bits) == (3, 2)
    assert affine == {"c": "rec c"}
    q1, q2 = nl.luts[:2]
    assert (q1.name, q1.inputs, q1.ppc) == ("pbit1_1", [], [1])   # "pbit1" is an input
    assert (q2.name, q2.inputs, q2.ppc) == ("pbit2_1", [], [2])   # "pbit2" is an output
    by = {lut.name: lut for lut in nl.luts}
    # a over (x0, q = ~p0): entries ~p0 = q, p0 = ~q -> q=0: 0,1; q=1: 1,0
    assert by["a"].inputs == ["x0", "pbit1_1"] and by["a"].init == 0b0110
    # b over (x1, x2, q = ~p0): entries p0, 0, 0, ~p0 -> q=0: 1,0,0,0; q=1: 0,0,0,1
    assert by["b"].inputs == ["x1", "x2", "pbit1_1"] and by["b"].init == 0b1000_0001
    assert by["d"].inputs == ins[:5] + ["pbit2_1"] and by["d"].init == 0xFFFFFFFF << 32
    assert by["c"] == luts[2] and by["e"] == luts[4] and by["f"] == luts[5]
    assert [lut.name for lut in nl.luts] == ["pbit1_1", "pbit2_1", "a", "b", "c", "d", "e", "f"]


def test_off_leaves_the_mapping_unchanged():
    g, params = keyed_aig()
    a = map_tluts(g, params, MapOptions(**OPTS))
    b = map_tluts(g, params, MapOptions(param_bits=False, **OPTS))
    assert a.netlist.to_json_obj() == b.netlist.to_json_obj()
    assert a.ppc.to_bytes() == b.ppc.to_bytes() and a.claims == b.claims
    assert a.stats.param_bits == b.stats.param_bits == 0
    assert not any(is_param_bit(b, lut) for lut in b.netlist.luts)
    assert not any("parameter function" in n for n in b.notes)
    assert MapOptions().param_bits is False
