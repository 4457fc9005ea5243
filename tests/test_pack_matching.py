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
