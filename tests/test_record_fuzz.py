"""Every JSON record a build folder holds is typed: a change of any field to a wrong type, a missing
key, a name that exists nowhere or a huge value is refused by every reader in one line, never a
traceback (tests/_record_fuzz.py says how a case is made and which readers run).

Two builds (the session's keyxor build, frames; the cfglut5 build of keysbox): one case of every
(record file, kind of change) pair, then more drawn at random (seeded), at least :data:`CASES` in all. The
hostile-input probe (tests/hostile_probe.py) runs every case. Besides, cases met by hand:
a stage record whose top names no module, ``"params": 2.0`` in ``ppc.json``, a frame map cut short
and a template with a changed byte under ``check --frames``, and a ``template.json`` of another build.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import _record_fuzz as rf
from _buildcache import KEYXOR
from _builds import reseal
from dcsflow.scg.buildfolder import load_build
from dcsflow.scg.errors import BuildFolderError

DATA = Path(__file__).parent / "data" / "flow"
#: the two fuzz runs take minutes of CPU (every reader on every case): with the slow tests only
SLOW = pytest.mark.skipif(os.environ.get("DCSFLOW_SLOW_TESTS") != "1",
                          reason="the record fuzz takes minutes: set DCSFLOW_SLOW_TESTS=1 (tests/hostile_probe.py runs every case)")
#: cases per build (every (file, kind) pair is one even when they are more; the probe runs them all)
CASES = 40


@pytest.fixture(scope="module")
def keyxor(builds):
    return builds.get("keyxor", **KEYXOR)


@pytest.fixture(scope="module")
def keysbox_cfglut(builds):
    return builds.get("keysbox-cfglut5", design=str(DATA.parent / "cfglut" / "keysbox.v"), tlut="cfglut5", chain_luts=3,
                      baselines=("yosys-abc",), frontend_check=False)


def _fuzz(pristine: Path, tmp_path: Path, params: list[str], frames: bool, seed: int, record_property) -> None:
    work = tmp_path / "work"
    shutil.copytree(pristine, work, symlinks=True)
    assert rf.classify(rf.readers(work, params, frames, tmp_path)) == []
    cases = rf.sample(rf.all_cases(pristine), CASES, seed)
    names = {c.name for c in cases}
    assert {"build.json", "ppc.json", "template.json", "report.json", "stages/frontend.json"} <= names
    bad = []
    for case in cases:
        rf.apply(case, pristine, work)
        try:
            bad += [f"{case}: {b}" for b in rf.classify(rf.readers(work, params, frames, tmp_path))]
        finally:
            rf.restore(case, pristine, work)
    record_property("cases", len(cases))
    assert not bad, "\n".join(bad[:30])


@SLOW
def test_changed_records_of_a_frames_build_never_give_a_traceback(keyxor, tmp_path, record_property):
    _fuzz(keyxor, tmp_path, ["key=a5"], True, 57, record_property)


@SLOW
def test_changed_records_of_a_cfglut5_build_never_give_a_traceback(keysbox_cfglut, tmp_path, record_property):
    _fuzz(keysbox_cfglut, tmp_path, ["key=a5"], False, 58, record_property)


# ------------------------------------------------------------------------------ cases met by hand

def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "b"
    shutil.copytree(src, dst, symlinks=True)
    return dst


def _edit(path: Path, fn) -> None:
    doc = json.loads(path.read_text())
    fn(doc)
    path.write_text(json.dumps(doc))


def test_a_stage_record_naming_an_unknown_top_is_one_line(keyxor, tmp_path):
    from dcsflow.flow.build import BuildOptions, build
    from dcsflow.flow.errors import FlowError

    b = _copy(keyxor, tmp_path)
    _edit(b / "stages" / "frontend.json", lambda d: d["data"].update(top="no_such_module"))
    with pytest.raises(FlowError) as ei:
        build(BuildOptions(design=KEYXOR["design"], out=b, progress=False, start="verify", stop="verify", jobs=1))
    assert "no module 'no_such_module'" in str(ei.value) and "\n" not in str(ei.value)


def test_ppc_params_of_another_type_is_one_line(keyxor, tmp_path):
    b = _copy(keyxor, tmp_path)
    _edit(b / "ppc.json", lambda d: d.update(params=2.0))
    reseal(b, ppc_hash=False)
    with pytest.raises(BuildFolderError, match=r"ppc\.json: malformed PPC manifest \(field params: a list expected, "
                                                r"got a number\)"):
        load_build(b)


@pytest.mark.parametrize("damage", ["frame map cut short", "template byte changed"])
def test_check_frames_on_damaged_resealed_files_is_one_line(keyxor, tmp_path, monkeypatch, damage):
    """``check --frames`` up to its simulation (keyxor has no check of its own: the build's setup
    stands in for it, as in tests/_record_fuzz.py) reads the frame map and the template through the
    build-folder reader: a damaged file, resealed, is one line."""
    from dcsflow.flow import check as chk
    from dcsflow.flow.backend import verify

    b = _copy(keyxor, tmp_path)
    if damage == "frame map cut short":
        p = b / "tlut" / "framemap.json"
        p.write_bytes(p.read_bytes()[:500])
        word = "corrupted frame map"
    else:
        p = b / "tlut" / "template.frm"
        data = bytearray(p.read_bytes())
        data[len(data) // 2] = 0xFF                 # not UTF-8
        p.write_bytes(bytes(data))
        word = "template.frm"
    reseal(b, ppc_hash=False)
    monkeypatch.setattr(verify, "prepare_check", lambda d, o: rf._Setup(load_build(d)))
    monkeypatch.setattr(verify, "simulate_vectors", lambda *a, **k: chk.CheckResult(0, 0))
    with pytest.raises(BuildFolderError) as ei:
        verify.check_frames(b, progress=False)
    assert word in str(ei.value) and "\n" not in str(ei.value)


def test_a_template_netlist_of_another_build_is_refused(keyxor, tmp_path):
    b = _copy(keyxor, tmp_path)
    _edit(b / "template.json", lambda d: next(iter(d["modules"].values()))["attributes"].update(
        dcs_design_hash="0" * 64))
    reseal(b, ppc_hash=False)
    with pytest.raises(BuildFolderError, match="template netlist of another build"):
        load_build(b).module
    _edit(b / "template.json", lambda d: next(iter(d["modules"].values()))["attributes"].pop("dcs_design_hash"))
    reseal(b, ppc_hash=False)
    with pytest.raises(BuildFolderError, match="names no design hash"):
        load_build(b).module


def test_every_record_of_a_build_matches_its_schema(keyxor, keysbox_cfglut):
    """The schemas describe what the flow writes (no false refusal of a good build)."""
    from dcsflow.flow import records as fr
    from dcsflow.schema import validate
    from dcsflow.scg import records as sr

    for root in (keyxor, keysbox_cfglut):
        doc = lambda n: json.loads((root / n).read_text())  # noqa: E731
        validate(doc("build.json"), sr.BUILD_MANIFEST)
        validate(doc("ppc.json"), sr.PPC_MANIFEST)
        validate(doc("tlut/framemap.json"), sr.FRAME_MAP)
        validate(doc("template.json"), sr.NETLIST)
        validate(doc("report.json"), sr.REPORT_LINK)
        validate(doc("report.json"), fr.REPORT)
        validate(doc("tlut/placement.json"), fr.PLACEMENT)
        for s in ("frontend", "tmap", "verify", "backend"):
            rec = doc(f"stages/{s}.json")
            validate(rec, fr.STAGE_RECORD)
            validate(rec["data"], fr.STAGE_DATA[s])
    validate(json.loads((keysbox_cfglut / "cfglut.json").read_text()), sr.CFGLUT_LAYOUT)
