"""External tools cannot run away: a memory limit besides the time limit, a front-end time limit
scaled from the HDL, progress while a tool runs long, and no tool outliving dcsflow.

- Memory (:mod:`dcsflow.limits`): every run gets ``RLIMIT_AS`` (default 3/4 of the machine's
  memory; ``--max-memory``, ``[build] max_memory``); a run that fails for want of memory is one line
  naming the tool, the step and the limit. The runaway case is a real one: Yosys elaborating an
  endless ``generate`` loop (tests/data/hang/runaway.v), which grows by about 30 MB/s.
- The front end's Yosys and GHDL runs default to :func:`dcsflow.limits.frontend_time_limit` of the
  HDL's size; the override still wins.
- Progress: a run still going after ``PROGRESS_SECONDS`` says so (tool, step, elapsed, limits).
- Parent death: a tool (and what it started) dies with the process that started it, also when that
  process is killed by SIGKILL — the dcsflow process alone or its whole process group, with the
  tool run by dcsflow itself or by one of its worker processes (``-j 2``).
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _signals import alive, descendants, session_processes
from dcsflow import limits, steps, tools

DATA = Path(__file__).parent / "data"
MEM_HOW = "raise it with --max-memory SIZE or [build] max_memory in dcsflow.toml"


def _exe(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


# ------------------------------------------------------------------------------ sizes

@pytest.mark.parametrize("text, n", [("2G", 2 << 30), ("512M", 512 << 20), ("1.5GiB", 3 << 29), ("64MB", 64 << 20),
                                     ("2 GB", 2 << 30), (str(1 << 30), 1 << 30), ("1T", 1 << 40), (1 << 30, 1 << 30)])
def test_memory_sizes_are_read(text, n):
    assert limits.check_memory_limit(text) == n


@pytest.mark.parametrize("text", ["２G", "0", "-1G", "1e9", "abc", "", "1G1", "63M", "2P", "١٢٣M", True, 1.5, None])
def test_bad_memory_sizes_are_one_line(text):
    with pytest.raises(limits.MemoryLimitError) as ei:
        limits.check_memory_limit(text, "--max-memory")
    assert str(ei.value).startswith("--max-memory: ") and "\n" not in str(ei.value)


def test_the_default_memory_limit_follows_the_machine():
    total = limits.machine_memory()
    n, source = limits.default_memory_limit()
    assert total > 0 and abs(n - 0.75 * total) < (1 << 20) and "75%" in source
    assert limits.memory_limit_for("yosys") == (n, source)
    with limits.memory_limit(1 << 30, "--max-memory"):
        assert limits.memory_limit_for("abc") == (1 << 30, "--max-memory")
    assert limits.get_memory_limit() is None


# ------------------------------------------------------------------------------ run_tool

_GREEDY = "import time\nx = bytearray(1 << 30)\ntime.sleep(30)\n"


def test_a_run_that_runs_out_of_memory_is_one_line():
    with steps.recording(steps.Recorder()), steps.step("frontend"), limits.memory_limit(256 << 20, "--max-memory"):
        with pytest.raises(tools.ToolMemoryLimit) as ei:
            tools.run_tool([sys.executable, "-c", _GREEDY], tool="yosys", what="synth")
    assert str(ei.value) == f"yosys (frontend: synth) ran out of its memory limit of 256 MiB (--max-memory); {MEM_HOW}"
    assert ei.value.user_error and ei.value.limit == 256 << 20


def test_the_memory_limit_is_the_address_space_of_the_program():
    with limits.memory_limit(300 << 20, "--max-memory"):
        r = tools.run_tool([sys.executable, "-c", "import resource; print(resource.getrlimit(resource.RLIMIT_AS)[0])"],
                           tool="vvp")
    assert r.returncode == 0 and int(r.stdout) == 300 << 20


def test_a_run_within_its_memory_limit_is_not_touched():
    with limits.memory_limit(512 << 20):
        r = tools.run_tool([sys.executable, "-c", "x = bytearray(64 << 20); print(len(x))"], tool="yosys")
    assert r.returncode == 0 and r.stdout.strip() == str(64 << 20)


def test_a_failure_that_is_not_for_memory_stays_the_callers():
    with limits.memory_limit(512 << 20):
        r = tools.run_tool(["sh", "-c", "echo 'ERROR: syntax error'; exit 1"], tool="yosys")
    assert r.returncode == 1


def test_the_memory_error_crosses_process_boundaries():
    import pickle

    e = tools.ToolMemoryLimit("yosys", "frontend", 1 << 30, "--max-memory")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is tools.ToolMemoryLimit and str(back) == str(e)


def test_a_long_run_prints_progress(monkeypatch):
    monkeypatch.setattr(tools, "PROGRESS_SECONDS", 1.0)
    lines = []
    with tools.progress(lines.append), steps.recording(steps.Recorder()), steps.step("tmap"), \
            limits.time_limit(30), limits.memory_limit(1 << 30):
        tools.run_tool(["sleep", "3.5"], tool="abc", what="&if")
    assert len(lines) >= 2, lines
    assert lines[0].startswith("abc (tmap: &if): still running after ") and \
        lines[0].endswith(" s (time limit 30 s, memory limit 1 GiB)"), lines
    lines.clear()
    with tools.progress(None):                          # off: nowhere
        tools.run_tool(["sleep", "1.5"], tool="abc")
    assert lines == []


# ------------------------------------------------------------------------------ the front end's time limit

def test_the_front_end_limit_grows_with_the_hdl():
    assert limits.frontend_time_limit(0) == limits.FRONTEND_BASE_SECONDS
    assert limits.frontend_time_limit(10 * 1024) == limits.FRONTEND_BASE_SECONDS + 10 * limits.FRONTEND_SECONDS_PER_KIB
    assert limits.frontend_time_limit(10 ** 9) == limits.DEFAULT_LIMITS["yosys"]
    with limits.tool_defaults({"yosys": (42.0, "here")}):
        assert limits.limit_for("yosys") == (42.0, "here") and limits.limit_for("abc")[0] == 1800.0
        with limits.time_limit(5, "--timeout"):
            assert limits.limit_for("yosys") == (5.0, "--timeout")             # the override wins
    assert limits.limit_for("yosys") == (3600.0, "the default for yosys")


def test_the_front_end_runs_under_its_scaled_limit(tmp_path, monkeypatch):
    """A Yosys that hangs in the front end ends at the front end's own default (made tiny here)."""
    from dcsflow.flow.build import BuildOptions, build

    src = tmp_path / "t.v"
    src.write_text("module t(input a, (* PARAM *) input k, output y); assign y = a ^ k; endmodule\n")
    fake = _exe(tmp_path / "yosys", "#!/bin/sh\nsleep 300\n")
    monkeypatch.setenv("DCSFLOW_YOSYS", str(fake))
    monkeypatch.setattr(limits, "FRONTEND_BASE_SECONDS", 0.5)
    monkeypatch.setattr(limits, "FRONTEND_SECONDS_PER_KIB", 0.0)
    t0 = time.perf_counter()
    with pytest.raises(tools.ToolTimeout) as ei:
        build(BuildOptions(design=str(src), out=tmp_path / "b", top="t", progress=False, stop="frontend", jobs=1))
    assert time.perf_counter() - t0 < 20
    size = src.stat().st_size
    assert str(ei.value).startswith("yosys (frontend") and \
        f"ran past its time limit of 1 s (the front end's default for {size} bytes of HDL)" in str(ei.value)


