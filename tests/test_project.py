"""A user's design without a package — ``dcsflow.toml`` and a cocotb check.

tests/data/project/dcsflow.toml names the flow tests' keyxor and a cocotb test (tb/test_keyxor.py)
that computes the expected outputs from :func:`dcsflow.testing.parameter_values` (an independent
Python model of keyxor). Bad project files, failing tests and old build folders are one line each.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A copy of the project (with the keyxor source beside it) and its finished build."""
    root = tmp_path_factory.mktemp("proj")
    shutil.copytree(DATA / "project", root / "project")
    shutil.copytree(DATA / "flow", root / "flow")
    return root / "project"


@pytest.fixture(scope="module")
def built(project):
    import subprocess
    import sys

    out = project / "out"
    r = subprocess.run([sys.executable, "-m", "dcsflow.flow", "build", "-p", project / "dcsflow.toml", "--out", out,
                        "--quiet"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


def test_project_builds_and_its_cocotb_test_passes(dcsflow, built):
    bj = json.loads((built / "build.json").read_text())
    assert bj["design"] == "keyxor" and bj["design_source"]["kind"] == "project" and bj["params"] == {"key": 8}
    r = dcsflow("check", built, "--keys", "3", "--quiet")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("key=")]
    assert len(lines) == 3 and all(ln.endswith(": passed") for ln in lines), r.stdout
    assert "passed 3/3" in r.stdout


@pytest.mark.parametrize("change, why", [
    ("((d ^ key) + (((d & 15) << 4) | (d >> 4)))", "tests failed"),     # a wrong model: every value fails
    (None, "ValueError"),                                                # the test raises
])
def test_failing_or_raising_cocotb_test_fails_the_check(dcsflow, built, project, change, why):
    tb = project / "tb" / "test_keyxor.py"
    text = tb.read_text()
    try:
        if change:
            tb.write_text(text.replace(change, change.replace("(d ^ key)", "(d ^ key ^ 1)")))
        else:
            tb.write_text(text.replace("    key = parameter_values()[\"key\"]\n",
                                       "    key = parameter_values()[\"key\"]\n    raise ValueError('broken test')\n"))
        assert tb.read_text() != text
        r = dcsflow("check", built, "--keys", "2", "--seed", "7", "--quiet")
    finally:
        tb.write_text(text)
    assert r.returncode == 1 and "passed 0/2" in r.stdout, r.stdout + r.stderr
    fails = [ln for ln in r.stdout.splitlines() if ": FAILED (" in ln]
    assert len(fails) == 2 and all(why in ln for ln in fails), r.stdout


SKIP = "@cocotb.test(skip=True)\n"
EXTRA_SKIPPED = "\n\n@cocotb.test(skip=True)\nasync def not_written_yet(dut):\n    pass\n"


@pytest.mark.parametrize("edit, why", [
    (lambda t: t.replace("@cocotb.test()\n", SKIP), "1 of 1 tests skipped"),          # the only test skipped
    (lambda t: t + EXTRA_SKIPPED, "1 of 2 tests skipped"),                               # one passes, one skipped
    (lambda t: t.replace("@cocotb.test()\n", ""), "No tests were discovered"),        # no test in the module (cocotb refuses)
])
def test_a_check_that_tests_nothing_fails(dcsflow, built, project, edit, why):
    tb = project / "tb" / "test_keyxor.py"
    text = tb.read_text()
    try:
        tb.write_text(edit(text))
        assert tb.read_text() != text
        r = dcsflow("check", built, "--keys", "2", "--seed", "3", "--quiet")
    finally:
        tb.write_text(text)
    assert r.returncode == 1 and "passed 0/2" in r.stdout, r.stdout + r.stderr
    fails = [ln for ln in r.stdout.splitlines() if ": FAILED (" in ln]
    assert len(fails) == 2 and all(why in ln for ln in fails), r.stdout


@pytest.mark.parametrize("keys", ["0", "-3", "1000000000", "10001"])
def test_check_refuses_a_key_count_out_of_range(dcsflow, built, keys):
    r = dcsflow("check", built, "--keys", keys, "--quiet", timeout=60)
    assert r.returncode != 0 and "passed" not in r.stdout, r.stdout + r.stderr
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "--keys" in r.stderr and "10000" in r.stderr, r.stderr


@pytest.mark.parametrize("keys", ["0", "-3", "10001", "1000000000", "true", "2.5"])
def test_project_key_count_out_of_range_is_one_line(dcsflow, built, project, keys):
    toml = project / "dcsflow.toml"
    text = toml.read_text()
    try:
        toml.write_text(text + f"keys = {keys}\n")
        r = dcsflow("check", built, "--quiet", timeout=60)
    finally:
        toml.write_text(text)
    assert r.returncode == 1 and "passed" not in r.stdout, r.stdout + r.stderr
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "check.keys" in r.stderr, r.stderr


def test_check_options_refuse_key_counts_out_of_range():
    from dcsflow.flow.design import CheckError, CheckOptions

    assert CheckOptions(keys=1).keys == 1 and CheckOptions(keys=10_000).keys == 10_000
    for bad in (0, -3, 10_001, 10**9, True):
        with pytest.raises(CheckError, match="from 1 to 10000"):
            CheckOptions(keys=bad)


@pytest.mark.parametrize("edit, msg", [
    (("[check]", "colour = 3\n[check]"), "unknown key design.colour"),
    (("../flow/keyxor.v", "../flow/nothere.v"), "source ../flow/nothere.v not found"),
    (("tb/test_keyxor.py", "tb/none.py"), "cocotb test tb/none.py not found"),
    (('name = "keyxor"', "name = 3"), "design.name must be a str"),
    (("[design]", "[design\n"), "not valid TOML"),
])
def test_bad_project_file_is_one_line(dcsflow, project, tmp_path, edit, msg):
    p = project / f"bad_{abs(hash(msg))}.toml"
    p.write_text((project / "dcsflow.toml").read_text().replace(*edit))
    out = tmp_path / "b"
    r = dcsflow("build", "-p", p, "--out", out, "--quiet")
    assert r.returncode == 1 and msg in r.stderr, r.stderr
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert not (out / "build.json").exists()


def test_build_folder_of_an_older_format_is_refused(dcsflow, built, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(built, old)
    bj = json.loads((old / "build.json").read_text())
    bj["version"] = 1
    (old / "build.json").write_text(json.dumps(bj))
    for args in (("check", old), ("specialize", old, "--param", "key=a5")):
        r = dcsflow(*args)
        assert r.returncode == 1 and "version 1" in r.stderr and "rebuild" in r.stderr, r.stderr
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
