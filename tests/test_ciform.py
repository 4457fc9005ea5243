"""The CI form of a build (flow.ciform): which candidate and which depth bounds a build-figures entry
gives, and a bad build-figures file refused in one line."""

from __future__ import annotations

import json

import pytest

from _build_figures import TABLE
from dcsflow.flow.ciform import ci_form, read_figures
from dcsflow.flow.errors import FlowError


def test_the_table_gives_the_chosen_candidate_and_both_depths():
    designs = read_figures(TABLE)
    e = json.loads(TABLE.read_text())["designs"]["aes128_iter"]
    # aes128_iter's full build (the table): abc-wide chosen; yosys-abc at depth 6; the precomputed
    # forms of yosys-abc and abc-wide at depth 5, the shallowest
    assert e["conventional"]["baseline"] == "abc-wide" and e["candidates"]["yosys-abc"]["depth"] == 6
    assert ci_form(designs["aes128_iter"]) == {"baselines": ("abc-wide",), "depth_bounds": (6, 5)}


def test_an_entry_without_yosys_abc_makes_it():
    e = {"conventional": {"baseline": "tmap"}, "candidates": {"tmap": {"depth": 3}}}
    assert ci_form(e) == {"baselines": ("yosys-abc", "tmap"), "depth_bounds": None}


@pytest.mark.parametrize("text, why", [
    ("{", "not JSON"),
    ('{"format": "dcsflow-build-figures", "version": 2, "designs": {}}', "of version 1"),
    ('{"format": "other", "version": 1, "designs": {}}', "not a dcsflow-build-figures file"),
    ('{"format": "dcsflow-build-figures", "version": 1, "designs": {"d": {"conventional": {"baseline": "tmap"}, '
     '"candidates": {"abc-dch": {"depth": 3}}}}}', "design d: the chosen candidate tmap is not among"),
    ('{"format": "dcsflow-build-figures", "version": 1, "designs": {"d": {"candidates": {}}}}',
     "design d: no chosen candidate"),
])
def test_a_bad_file_is_refused_in_one_line(tmp_path, text, why):
    p = tmp_path / "f.json"
    p.write_text(text)
    with pytest.raises(FlowError, match=why) as e:
        read_figures(p)
    assert "\n" not in str(e.value)


def test_demo_refuses_a_missing_file_in_one_line(dcsflow, tmp_path):
    r = dcsflow("demo", "--out", tmp_path / "o", "--pinned", tmp_path / "none.json")
    assert r.returncode == 1 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "none.json: cannot read" in r.stderr and not (tmp_path / "o").exists()


def test_a_fifo_is_refused_not_read(tmp_path):
    """A FIFO as the file would block a plain read: the one bounded reader refuses it in one line."""
    import os

    p = tmp_path / "fifo.json"
    os.mkfifo(p)
    with pytest.raises(FlowError, match="FIFO") as e:
        read_figures(p)
    assert "\n" not in str(e.value)
