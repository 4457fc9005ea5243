"""The equivalence proof (tmap.abc.cec): inputs and outputs matched by position, never by name; a
difference is found; the engines run in turn (``&cec``, then ``dcec``), so that XOR-rich arithmetic
is proved in seconds (``cec`` alone ran for many minutes on it)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from dcsflow import steps
from dcsflow.aig import Aig, read_aiger
from dcsflow.tmap import abc
from dcsflow.tools import has_tool

pytestmark = pytest.mark.skipif(not has_tool("abc"), reason="needs ABC (yosys-abc)")


DATA = Path(__file__).parent / "data" / "cec"


def test_xor_of_sums_is_proved_quickly():
    """The cut-point proof of a build of ``y <= x ^ (key + 1) ^ ... ^ (key + 100)`` (16 bits, key a
    parameter input; files written by that build's proof): ``cec -n`` on its own had not decided it
    after 13 minutes."""
    a, b = read_aiger(DATA / "xor_sums_aig.aig"), read_aiger(DATA / "xor_sums_tluts.aig")
    t = time.monotonic()
    with steps.recording(steps.Recorder()) as rec:
        ok, verdict = abc.cec(a, b, 120, what="sums")
    assert ok, verdict
    assert time.monotonic() - t < 60
    # &cec leaves it undecided within its share of the time; dcec decides
    assert _engines(rec) == ["sums (&cec)", "sums (dcec)"]
    b.outputs[5] ^= 1                                   # one output inverted
    ok, verdict = abc.cec(a, b, 120)
    assert not ok and "NOT" in verdict.upper()


def _pair(fa, fb, names_b=("a", "b")) -> tuple[Aig, Aig]:
    ga, gb = Aig(), Aig()
    x, y = ga.add_input("a"), ga.add_input("b")
    ga.add_output(fa(ga, x, y), "o")
    u, v = gb.add_input(names_b[0]), gb.add_input(names_b[1])
    gb.add_output(fb(gb, u, v), "o")
    return ga, gb


def _engines(rec) -> list[str]:
    return [r["what"] for r in rec.as_list() if r["kind"] == "tool"]


def test_the_quick_engine_decides_first():
    """An easy pair is decided by ``&cec`` alone: the slower engines are not run."""
    a, b = _pair(lambda g, x, y: g.add_xor(x, y), lambda g, x, y: g.add_or(g.add_and(x, y ^ 1), g.add_and(x ^ 1, y)))
    with steps.recording(steps.Recorder()) as rec:
        ok, verdict = abc.cec(a, b, 60, what="xor")
    assert ok, verdict
    assert _engines(rec) == ["xor (&cec)"]


def test_a_difference_is_found():
    a, b = _pair(lambda g, x, y: g.add_and(x, y), lambda g, x, y: g.add_or(x, y))
    ok, verdict = abc.cec(a, b, 60)
    assert not ok and "NOT" in verdict.upper()


def test_inputs_are_matched_by_position_not_by_name():
    # b's inputs carry each other's names: by name they would be swapped and x & ~y would equal itself
    a, b = _pair(lambda g, x, y: g.add_and(x, y ^ 1), lambda g, x, y: g.add_and(x, y ^ 1), names_b=("b", "a"))
    ok, _ = abc.cec(a, b, 60)
    assert ok                                          # same function by position
    a, b = _pair(lambda g, x, y: g.add_and(x, y ^ 1), lambda g, x, y: g.add_and(y, x ^ 1), names_b=("b", "a"))
    ok, verdict = abc.cec(a, b, 60)                     # equal by name, different by position
    assert not ok, verdict


def test_outputs_are_matched_by_position():
    def two(first_and: bool) -> Aig:
        g = Aig()
        x, y = g.add_input("a"), g.add_input("b")
        outs = [g.add_and(x, y), g.add_or(x, y)]
        if not first_and:
            outs.reverse()
        for i, o in enumerate(outs):
            g.add_output(o, f"o{i}" if first_and else f"o{1 - i}")
        return g
    ok, verdict = abc.cec(two(True), two(False), 60)
    assert not ok, verdict


def test_constant_outputs():
    a, b = _pair(lambda g, x, y: g.add_and(x, x ^ 1), lambda g, x, y: 0)
    assert abc.cec(a, b, 60)[0]
    a, b = _pair(lambda g, x, y: g.add_or(x, x ^ 1), lambda g, x, y: 0)
    assert not abc.cec(a, b, 60)[0]