RUNAWAY = DATA / "hang" / "runaway.v"


def test_a_runaway_elaboration_ends_at_its_memory_limit(dcsflow, tmp_path):
    """Yosys elaborating an endless generate loop grows until the memory limit ends it (a few seconds
    at 192 MiB), in one line naming Yosys, the front end and the limit; nothing of it runs on."""
    t0 = time.perf_counter()
    r = dcsflow("build", RUNAWAY, "--out", tmp_path / "b", "--to", "frontend", "--quiet", "--max-memory", "192M",
                timeout=300)
    took = time.perf_counter() - t0
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 1 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert lines[0].startswith("error: yosys (frontend") and \
        lines[0].endswith(f"ran out of its memory limit of 192 MiB (--max-memory); {MEM_HOW}"), lines
    assert took < 120


def test_bad_max_memory_option_and_project_key_are_one_line(dcsflow, tmp_path):
    r = dcsflow("build", tmp_path / "x.v", "--max-memory", "lots", timeout=60)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "--max-memory" in lines[0] and "not a size" in lines[0], r.stderr
    (tmp_path / "t.v").write_text("module t(input a, output y); assign y = a; endmodule\n")
    p = tmp_path / "dcsflow.toml"
    for value, why in (('"lots"', "not a size"), ("0", "between 64 MiB"), ("true", "must be a size")):
        p.write_text(f'[design]\nname = "t"\nsources = ["t.v"]\n[build]\nmax_memory = {value}\n')
        r = dcsflow("build", "-p", p, "--out", tmp_path / "b", "--quiet", timeout=60)
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert r.returncode == 1 and len(lines) == 1 and str(p) in lines[0] and why in lines[0], r.stderr


