"""TMAP on designs of the kinds the published TLUT flow reports, against its figures.

The designs are our own VHDL in benchmarks/hdl/, made into AIGs by benchmarks/published_bench.py
(GHDL, Yosys with ripple-carry adders, the whole logic, registers cut) and mapped in TMAP's default
mode with the equivalence proof on. Independent references: the published TLUT flow's figures
(UGent-HES/tlut_flow; Bruneel et al., ACM TODAES 16(4), 2011: the 24-entry parameter-row select 18 LUTs / depth 2 at
K = 4 and 6 TLUTs / depth 1 at K = 6; the 16x16 constant multiplier 415 LUTs / depth 26 and the
32-tap FIR 2990 LUTs / depth 25 at K = 4), and Python models of the designs against which the AIGs
are simulated (so that a figure is about the design and not about a wrong AIG).
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from dcsflow.tmap.mapper import map_tluts
from dcsflow.tmap.options import MapOptions

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "published_bench.py"
ROW_SELECTS = ["row_select", "row_select_if", "row_select_case"]


@pytest.fixture(scope="module")
def bench():
    """benchmarks/published_bench.py as a module (the designs and the AIG builder)."""
    spec = importlib.util.spec_from_file_location("published_bench", BENCH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def aig_of(bench, tmp_path_factory):
    """(design name, K) -> (AIG, parameter names), built once per module."""
    cache = {}

    def get(name, K):
        if (name, K) not in cache:
            cache[name, K] = bench.design_aig(bench.BY_NAME[name], K, "ripple",
                                              tmp_path_factory.mktemp(f"{name}_{K}"))
        return cache[name, K]
    return get


def _bits(value: int, prefix: str, n: int) -> dict:
    return {f"{prefix}[{i}]": value >> i & 1 for i in range(n)}


def _pack(patterns: list[dict], names: list[str]) -> list[int]:
    """Bit-parallel input values: pattern p's bit of each name at bit p."""
    return [sum((pat.get(n, 0) & 1) << p for p, pat in enumerate(patterns)) for n in names]


# ------------------------------------------------------------------------------------ row select

@pytest.mark.parametrize("name", ROW_SELECTS)
def test_row_select_aig_is_the_design(aig_of, name):
    aig, params = aig_of(name, 4)
    assert len(params) == 144
    rng = random.Random(name)
    table = rng.getrandbits(144)
    pats = [{**_bits(table, "entries", 144), **_bits(i, "idx", 5)} for i in range(32)]
    comb = aig.combinational()
    got = comb.simulate(_pack(pats, comb.input_names), width=32)
    nxt = dict(zip(comb.output_names, got))
    for i in range(32):
        want = table >> ((23 - i) * 6) & 63 if i < 24 else 0
        assert sum((nxt[f"cost[{b}]$next"] >> i & 1) << b for b in range(6)) == want, f"index {i}"


@pytest.mark.parametrize("name", ROW_SELECTS)
def test_row_select_k4_published(aig_of, name):
    # published: 18 LUTs (12 TLUTs), depth 2 at K = 4
    aig, params = aig_of(name, 4)
    s = map_tluts(aig, params, MapOptions(K=4)).stats
    assert s.verified
    assert s.luts <= 18 and s.depth <= 2, (s.luts, s.tluts, s.depth)


@pytest.mark.parametrize("name", ROW_SELECTS)
def test_row_select_k6_published(aig_of, name):
    # published: 6 TLUTs (one 5-input TLUT per output bit), depth 1 at K = 6
    aig, params = aig_of(name, 6)
    s = map_tluts(aig, params, MapOptions(K=6)).stats
    assert s.verified
    assert s.luts <= 6 and s.tluts <= 6 and s.depth <= 1, (s.luts, s.tluts, s.depth)


# ------------------------------------------------------------------------------------ multiplier

@pytest.mark.parametrize("name", ["const_mult16", "const_mult16_star"])
def test_const_mult16_aig_is_the_design(aig_of, name):
    aig, params = aig_of(name, 4)
    assert params == [f"coef[{i}]" for i in range(16)]
    rng = random.Random(name)
    vals = [(rng.getrandbits(16), rng.getrandbits(16)) for _ in range(200)] + [(65535, 65535), (0, 65535)]
    pats = [{**_bits(x, "x", 16), **_bits(c, "coef", 16)} for x, c in vals]
    out = dict(zip(aig.output_names, aig.simulate(_pack(pats, aig.input_names), width=len(vals))))
    for p, (x, c) in enumerate(vals):
        assert sum((out[f"y[{b}]"] >> p & 1) << b for b in range(32)) == x * c


@pytest.mark.parametrize("name", ["const_mult16", "const_mult16_star"])
def test_const_mult16_k4_published(aig_of, name):
    # published: 415 LUTs, depth 26 at K = 4
    aig, params = aig_of(name, 4)
    s = map_tluts(aig, params, MapOptions(K=4)).stats
    assert s.verified
    assert s.luts <= 415 and s.depth <= 26, (s.luts, s.depth)


# ------------------------------------------------------------------------------------ FIR

def test_fir_tree32_aig_is_the_design(aig_of):
    """Clock the AIG 40 times on 16 independent random streams (own coefficients each) and compare
    the output with the transposed-form model acc_k' = acc_{k-1} + c_{k-1} * xr, xr' = x."""
    aig, params = aig_of("fir_tree32", 4)
    assert len(params) == 256
    taps, w, streams = 32, 8, 16
    rng = random.Random(5)
    coefs = [[rng.getrandbits(w) for _ in range(taps)] for _ in range(streams)]
    xr = [0] * streams
    acc = [[0] * (taps + 1) for _ in range(streams)]
    state = [0] * aig.num_latches              # every register starts at 0 (the design's init)
    assert all(i in (0, None) for i in aig.latch_init)
    for cycle in range(40):
        xs = [rng.getrandbits(w) for _ in range(streams)]
        pats = [{**_bits(xs[s], "x", w), **{f"coefs[{k * w + i}]": coefs[s][k] >> i & 1
                                            for k in range(taps) for i in range(w)}} for s in range(streams)]
        res = aig.simulate(_pack(pats, aig.input_names), width=streams, latch_values=state, with_latches=True)
        y = dict(zip(aig.output_names, res[:aig.num_outputs]))
        for s in range(streams):
            got = sum((y[f"y[{b}]"] >> s & 1) << b for b in range(2 * w + taps - 1))
            assert got == acc[s][taps], f"cycle {cycle}, stream {s}"
            acc[s] = [0] + [acc[s][k - 1] + coefs[s][k - 1] * xr[s] for k in range(1, taps + 1)]
            xr[s] = xs[s]
        state = res[aig.num_outputs:]


def test_fir_tree32_k4_published(aig_of):
    # published: 2990 LUTs, depth 25 at K = 4 (about 15 s: front end 10 s, mapping and proof 5 s)
    aig, params = aig_of("fir_tree32", 4)
    s = map_tluts(aig, params, MapOptions(K=4)).stats
    assert s.verified
    assert s.luts <= 2990 and s.depth <= 25, (s.luts, s.depth)
