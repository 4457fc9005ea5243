"""Every external tool run has a time limit; a run past it ends the command in one line.

The limits (:mod:`dcsflow.limits`): a default per tool, one override per process (``--timeout``,
a project's ``[build] timeout``; the command line wins). A run past its limit is killed with its
whole process group and raises :class:`dcsflow.tools.ToolTimeout`, whose one line names the tool,
the step and the limit. Hanging tools are fakes (shell scripts that sleep) put in place through the
locator's environment overrides (``DCSFLOW_YOSYS``, ``DCSFLOW_ABC``); the hanging test bench is
``tests/data/hang``, a cocotb test that never returns.
"""

from __future__ import annotations

import os
import pickle
import stat
import time
from pathlib import Path

import pytest

from dcsflow import limits, steps, tools

DATA = Path(__file__).parent / "data"
HOW = "raise it with --timeout SECONDS or [build] timeout in dcsflow.toml"


def _exe(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _hanging(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A fake tool that prints a line, starts a child that sleeps (its pid in ``<name>.pids``, with
    its own) and waits for it: ending only the fake would leave the child running."""
    pids = tmp_path / f"{name}.pids"
    fake = _exe(tmp_path / name, f"#!/bin/sh\necho 'fake {name} starts'\nsleep 300 &\n"
                                 f"echo $$ $! > '{pids}'\nwait\n")
    return fake, pids


def _gone(pids: Path, within: float = 5.0) -> bool:
    """True when every process named in ``pids`` has ended (zombies count as ended)."""
    nums = [int(x) for x in pids.read_text().split()]
    end = time.monotonic() + within
    while time.monotonic() < end:
        if not any(tools._alive(n) for n in nums):
            return True
        time.sleep(0.05)
    return False


def _one_error(r) -> str:
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "Traceback" not in r.stderr
    return lines[0]


# ------------------------------------------------------------------------------ limits and run_tool

def test_each_tool_has_a_default_and_the_override_replaces_it():
    assert limits.get_time_limit() is None
    assert limits.limit_for("yosys") == (3600.0, "the default for yosys")
    assert limits.limit_for("abc")[0] == 1800.0 and limits.limit_for("cocotb")[0] == 600.0
    assert limits.limit_for("something-new")[0] == limits.FALLBACK_LIMIT
    with limits.time_limit(5, "--timeout"):
        assert limits.limit_for("yosys") == (5.0, "--timeout")
        assert limits.limit_for("abc", budget=60) == (5.0, "--timeout")     # a lower override wins
        assert limits.limit_for("abc", budget=2)[0] == 2.0                  # a budget below it stays
        with limits.time_limit(None):
            assert limits.limit_for("vvp") == (5.0, "--timeout")            # None keeps the override
    assert limits.get_time_limit() is None                                  # restored on the way out


@pytest.mark.parametrize("value", [0, -1, 0.05, "abc", "", float("inf"), float("nan"), True, 10**7, None])
def test_bad_time_limits_are_refused_in_one_line(value):
    with pytest.raises(limits.TimeLimitError) as ei:
        limits.check_time_limit(value, "--timeout")
    msg = str(ei.value)
    assert msg.startswith("--timeout: ") and "\n" not in msg
    assert ei.value.user_error


def test_good_time_limits_are_read():
    assert limits.check_time_limit("2.5") == 2.5 and limits.check_time_limit(60) == 60.0
    assert limits.check_time_limit(limits.MAX_TIME_LIMIT) == limits.MAX_TIME_LIMIT


def test_a_run_past_its_limit_is_killed_with_what_it_started(tmp_path):
    fake, pids = _hanging(tmp_path, "slowtool")
    rec = steps.Recorder()
    t0 = time.perf_counter()
    with steps.recording(rec), steps.step("frontend"), limits.time_limit(0.5, "--timeout"):
        with pytest.raises(tools.ToolTimeout) as ei:
            tools.run_tool([str(fake)], tool="yosys", what="synth")
    assert time.perf_counter() - t0 < 5
    assert str(ei.value) == f"yosys (frontend: synth) ran past its time limit of 0.5 s (--timeout); {HOW}"
    assert ei.value.user_error and ei.value.seconds == 0.5
    assert _gone(pids), "the tool or its child still runs"
    (run,) = [r for r in rec.as_list() if r["kind"] == "tool"]
    assert run["path"] == "frontend/yosys" and run["failed"] == "timed out after 0.5 s"


def test_a_run_within_its_limit_is_not_touched():
    with limits.time_limit(5):
        r = tools.run_tool(["sh", "-c", "echo ok"], tool="yosys")
    assert r.returncode == 0 and r.stdout == "ok\n" and not r.timed_out


def test_the_timeout_error_crosses_process_boundaries():
    from dcsflow.tmap.errors import ToolError, ToolTimeout

    for e in (tools.ToolTimeout("abc", "tmap", 3.0, "--timeout"), ToolTimeout("abc", "tmap", 3.0, "--timeout")):
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is type(e) and str(back) == str(e)
    assert issubclass(ToolTimeout, ToolError) and issubclass(ToolTimeout, tools.ToolTimeout)


def test_abc_past_its_limit_is_the_mappers_timeout(tmp_path, monkeypatch):
    from dcsflow.tmap.abc import run_abc
    from dcsflow.tmap.errors import ToolTimeout

    fake, pids = _hanging(tmp_path, "abc")
    monkeypatch.setenv("DCSFLOW_ABC", str(fake))
    with limits.time_limit(0.5), pytest.raises(ToolTimeout, match=r"^abc \(strash\) ran past its time limit of "
                                                                   r"0\.5 s \(--timeout\); raise it"):
        run_abc("strash")
    assert _gone(pids)


def test_build_workers_get_the_limit_of_the_build():
    from dcsflow.flow.jobs import Jobs

    with limits.time_limit(7, "--timeout"):
        with Jobs(2) as runner:
            got = runner.submit("limit", limits.get_time_limit).result()
    assert got == (7.0, "--timeout")


def test_the_command_line_wins_over_the_project():
    from dcsflow.flow.design import Design, design_time_limit

    d = Design(name="d", top=None, sources=(), timeout=9.0, project=Path("/p/dcsflow.toml"))
    with design_time_limit(d):
        assert limits.get_time_limit() == (9.0, "[build] timeout in /p/dcsflow.toml")
    with limits.time_limit(3, "--timeout"), design_time_limit(d):
        assert limits.get_time_limit() == (3.0, "--timeout")
    assert limits.get_time_limit() is None


# ------------------------------------------------------------------------------ the command line

SRC = "module t(input a, (* PARAM *) input k, output y); assign y = a ^ k; endmodule\n"


def test_build_with_a_hanging_yosys_ends_at_its_timeout(dcsflow, tmp_path):
    (tmp_path / "t.v").write_text(SRC)
    fake, pids = _hanging(tmp_path, "yosys")
    t0 = time.perf_counter()
    r = dcsflow("build", tmp_path / "t.v", "--top", "t", "--out", tmp_path / "b", "--quiet", "--timeout", "1",
                env={**os.environ, "DCSFLOW_YOSYS": str(fake)}, timeout=60)
    assert time.perf_counter() - t0 < 20
    line = _one_error(r)
    assert line.startswith("error: yosys (frontend") and line.endswith(f"ran past its time limit of 1 s (--timeout); {HOW}")
    assert _gone(pids)


def test_a_new_limit_does_not_make_the_build_run_its_stages_again(dcsflow, tmp_path):
    (tmp_path / "t.v").write_text(SRC)
    out = tmp_path / "b"
    r = dcsflow("build", tmp_path / "t.v", "--top", "t", "--out", out, "--quiet", "--to", "frontend", timeout=300)
    assert r.returncode == 0, r.stderr
    front = (out / "stages" / "frontend.json").read_bytes()
    stamp = (out / "stages" / "frontend.json").stat().st_mtime_ns
    r = dcsflow("build", tmp_path / "t.v", "--top", "t", "--out", out, "--quiet", "--from", "tmap", "--to", "tmap",
                "--baselines", "yosys-abc", "--no-static-remap", "--timeout", "600", timeout=300)
    assert r.returncode == 0, r.stderr
    assert (out / "stages" / "frontend.json").read_bytes() == front
    assert (out / "stages" / "frontend.json").stat().st_mtime_ns == stamp      # the front end did not run again
    assert (out / "stages" / "tmap.json").is_file()


@pytest.mark.parametrize("value, why", [("0", "between 0.1 and 604800"), ("soon", "a number of seconds"),
                                        ("1e9", "between 0.1 and 604800")])
@pytest.mark.parametrize("command", ["build", "check", "map"])
def test_bad_timeout_option_is_one_line(dcsflow, tmp_path, command, value, why):
    r = dcsflow(command, tmp_path / "x", "--timeout", value, timeout=60)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "--timeout" in lines[0] and why in lines[0], r.stderr


def _project(tmp_path: Path, build: str) -> Path:
    (tmp_path / "t.v").write_text(SRC)
    p = tmp_path / "dcsflow.toml"
    p.write_text(f'[design]\nname = "t"\ntop = "t"\nsources = ["t.v"]\n[build]\n{build}\n')
    return p



@pytest.mark.parametrize("value, why", [("0", "between 0.1 and 604800"), ('"60"', "must be a number"),
                                        ("true", "must be a number"), ("1e9", "between 0.1 and 604800"),
                                        ("nan", "between 0.1 and 604800")])
def test_bad_project_timeout_is_one_line(dcsflow, tmp_path, value, why):
    p = _project(tmp_path, f"timeout = {value}")
    r = dcsflow("build", "-p", p, "--out", tmp_path / "b", "--quiet", timeout=60)
    line = _one_error(r)
    assert str(p) in line and why in line, line


def test_project_timeout_limits_the_build_and_the_option_wins(dcsflow, tmp_path):
    from dcsflow.flow.project import load_project

    p = _project(tmp_path, "timeout = 1")
    assert load_project(p).timeout == 1.0
    assert load_project(_project(tmp_path, "timeout = 2.5")).timeout == 2.5
    p = _project(tmp_path, "timeout = 1")
    fake, pids = _hanging(tmp_path, "yosys")
    env = {**os.environ, "DCSFLOW_YOSYS": str(fake)}
    r = dcsflow("build", "-p", p, "--out", tmp_path / "b", "--quiet", env=env, timeout=60)
    assert f"ran past its time limit of 1 s ([build] timeout in {p.resolve()}); {HOW}" in _one_error(r)
    assert _gone(pids)
    p = _project(tmp_path, "timeout = 600")
    t0 = time.perf_counter()
    r = dcsflow("build", "-p", p, "--out", tmp_path / "b", "--quiet", "--timeout", "1", env=env, timeout=60)
    assert time.perf_counter() - t0 < 20
    assert "ran past its time limit of 1 s (--timeout)" in _one_error(r)


# ------------------------------------------------------------------------------ a hanging test bench

@pytest.fixture(scope="module")
def hang_build(builds):
    pytest.importorskip("cocotb_tools.runner")
    return builds.get("hang", design=None, project=DATA / "hang" / "dcsflow.toml", frontend_check=False, baselines=("yosys-abc",),
                      static_remap=False)


def _marked(mark: str) -> list[int]:
    """Processes of this user whose environment holds ``mark`` (``NAME=value``)."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if mark.encode() in (d / "environ").read_bytes().split(b"\0") and tools._alive(int(d.name)):
                    found.append(int(d.name))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("busy", ["0", "1"])
def test_check_ends_a_test_bench_that_never_returns(dcsflow, hang_build, busy):
    import uuid

    mark = f"HANG_MARK={uuid.uuid4().hex}"      # inherited by the cocotb run and its simulator
    t0 = time.perf_counter()
    r = dcsflow("check", hang_build, "--quiet", "--keys", "5", "--timeout", "2",
                env={**os.environ, "HANG_BUSY": busy, mark.split("=")[0]: mark.split("=")[1]}, timeout=120)
    took = time.perf_counter() - t0
    line = _one_error(r)
    assert line.startswith("error: cocotb test bench test_hang.py (check, key=")
    assert line.endswith(f"ran past its time limit of 2 s (--timeout); {HOW}")
    assert took < 15, took          # 5 values, at most 4 at a time: one limit, not one per value
    assert "passed" not in r.stdout
    assert _marked(mark) == [], "a simulator of the check still runs"
