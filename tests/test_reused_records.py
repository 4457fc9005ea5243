"""``build --from STAGE`` re-checks the stage records it reuses: nothing unverified is certified.

A stage record is JSON in the build folder (``stages/<stage>.json``); ``--from`` reuses the records
of the stages before STAGE. Each test alters a copy of a finished keyxor build the way a user, a
script or a bad merge could, and runs ``dcsflow build --from backend`` (or ``outputs``) on it: a
reused verify record that says a check failed is run again (never certified as it stands), and a
file the verify stage checked that changed since — with every stage hash recomputed so that the
records agree with it — refuses the build in one line, nothing certified.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from _buildcache import KEYXOR as KEYXOR_OPTIONS

KEYXOR = Path(__file__).parent / "data" / "flow" / "keyxor.v"


@pytest.fixture(scope="module")
def finished(builds) -> Path:
    """A finished build of keyxor (all stages; shared: tests alter copies)."""
    return builds.get("keyxor", **KEYXOR_OPTIONS)


def _copy(finished: Path, tmp_path: Path) -> Path:
    out = tmp_path / "b"
    shutil.copytree(finished, out)
    return out


def _record(out: Path, stage: str) -> dict:
    return json.loads((out / "stages" / f"{stage}.json").read_text())


def _write_record(out: Path, stage: str, doc: dict) -> None:
    (out / "stages" / f"{stage}.json").write_text(json.dumps(doc, indent=1))


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _digest(outputs: dict) -> str:
    # the digest of a stage's outputs as docs/formats.md defines it: SHA-256 of their sorted JSON
    return hashlib.sha256(json.dumps(outputs, sort_keys=True).encode()).hexdigest()


def _rehash(out: Path) -> None:
    """Recompute every stage record's output hashes and input digests from the files as they are."""
    outputs_of = {}
    for stage in ("frontend", "tmap", "verify", "backend"):
        doc = _record(out, stage)
        doc["outputs"] = {f: _sha(out / f) for f in doc["outputs"]}
        doc["inputs"] = {s: _digest(outputs_of[s]) for s in doc["inputs"]}
        outputs_of[stage] = doc["outputs"]
        _write_record(out, stage, doc)


def _build(dcsflow, out: Path, start: str):
    return dcsflow("build", KEYXOR, "--out", out, "--from", start, "--quiet")


FAILED = {
    "equal false": lambda d: d.update(equal=False),
    "abc_cec false": lambda d: d.update(abc_cec=False),
    "front-end check failed": lambda d: d["frontend_check"].update(passed=False),
    "all three": lambda d: (d.update(equal=False, abc_cec=False), d["frontend_check"].update(passed=False)),
}


@pytest.mark.parametrize("case", sorted(FAILED))
def test_reused_verify_record_that_says_a_check_failed_is_run_again(dcsflow, finished, tmp_path, case):
    out = _copy(finished, tmp_path)
    doc = _record(out, "verify")
    assert doc["data"]["equal"] is True and doc["data"]["frontend_check"]["passed"] is True   # the build's own
    FAILED[case](doc["data"])
    _write_record(out, "verify", doc)
    r = _build(dcsflow, out, "backend")
    assert "records a failed check" in r.stderr and "running from the 'verify' stage" in r.stderr, r.stderr
    assert r.returncode == 0, r.stderr
    # the verify stage ran again and its own result is what the report certifies
    again = _record(out, "verify")["data"]
    assert again["equal"] is True and again["abc_cec"] is not False and again["frontend_check"]["passed"] is True
    rep = json.loads((out / "report.json").read_text())["verify"]
    assert rep["equal"] is True and rep["frontend_check"]["passed"] is True
    assert rep["frontend_check"]["seconds"] != doc["data"]["frontend_check"]["seconds"] or \
        again["timing"] != doc["data"]["timing"]


def _alter_tlut_netlist(out: Path) -> None:
    """Swap the nets on pins I0 and I1 of one LUT of the finished TLUT netlist (other logic)."""
    p = out / "tlut" / "netlist.json"
    doc = json.loads(p.read_text())
    cells = next(iter(doc["modules"].values()))["cells"]
    cell = next(c for c in cells.values() if c["type"].startswith("LUT") and c["connections"].get("I0")
                and c["connections"].get("I1") and c["connections"]["I0"] != c["connections"]["I1"])
    con = cell["connections"]
    con["I0"], con["I1"] = con["I1"], con["I0"]
    p.write_text(json.dumps(doc))


@pytest.mark.parametrize("start", ["backend", "outputs"])
def test_netlist_changed_after_verify_with_records_rehashed_is_refused(dcsflow, finished, tmp_path, start):
    out = _copy(finished, tmp_path)
    _alter_tlut_netlist(out)
    _rehash(out)
    r = _build(dcsflow, out, start)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and "Traceback" not in r.stderr and r.stdout.strip() == "", (r.stdout, r.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: tlut/netlist.json changed since the verify stage"), r.stderr
    assert not (out / "build.json").exists() and not (out / "report.json").exists()


def test_rehashed_records_of_unchanged_files_are_reused(dcsflow, finished, tmp_path):
    """Recomputing the hashes of unchanged files changes nothing: --from outputs reuses every record."""
    out = _copy(finished, tmp_path)
    _rehash(out)
    r = _build(dcsflow, out, "outputs")
    assert r.returncode == 0 and "note:" not in r.stderr, r.stderr
    assert json.loads((out / "report.json").read_text())["verify"]["equal"] is True


def test_verify_record_without_the_checked_files_is_run_again(dcsflow, finished, tmp_path):
    out = _copy(finished, tmp_path)
    doc = _record(out, "verify")
    assert set(doc["data"]["checked"]) >= {"tlut/netlist.json", "tmap/netlist.json", "frontend/logic.aag"}
    del doc["data"]["checked"]
    _write_record(out, "verify", doc)
    r = _build(dcsflow, out, "backend")
    assert r.returncode == 0 and "running from the 'verify' stage" in r.stderr, r.stderr
    assert _record(out, "verify")["data"]["checked"]["tlut/netlist.json"] == _sha(out / "tlut" / "netlist.json")


def test_summary_line_of_a_failed_front_end_check():
    from dcsflow.flow.frontcheck import summary_line

    rep = {"verify": {"frontend_check": {"passed": False, "cycles": 10, "simulator": "iverilog"}}}
    assert summary_line(rep) == "front-end check: NOT passed"
