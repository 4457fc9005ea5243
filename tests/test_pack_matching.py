"""LUT6_2 pairing's matching (flow/backend/pack_lut.py): the greedy matching used on large
components is a valid maximal matching and, on the graphs checked here, as large as networkx's
maximum-cardinality matching (the independent reference); small graphs keep the exact one."""

from __future__ import annotations

import networkx as nx
import pytest

from dcsflow.flow.backend import pack_lut


def _valid_maximal(g, m) -> None:
    ends = [v for e in m for v in e]
    assert len(ends) == len(set(ends))                       # no node twice
    assert all(g.has_edge(a, b) for a, b in m)
    covered = set(ends)
    assert not any(a not in covered and b not in covered for a, b in g.edges)   # maximal


@pytest.mark.parametrize("n,p,seed", [(400, 0.01, 1), (1200, 0.003, 2), (600, 0.05, 3)])
def test_greedy_matching_against_networkx(n, p, seed):
    g = nx.gnp_random_graph(n, p, seed=seed)
    m = pack_lut._greedy_matching(g)
    _valid_maximal(g, m)
    best = len(nx.max_weight_matching(g, maxcardinality=True))
    assert len(m) >= 0.98 * best, (len(m), best)


def test_greedy_matching_path_and_star():
    path = nx.path_graph(9)                                    # maximum 4; a careless greedy gets 3
    assert len(pack_lut._greedy_matching(path)) == 4
    star = nx.star_graph(6)
    m = pack_lut._greedy_matching(star)
    _valid_maximal(star, m)
    assert len(m) == 1


def test_matching_exact_below_the_limit_greedy_above(monkeypatch):
    g = nx.disjoint_union(nx.path_graph(7), nx.cycle_graph(30))
    exact = nx.max_weight_matching(g, maxcardinality=True)
    assert pack_lut._matching(g) == exact                      # every component small: networkx's own
    monkeypatch.setattr(pack_lut, "EXACT_MATCHING_NODES", 10)
    calls = []
    real = pack_lut._greedy_matching
    monkeypatch.setattr(pack_lut, "_greedy_matching", lambda sub: calls.append(len(sub)) or real(sub))
    m = pack_lut._matching(g)
    assert calls == [30]                                       # only the large component
    _valid_maximal(g, m)
    assert len(m) == len(exact)


def test_dense_component_matched_greedily(monkeypatch):
    # the blossom algorithm's time grows with the edges: a component over the edge limit is matched
    # greedily even when it has few nodes
    g = nx.disjoint_union(nx.complete_graph(12), nx.path_graph(5))
    monkeypatch.setattr(pack_lut, "EXACT_MATCHING_EDGES", 20)
    calls = []
    real = pack_lut._greedy_matching
    monkeypatch.setattr(pack_lut, "_greedy_matching", lambda sub: calls.append(len(sub)) or real(sub))
    m = pack_lut._matching(g)
    assert calls == [12]
    _valid_maximal(g, m)
    assert len(m) == 6 + 2


class _Lut:
    def __init__(self, inputs):
        self.inputs = inputs
        self.pairable = True


class _Ctx:
    def __init__(self, luts):
        self.luts = luts


@pytest.mark.parametrize("window", [16, 1000])
def test_pair_graph_bounds_the_partners_through_one_net(monkeypatch, window):
    # 300 two-input LUTs share net 0 (a register's load select) and each reads one net of its own:
    # any two fit a LUT6_2, so without a bound the shared net gives all 300*299/2 pairs
    monkeypatch.setattr(pack_lut, "PAIR_NET_WINDOW", window)
    n = 300
    names = [f"l{i}" for i in range(n)]
    ctx = _Ctx({nm: _Lut([0, i + 1]) for i, nm in enumerate(names)})
    pos = {nm: i for i, nm in enumerate(names)}
    g = pack_lut._pair_graph(ctx, names, pos, pack_lut._pairable_by_net(ctx, names), {})
    w = min(window, n - 1)
    assert g.number_of_edges() == sum(min(w, n - 1 - i) for i in range(n))
    assert max(d for _, d in g.degree) <= 2 * w
    # every LUT still finds a partner
    m = pack_lut._matching(g)
    _valid_maximal(g, m)
    assert len(m) == n // 2
