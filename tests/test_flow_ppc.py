"""scg.ppc: bit-parallel PPC evaluation against direct Python evaluation of the same functions."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings, strategies as st

from dcsflow.scg.params import ParamValueError, parse_hex_value
from dcsflow.scg.ppc import Ppc, PpcError, tlut_inits
from dcsflow.aig import Aig, write_aiger


def _ppc(tmp_path):
    a = Aig()
    k = [a.add_input(f"k[{i}]") for i in range(3)]
    m = a.add_input("m")
    a.add_output(a.add_and(k[0], k[1]), "e0")
    a.add_output(a.add_xor(k[0], k[2]), "e1")
    a.add_output(a.add_or(m, k[1] ^ 1), "e2")
    a.add_output(0, "e3")
    p = tmp_path / "ppc.aig"
    write_aiger(a, p)
    return Ppc.load(p)


def _ref(k, m):
    b = [(k >> i) & 1 for i in range(3)]
    return [b[0] & b[1], b[0] ^ b[2], m | (1 - b[1]), 0]


def test_evaluate_all_assignments(tmp_path):
    ppc = _ppc(tmp_path)
    assert ppc.ports == {"k": 3, "m": 1}
    assigns = [{"k": k, "m": m} for k, m in itertools.product(range(8), range(2))]
    many = ppc.evaluate_many(assigns)
    assert many == [_ref(a["k"], a["m"]) for a in assigns]
    assert all(ppc.evaluate(a) == r for a, r in zip(assigns, many))


def test_bad_values(tmp_path):
    ppc = _ppc(tmp_path)
    with pytest.raises(PpcError, match="3 bits"):
        ppc.evaluate({"k": 8, "m": 0})
    with pytest.raises(PpcError, match="no value"):
        ppc.evaluate({"k": 1})
    with pytest.raises(ParamValueError, match="expected 96 bits"):
        parse_hex_value("12", "key", 96)
    with pytest.raises(ParamValueError, match="value not hex at character 1 "):
        parse_hex_value("xyz", "key", 8)
    assert parse_hex_value("0x0A", "key", 8) == 10


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=8), st.lists(st.integers(0, 1), min_size=4, max_size=4))
def test_tlut_inits(entries, bits):
    init = tlut_inits(bits, {"c": entries})["c"]
    assert [(init >> i) & 1 for i in range(len(entries))] == [bits[j] for j in entries]
