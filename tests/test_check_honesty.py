"""Checks that cannot mislead.

- ``check --frames`` of a cfglut5 build (whose TLUT contents are in CFGLUT5 chains, never in the
  frames) refuses in one line instead of reporting a correct build as failing.
- ``check --vectors FILE`` refuses when the design's check reads no vector file (a dcsflow.toml's
  cocotb test, generated programs) instead of ignoring the file and passing.
- A check given a vector file from which it runs no record fails.

The design's check is given here by a stand-in (``design_of`` patched): a synthetic build folder
(:func:`dcsflow.scg._synthetic.make_build`) and a check that reads, or does not read, the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dcsflow.flow import check as chk
from dcsflow.flow import registry
from dcsflow.flow.design import CheckError, CheckOptions, Design, DesignCheck
from dcsflow.scg._synthetic import make_build

DATA = Path(__file__).parent / "data"


def _design(reads_vectors: bool, records: int) -> Design:
    def check(build, options):
        cases = list(range(records))
        return DesignCheck(cases, [({"key": 0}, cases)], str, lambda *a: ([], []),
                           vector_file=options.vectors if reads_vectors else None)
    return Design(name="stand_in", top="t", sources=(), check=check)


@pytest.fixture
def syn(tmp_path):
    return make_build(tmp_path / "syn")


@pytest.fixture
def vectors(tmp_path):
    p = tmp_path / "v.rsp"
    p.write_text("COUNT = 0\n")
    return p


def test_vectors_given_to_a_check_that_reads_none_is_refused(syn, vectors, monkeypatch):
    monkeypatch.setattr(registry, "design_of", lambda m, p: _design(False, 3))
    assert len(chk.prepare_check(syn).vectors) == 3                          # without --vectors: its cases
    with pytest.raises(CheckError, match=r"^--vectors .*v\.rsp: the check of design \S+ reads no vector file"):
        chk.prepare_check(syn, CheckOptions(vectors=vectors))


def test_a_vector_file_of_which_no_record_runs_fails(syn, vectors, monkeypatch):
    monkeypatch.setattr(registry, "design_of", lambda m, p: _design(True, 0))
    with pytest.raises(CheckError, match=r"^--vectors .*v\.rsp: no record of the file can be run"):
        chk.prepare_check(syn, CheckOptions(vectors=vectors))
    monkeypatch.setattr(registry, "design_of", lambda m, p: _design(True, 2))
    setup = chk.prepare_check(syn, CheckOptions(vectors=vectors))
    assert len(setup.vectors) == 2 and setup.check.vector_file == vectors


def test_check_vectors_on_a_cocotb_project_is_one_line(dcsflow, tmp_path, vectors, builds):
    """The bundled cocotb project (tests/data/project): its check runs the cocotb test, never a file."""
    b = builds.get("project-keyxor", design=None, project=str(DATA / "project" / "dcsflow.toml"),
                   baselines=("yosys-abc",), frontend_check=False, stop="outputs")
    r = dcsflow("check", b, "--vectors", vectors, "--quiet", timeout=300)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 1 and len(lines) == 1 and "reads no vector file" in lines[0], r.stderr
    assert "passed" not in r.stdout


@pytest.fixture(scope="module")
def keysbox_cfglut(builds):
    return builds.get("keysbox-cfglut5", design=str(DATA / "cfglut" / "keysbox.v"), tlut="cfglut5", chain_luts=3,
                      baselines=("yosys-abc",), frontend_check=False)


def test_check_frames_of_a_cfglut5_build_refuses_in_one_line(dcsflow, keysbox_cfglut):
    r = dcsflow("check", keysbox_cfglut, "--frames", "--quiet", timeout=300)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 1 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "a cfglut5 build" in lines[0] and "dcsflow check (without --frames)" in lines[0]
    assert "passed" not in r.stdout
