"""The parallel build changes no figure: the session's builds of bundled designs against the table
of figures from builds made before (tests/data/build_figures.json, scripts/figures.py): LUTs, TLUTs,
FFs, slices, LUT depth of both implementations and of every conventional candidate, frames and ICAP
words per rekey, and the SHA-256 of the generated C (same C: same SCG instructions)."""

from __future__ import annotations

import pytest

from _build_figures import compare
from _builds import reseal

#: reads the main job's build (tests/_buildcache.py): scheduled after the other tests
pytestmark = pytest.mark.demo_builds


@pytest.mark.parametrize("design", ["picipher", "aes128_iter"])
def test_bundled_design_figures_unchanged(builds, design):
    assert compare(builds.get(design, design=design), ci_form=True) == []     # the main job's build: CI form


def test_compare_sees_a_changed_figure(builds, tmp_path):
    """The comparison can fail: a report with one slice more is reported."""
    import json

    b = builds.copy("picipher", tmp_path / "b", design="picipher")
    rep = json.loads((b / "report.json").read_text())
    rep["backend"]["tlut"]["slices"] += 1
    (b / "report.json").write_text(json.dumps(rep))
    reseal(b, ppc_hash=False)               # as if the flow had written it: codegen accepts the folder
    n = rep["backend"]["tlut"]["slices"]
    assert f"tlut.slices: {n - 1} -> {n}" in compare(b, ci_form=True)
