"""Parallel jobs of a build (flow.jobs, -j N): results equal to a serial run, bad -j values, a
failing job, interruption ending every child process, and the timing records."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _signals import session_processes
from dcsflow.flow.baselines import CANDIDATES
from dcsflow import steps
from dcsflow.flow.jobs import Jobs, JobsError, check_jobs, default_jobs, machine_cores

DATA = Path(__file__).parent / "data" / "flow"


# ---- job functions (module level: they cross into worker processes)

def _square(x):
    return x * x


def _add(a, b):
    with steps.step("inner"):
        return a + b


def _fail(msg):
    raise ValueError(msg)


def _pid(_=None):
    return os.getpid()


@pytest.mark.parametrize("n", [1, 2])
def test_jobs_run_with_dependencies_and_record_their_steps(n):
    rec = steps.Recorder()
    with steps.recording(rec, "stage"), Jobs(n) as jobs:
        a = jobs.submit("a", _square, 3)
        b = jobs.submit("b", _square, 4)
        c = jobs.submit("c", _add, a, b)            # futures as arguments: waits, gets their results
        assert c.result() == 25
        pids = {jobs.submit(f"p{i}", _pid).result() for i in range(4)}
    assert (os.getpid() in pids) == (n == 1)         # -j 1: in this process; else in workers
    paths = {r["path"] for r in rec.as_list()}
    assert {"stage/a", "stage/b", "stage/c", "stage/c/inner"} <= paths


@pytest.mark.parametrize("n", [1, 2])
def test_a_failing_job_fails_its_dependants_not_the_others(n):
    with Jobs(n) as jobs:
        bad = jobs.submit("bad", _fail, "broken input")
        after = jobs.submit("after", _add, bad, 1)
        fine = jobs.submit("fine", _square, 5)
        assert fine.result() == 25
        with pytest.raises(ValueError, match="broken input"):
            bad.result()
        with pytest.raises(ValueError, match="broken input"):
            after.result()


@pytest.mark.parametrize("value", ["0", "-2", "x", "1.5", ""])
def test_bad_job_counts_are_one_line_errors(value):
    with pytest.raises(JobsError) as e:
        check_jobs(value)
    assert "\n" not in str(e.value) and "-j" in str(e.value)


def test_job_counts(monkeypatch):
    monkeypatch.delenv("DCSFLOW_JOBS", raising=False)
    assert check_jobs(None) == default_jobs() == machine_cores() >= 1
    assert check_jobs("3") == 3 and check_jobs(1) == 1
    monkeypatch.setenv("DCSFLOW_JOBS", "3")
    assert check_jobs(None) == 3 and check_jobs("2") == 2       # -j wins over the environment


def test_bad_jobs_environment_variable_is_a_one_line_error(dcsflow, tmp_path):
    import os

    r = dcsflow("build", DATA / "keyxor.v", "--out", tmp_path / "b", "--quiet",
                env={**os.environ, "DCSFLOW_JOBS": "zero"})
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip().count("\n") == 0 and r.stderr.startswith("error: DCSFLOW_JOBS=zero:")
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("value", ["0", "two"])
def test_cli_refuses_bad_j_with_one_line(dcsflow, tmp_path, value):
    r = dcsflow("build", DATA / "keyxor.v", "--out", tmp_path / "b", "--quiet", "-j", value)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip().count("\n") == 0 and r.stderr.startswith(f"error: -j {value}:")
    assert not (tmp_path / "b").exists()


# ---- a build with -j 1 and with -j 2: the same files

#: files holding times besides utilization.json (compared without them)
_TIMED_FILES = ("report.json",)


def _strip(x):
    if isinstance(x, dict):
        return {k: _strip(v) for k, v in x.items()
                if k not in ("seconds", "timing", "stage_seconds", "seconds_yosys", "seconds_extract", "seconds_tmap",
                             "seconds_tlut_yosys", "seconds_conventional_yosys")}
    if isinstance(x, list):
        return [_strip(v) for v in x]
    return x


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(".log") and p.parent.name != "report" and p.name != "report.html"}


def test_parallel_build_equals_serial_build(tmp_path):
    """Every file a -j 2 build writes equals the -j 1 build's (report.json and the stage records
    without their times; tool logs and the page with its timing plots aside)."""
    from dcsflow.flow.build import BuildOptions, build

    design = DATA / "mul4.v"           # a multiplier by a parameter: TLUTs, carry chains, five candidates
    out = tmp_path / "b"               # both in the same folder: the tools' scripts name it
    # without the job cache: the second build must compute its jobs in parallel, not copy the first's
    a = build(BuildOptions(design=str(design), params=["c"], out=out, progress=False, jobs=1, cache=False))
    fa = _files(out)
    b = build(BuildOptions(design=str(design), params=["c"], out=out, progress=False, jobs=2, cache=False))
    fb = _files(out)
    assert sorted(fa) == sorted(fb)
    differ = []
    for name in fa:
        if name.endswith(".json"):
            ja, jb = json.loads(fa[name]), json.loads(fb[name])
            for j in (ja, jb):                 # hashes of files that hold times
                for key in ("files", "outputs"):
                    if isinstance(j.get(key), dict):
                        j[key] = {k: v for k, v in j[key].items() if k not in _TIMED_FILES
                                  and not k.endswith("utilization.json")}
            if _strip(ja) != _strip(jb):
                differ.append(name)
        elif fa[name] != fb[name]:
            differ.append(name)
    assert not differ
    assert a.report["timing"]["jobs"] == 1 and b.report["timing"]["jobs"] == 2
    # every mapper on the conventional variant and on the register form; the precomputed form of mul4
    # is the register form's netlist (no logic depends on the parameter alone), so it is not made twice
    assert list(a.report["baselines"]) == [*CANDIDATES, *(f"{m}@register" for m in CANDIDATES)]
    # a conventional candidate is packed as soon as it is made, in the tmap stage (recorded under
    # backend): with -j 1 before TMAP runs, as the candidates are submitted first
    start = {s["path"]: s["start"] for s in a.report["timing"]["steps"]}
    assert start["backend/pack baseline yosys-abc"] < start["tmap/tmap"] < start["backend/pack tlut"]


def test_report_records_where_the_time_went(tmp_path):
    from dcsflow.flow.build import BuildOptions, build

    # without the job cache: every tool runs (a cached job records no tool run)
    rep = build(BuildOptions(design=str(DATA / "keyxor.v"), out=tmp_path / "b", progress=False, jobs=2,
                             cache=False)).report
    t = rep["timing"]
    assert list(t["stages"]) == ["frontend", "tmap", "verify", "backend", "outputs"]
    assert all(s["wall"] > 0 and not s["reused"] for s in t["stages"].values())
    tools = {s["tool"] for s in t["steps"] if s["kind"] == "tool"}
    assert {"yosys", "abc", "iverilog", "vvp"} <= tools
    paths = {s["path"] for s in t["steps"]}
    for p in ("tmap/tmap", "tmap/baseline yosys-abc", "tmap/baseline abc-dch", "tmap/tlut finish",
              "verify/front-end check", "backend/pack tlut", "backend/place tlut"):
        assert p in paths, p
    assert 0 < len(t["slowest"]) <= 5
    assert all(s["wall"] >= 0 and s["cpu"] >= 0 for s in t["steps"])
    rep2 = build(BuildOptions(design=str(DATA / "keyxor.v"), out=tmp_path / "b", progress=False, jobs=1,
                              start="backend")).report
    assert rep2["timing"]["stages"]["tmap"]["reused"] and not rep2["timing"]["stages"]["backend"]["reused"]


def _tools(sid: int) -> list[int]:
    """External tools (not Python) in session ``sid``."""
    out = []
    for pid in session_processes(sid):
        try:
            exe = os.path.basename(os.readlink(f"/proc/{pid}/exe"))
        except OSError:
            continue
        if not exe.startswith("python"):
            out.append(pid)
    return out


@pytest.mark.parametrize("sig, status, word", [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")])
def test_interrupt_during_parallel_steps_ends_every_child(tmp_path, sig, status, word):
    out = tmp_path / "b"
    # Ctrl-C raises KeyboardInterrupt only where SIGINT is not ignored at start-up; a test run started
    # as a background job of a non-interactive shell passes SIGINT ignored to its children, so the
    # build gets it as a terminal would give it
    p = subprocess.Popen([sys.executable, "-m", "dcsflow.flow", "build", "picipher", "--out", str(out), "-j", "2",
                          "--quiet", "--no-cache"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 300
    while time.time() < deadline and p.poll() is None:
        if (out / "stages" / "frontend.json").exists() and len(_tools(p.pid)) >= 2:
            break
        time.sleep(0.05)
    assert p.poll() is None, p.stderr.read()
    assert len(_tools(p.pid)) >= 2, "no parallel tool runs seen"
    p.send_signal(sig)
    err = p.communicate(timeout=60)[1]
    assert p.returncode == status and word in err and "Traceback" not in err, err
    for _ in range(50):
        if not session_processes(p.pid):
            break
        time.sleep(0.1)
    assert not session_processes(p.pid), "processes of the build left running"
    assert not (out / "build.json").exists() and not (out / "report.json").exists()
    assert not (out / "stages" / "tmap.json").exists()


def test_a_script_without_main_guard_can_build_in_parallel(tmp_path):
    """Worker processes do not run the calling script again (spawn would import it as a module)."""
    script = tmp_path / "mybuild.py"
    script.write_text("from dcsflow.flow.build import BuildOptions, build\n"
                      f"r = build(BuildOptions(design={str(DATA / 'keyxor.v')!r}, out={str(tmp_path / 'b')!r}, "
                      "progress=False, stop='tmap', jobs=2))\n"
                      "print('ran once')\n")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.count("ran once") == 1
    assert (tmp_path / "b" / "stages" / "tmap.json").exists()


def _die():
    os._exit(9)


def test_a_worker_that_dies_is_a_one_line_error():
    from dcsflow.flow.errors import FlowError

    with Jobs(2) as jobs:
        f = jobs.submit("dies", _die)
        with pytest.raises(FlowError, match="dies: its worker process ended unexpectedly"):
            f.result()
