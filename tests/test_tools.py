"""The external-tool locator (dcsflow.tools): environment overrides, PATH look-up, one-line errors,
and the look-ups of the flow, tmap and the designs that go through it."""

from __future__ import annotations

import os
import stat

import pytest

from dcsflow import steps, tools
from dcsflow.tools import TOOLS, ToolMissing, find_tool, has_tool, tool_env_var, which_tool

ENV = {"yosys": "DCSFLOW_YOSYS", "yosys-config": "DCSFLOW_YOSYS_CONFIG", "abc": "DCSFLOW_ABC",
       "ghdl": "DCSFLOW_GHDL", "iverilog": "DCSFLOW_IVERILOG", "vvp": "DCSFLOW_VVP",
       "verilator": "DCSFLOW_VERILATOR"}
PACKAGE = {"yosys": "yosys", "yosys-config": "yosys-dev", "abc": "yosys", "ghdl": "ghdl", "iverilog": "iverilog",
           "vvp": "iverilog", "verilator": "verilator"}


def _exe(folder, name: str):
    """An executable file ``folder/name``."""
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_text("#!/bin/sh\nexit 0\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return p


@pytest.fixture
def bare_env(monkeypatch, tmp_path):
    """No tool override set and PATH = one empty folder (returned): no tool is found."""
    for var in ENV.values():
        monkeypatch.delenv(var, raising=False)
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return empty


def test_one_variable_per_tool():
    assert {name: t.env for name, t in TOOLS.items()} == ENV
    assert all(tool_env_var(n) == v for n, v in ENV.items())
    assert ToolMissing.user_error is True
    with pytest.raises(ValueError, match="unknown tool 'quartus'"):
        find_tool("quartus")


@pytest.mark.parametrize("name", sorted(ENV))
def test_missing_tool_message_names_tool_variable_and_package(bare_env, name):
    with pytest.raises(ToolMissing) as ei:
        find_tool(name)
    msg = str(ei.value)
    assert "\n" not in msg
    assert msg.startswith(name) and ENV[name] in msg and f"'{PACKAGE[name]}'" in msg
    assert which_tool(name) is None and not has_tool(name)


@pytest.mark.parametrize("name", sorted(ENV))
def test_override_is_honoured(bare_env, monkeypatch, tmp_path, name):
    exe = _exe(tmp_path / "opt", f"my-{name}")
    monkeypatch.setenv(ENV[name], str(exe))
    assert find_tool(name) == str(exe)
    assert has_tool(name)


def test_override_may_name_a_command_on_path(bare_env, monkeypatch):
    exe = _exe(bare_env, "yosys-0.23")
    monkeypatch.setenv("DCSFLOW_YOSYS", "yosys-0.23")
    assert find_tool("yosys") == str(exe)


def test_override_to_a_missing_file_is_an_error_not_a_fallback(bare_env, monkeypatch, tmp_path):
    _exe(bare_env, "yosys-abc")                      # ABC is on PATH ...
    assert find_tool("abc") == str(bare_env / "yosys-abc")
    missing = tmp_path / "nowhere" / "abc"
    monkeypatch.setenv("DCSFLOW_ABC", str(missing))  # ... but the override names nothing
    for call in (find_tool, which_tool, has_tool):
        with pytest.raises(ToolMissing) as ei:
            call("abc")
        msg = str(ei.value)
        assert "\n" not in msg and msg.startswith(f"DCSFLOW_ABC={missing}:") and "abc" in msg


def test_override_to_a_file_that_is_not_executable(bare_env, monkeypatch, tmp_path):
    f = tmp_path / "ghdl"
    f.write_text("not a program\n")
    monkeypatch.setenv("DCSFLOW_GHDL", str(f))
    with pytest.raises(ToolMissing, match="DCSFLOW_GHDL=.*no such executable"):
        find_tool("ghdl")


def test_abc_command_order(bare_env):
    _exe(bare_env, "berkeley-abc")
    assert find_tool("abc") == str(bare_env / "berkeley-abc")
    _exe(bare_env, "abc")
    assert find_tool("abc") == str(bare_env / "abc")
    _exe(bare_env, "yosys-abc")
    assert find_tool("abc") == str(bare_env / "yosys-abc")


def test_locator_is_standard_library_only():
    import ast

    import sys

    for mod in (tools, steps):
        tree = ast.parse(open(mod.__file__).read())
        mods = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        mods |= {n.module.split(".")[0] for n in ast.walk(tree)
                 if isinstance(n, ast.ImportFrom) and n.module and not n.level}
        rel = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level}
        assert mods <= set(sys.stdlib_module_names) | {"__future__"}, mods
        assert rel <= {"steps", None}, rel


# ---- the look-ups of the flow, tmap and the designs go through the locator

def test_flow_and_tmap_lookups_use_the_locator(bare_env, monkeypatch, tmp_path):
    from dcsflow.flow import vhdl, yosys
    from dcsflow.tmap import abc

    assert yosys.ToolMissing is ToolMissing
    for fn, name in ((yosys.yosys_binary, "yosys"), (abc.abc_binary, "abc"), (vhdl._ghdl, "ghdl")):
        with pytest.raises(ToolMissing, match=ENV[name]):
            fn()
        exe = _exe(tmp_path / "bin", f"x-{name}")
        monkeypatch.setenv(ENV[name], str(exe))
        assert fn() == str(exe)