def test_project_max_memory_applies_and_the_option_wins(tmp_path):
    from dcsflow.flow.design import design_time_limit
    from dcsflow.flow.project import load_project

    (tmp_path / "t.v").write_text("module t(input a, output y); assign y = a; endmodule\n")
    p = tmp_path / "dcsflow.toml"
    p.write_text('[design]\nname = "t"\nsources = ["t.v"]\n[build]\nmax_memory = "3G"\n')
    d = load_project(p)
    assert d.max_memory == 3 << 30
    with design_time_limit(d):
        assert limits.memory_limit_for("yosys") == (3 << 30, f"[build] max_memory in {p.resolve()}")
    with limits.memory_limit(1 << 30, "--max-memory"), design_time_limit(d):
        assert limits.memory_limit_for("yosys") == (1 << 30, "--max-memory")


# ------------------------------------------------------------------------------ dying with dcsflow

def _alive(pids) -> list[int]:
    return [p for p in pids if alive(p)]


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("whom", ["process", "group"])
def test_sigkill_of_dcsflow_during_a_yosys_run_leaves_no_process(tmp_path, jobs, whom):
    """``dcsflow build`` in its front end, Yosys (a fake that starts a child of its own and waits)
    running: SIGKILL of dcsflow (the process alone, or its whole process group as a terminal's
    kill would) ends Yosys, its child, dcsflow's workers and the watchdog within seconds."""
    started = tmp_path / "yosys.pids"
    fake = _exe(tmp_path / "yosys", f"#!/bin/sh\nsleep 300 &\necho $$ $! > '{started}'\nwait\n")
    src = tmp_path / "t.v"
    src.write_text("module t(input a, (* PARAM *) input k, output y); assign y = a ^ k; endmodule\n")
    p = subprocess.Popen([sys.executable, "-m", "dcsflow.flow", "build", str(src), "--top", "t", "--out",
                          str(tmp_path / "b"), "--quiet", "-j", jobs], env={**os.environ, "DCSFLOW_YOSYS": str(fake)},
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (started.exists() and len(started.read_text().split()) == 2) and time.monotonic() < deadline:
            assert p.poll() is None
            time.sleep(0.05)
        below = descendants(p.pid)
        assert {int(x) for x in started.read_text().split()} <= below
        if whom == "group":
            os.killpg(p.pid, signal.SIGKILL)
        else:
            p.send_signal(signal.SIGKILL)
        p.wait()
        deadline = time.monotonic() + 10
        while _alive(below) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _alive(below) == [], "left running after dcsflow was killed"
        assert session_processes(p.pid) == []
    finally:
        for pid in _alive(descendants(p.pid)) if p.poll() is None else []:
            os.kill(pid, signal.SIGKILL)
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


_WORKER_TOOL = """
import sys
from dcsflow.flow.jobs import Jobs
from dcsflow import tools

if __name__ == "__main__":
    with Jobs(2) as jobs:
        cmd = ["sh", "-c", f"sleep 300 & echo $$ $! > {sys.argv[1]}; wait"]
        jobs.submit("tool", tools.run_tool, cmd, tool="yosys").result()
"""


def test_a_worker_whose_build_was_killed_ends_its_tool(tmp_path):
    """SIGKILL of the process alone (its worker processes are not signalled): the worker running a
    tool sees its parent gone, ends the tool and itself."""
    script = tmp_path / "w.py"
    script.write_text(_WORKER_TOOL)
    pids = tmp_path / "tool.pids"
    p = subprocess.Popen([sys.executable, str(script), str(pids)], start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (pids.exists() and len(pids.read_text().split()) == 2) and time.monotonic() < deadline:
            time.sleep(0.05)
        below = descendants(p.pid)
        assert {int(x) for x in pids.read_text().split()} <= below
        p.send_signal(signal.SIGKILL)
        p.wait()
        deadline = time.monotonic() + 10
        while _alive(below) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _alive(below) == []
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