def test_yosys_datdir_honours_the_yosys_config_override(bare_env, monkeypatch, tmp_path):
    from dcsflow.flow import yosys

    monkeypatch.setenv("DCSFLOW_YOSYS_CONFIG", str(tmp_path / "no-yosys-config"))
    with pytest.raises(ToolMissing, match="DCSFLOW_YOSYS_CONFIG="):
        yosys.datdir()
    share = tmp_path / "share" / "yosys"
    share.mkdir(parents=True)
    cfg = tmp_path / "bin" / "yosys-config"
    cfg.parent.mkdir()
    cfg.write_text(f"#!/bin/sh\necho {share}\n")
    cfg.chmod(0o755)
    monkeypatch.setenv("DCSFLOW_YOSYS_CONFIG", str(cfg))
    assert yosys.datdir() == share


@pytest.mark.parametrize("design", ["picipher", "aes128"])
def test_design_simulators_raise_a_simulation_error_that_is_tool_missing(bare_env, design):
    """The designs' simulations go through the flow's one Icarus runner; a missing Icarus is the
    design's SimulationError and a ToolMissing, with the locator's message."""
    import importlib

    sim = importlib.import_module(f"dcsflow.designs.{design}.sim")
    errors = importlib.import_module(f"dcsflow.designs.{design}.errors")
    with pytest.raises(errors.SimulationError) as ei:
        if design == "picipher":
            sim.simulate([sim.SimMessage(bytes(12), bytes(4), b"")], 96)
        else:
            sim.simulate_groups([(bytes(16), [bytes(16)])], sim.rtl_files(), "aes128_iter", key_table=1)
    assert isinstance(ei.value, ToolMissing)
    assert str(ei.value) == TOOLS["iverilog"].missing_message()


def test_picipher_synth_counts_honours_dcsflow_yosys(bare_env, monkeypatch, tmp_path):
    from dcsflow.designs.picipher.errors import SimulationError
    from dcsflow.designs.picipher.synth import synth_counts

    monkeypatch.setenv("DCSFLOW_YOSYS", str(tmp_path / "missing-yosys"))
    with pytest.raises(SimulationError, match="DCSFLOW_YOSYS=") as ei:
        synth_counts()
    assert isinstance(ei.value, ToolMissing)


def test_cli_prints_a_missing_tool_as_one_line(dcsflow, tmp_path):
    env = {**os.environ, "DCSFLOW_IVERILOG": str(tmp_path / "no-iverilog")}
    r = dcsflow("sim", "picipher", env=env)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "DCSFLOW_IVERILOG=" in lines[0], r.stderr


# ---- run_tool: every external run recorded, time limits, ending every child

def test_run_tool_records_wall_cpu_and_failure_under_the_current_step():
    rec = steps.Recorder()
    with steps.recording(rec, "build"):
        with steps.step("work", "two runs"):
            ok = tools.run_tool(["python3", "-c", "sum(range(3 * 10**6)); print('done')"], tool="py", what="burn")
            bad = tools.run_tool(["sh", "-c", "echo out; echo err >&2; exit 3"], tool="sh")
    assert ok.returncode == 0 and ok.stdout == "done\n" and ok.cpu > 0.01
    assert bad.returncode == 3 and bad.stdout == "out\n" and bad.stderr == "err\n"
    by = {r["path"]: r for r in rec.as_list()}
    assert set(by) == {"build/work", "build/work/py", "build/work/sh"}
    assert by["build/work/py"]["kind"] == "tool" and by["build/work/py"]["what"] == "burn"
    assert by["build/work/sh"]["failed"] == "exited with status 3" and by["build/work/py"]["failed"] is None
    # the step's CPU holds its children's (other processes) besides its own thread's
    assert by["build/work"]["cpu"] >= by["build/work/py"]["cpu"] - 0.001
    assert by["build/work"]["wall"] >= by["build/work/py"]["wall"] + by["build/work/sh"]["wall"] - 0.002


def test_run_tool_outside_a_recording_records_nothing_and_merges_stderr():
    r = tools.run_tool(["sh", "-c", "echo a; echo b >&2"], tool="sh", merge_stderr=True)
    assert sorted(r.stdout.split()) == ["a", "b"] and r.stderr == ""
    assert not steps.active()


def test_run_tool_time_limit_kills_the_program():
    import time

    t0 = time.perf_counter()
    with pytest.raises(tools.ToolTimeout, match=r"^sleep ran past its time limit of 0\.3 s "):
        tools.run_tool(["sleep", "30"], tool="sleep", timeout=0.3)
    assert time.perf_counter() - t0 < 5


def test_terminate_children_ends_runs_in_other_threads():
    import threading
    import time

    got = []
    th = threading.Thread(target=lambda: got.append(tools.run_tool(["sleep", "30"], tool="sleep")))
    th.start()
    for _ in range(200):
        if tools._RUNNING:
            break
        time.sleep(0.01)
    tools.terminate_children()
    th.join(10)
    assert not th.is_alive() and got and got[0].returncode != 0


def test_steps_in_threads_count_toward_the_step_that_started_them():
    from concurrent.futures import ThreadPoolExecutor

    def burn():
        with steps.step("burn"):
            sum(range(2 * 10**6))

    rec = steps.Recorder()
    with steps.recording(rec):
        with steps.step("outer"):
            with ThreadPoolExecutor(2) as ex:
                for f in [ex.submit(steps.bind(burn)) for _ in range(2)]:
                    f.result()
    recs = rec.as_list()
    outer = next(r for r in recs if r["path"] == "outer")
    burns = [r for r in recs if r["path"] == "outer/burn"]
    assert len(burns) == 2
    assert outer["cpu"] >= sum(b["cpu"] for b in burns) - 0.001
    assert steps.slowest(recs, 5, exclude_depth=0)[0]["path"] == "outer/burn"


def test_a_failing_step_is_recorded_with_its_reason():
    rec = steps.Recorder()
    with pytest.raises(ValueError):
        with steps.recording(rec):
            with steps.step("s"):
                raise ValueError("bad thing\nmore")
    assert rec.as_list()[0]["failed"] == "bad thing"
