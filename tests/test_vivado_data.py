"""Data behind the Vivado export: the Jinja2 templates (a variable the data lack is one clear error),
the board files (flow/boards/*.json, the --board choices) and the device facts (scg/devices.json).
The rendered files themselves are compared with golden files in tests/test_vivado_golden.py and
tests/test_vivado.py."""

from __future__ import annotations

import json
import shutil
import sys

import jinja2
import jinja2.meta
import pytest

from dcsflow.flow.backend import BackendError
from dcsflow.flow.backend import vivado
from dcsflow.flow.backend.vivado import (BOARDS_DIR, TEMPLATES_DIR, board_names, load_board, render,
                                         template_context, template_environment)
from dcsflow.scg import device as sd
from dcsflow.scg.bitstream import header_part
from dcsflow.scg.data import package_devices
from dcsflow.scg.errors import DeviceError


def _module() -> dict:
    """A small top with every port kind the templates look at: clock behind IBUF + BUFG, reset,
    one 8-bit parameter input."""
    ports = {"clk": {"direction": "input", "bits": [2]}, "rst": {"direction": "input", "bits": [3]},
             "key": {"direction": "input", "bits": list(range(10, 18))}, "q": {"direction": "output", "bits": [4]}}
    cells = {"ib": {"type": "IBUF", "connections": {"I": [2], "O": [5]}},
             "bg": {"type": "BUFG", "connections": {"I": [5], "O": [6]}}}
    return {"ports": ports, "cells": cells}


def _plan() -> list[dict]:
    return [{"cell": f"dcs_tlut_{i}", "tlut": f"t{i}", "k": 6, "site": "SLICE_X2Y4", "bel": f"{b}6LUT",
             "lock_pins": ",".join(vivado.lock_pins()), "pin_map": {}, "init": "0" * 16}
            for i, b in enumerate("AB")]


def _full_context() -> dict:
    """Context that takes every branch of every template (board with a block design, clock, reset),
    with the keys of a cfglut5 export (whose templates read them)."""
    board = load_board("pynq-z1")
    ctx = template_context("top_x", _module(), _plan(), board, board.part, "key")
    return {**vivado.cfglut_template_context(ctx, "top_x"), "cfglut": False}


def _templates() -> list[str]:
    """Every template: vivado/<file>.j2 and the templates the board files name (boards/<file>.j2)."""
    names = [f"vivado/{p.name}" for p in sorted(TEMPLATES_DIR.glob("*.j2"))]
    for b in board_names():
        bd = load_board(b)
        names += [f"boards/{t}" for t in (bd.block_design, bd.block_design_wrapper) if t]
    return sorted(set(names))


def _variables(name: str) -> set[str]:
    """Variables a template reads, those of the templates it includes too."""
    env = template_environment()
    ast = env.parse(env.loader.get_source(env, name)[0])
    out = set(jinja2.meta.find_undeclared_variables(ast))
    for inc in jinja2.meta.find_referenced_templates(ast):
        out |= _variables(inc)
    return out


def test_templates_are_found_and_named():
    names = _templates()
    assert {"vivado/constraints.xdc.j2", "vivado/tlut_placement.xdc.j2", "vivado/build.tcl.j2",
            "vivado/dump_tluts.tcl.j2", "boards/pynq-z1_bd.tcl.j2", "boards/dcs_axil_wrapper.v.j2"} <= set(names)
    env = template_environment()
    assert env.undefined is jinja2.StrictUndefined and env.keep_trailing_newline and not env.autoescape


@pytest.mark.parametrize("name", _templates())
def test_template_with_a_missing_variable_is_one_clear_error(name):
    """Each template renders from the full context; without any one of the variables it reads,
    rendering fails with one line naming the template and the variable (never an empty string)."""
    ctx = _full_context()
    variables = _variables(name)
    assert variables and variables <= set(ctx), f"{name} reads {sorted(variables - set(ctx))}, not in the context"
    full = render(name, ctx)
    assert full.endswith("\n") and "@" + "TOP@" not in full
    for v in sorted(variables):
        with pytest.raises(BackendError) as e:
            render(name, {k: x for k, x in ctx.items() if k != v})
        msg = str(e.value)
        assert f"'{v}' is undefined" in msg and msg.startswith("template ") and "\n" not in msg, msg
        assert name.split("/")[1] in msg, msg      # the template (the included one, for cells)


def test_missing_attribute_names_template_and_line():
    ctx = _full_context()
    board = ctx["board"]
    ctx["board"] = vivado.Board(**{**board.__dict__, "clock": {k: v for k, v in board.clock.items() if k != "pin"}})
    with pytest.raises(BackendError, match=r"^template vivado/constraints\.xdc\.j2 line \d+: .*no attribute 'pin'"):
        render("vivado/constraints.xdc.j2", ctx)
    with pytest.raises(BackendError, match="template vivado/nosuch.j2: not found"):
        render("vivado/nosuch.j2", ctx)


def test_template_syntax_error_is_one_line(monkeypatch, tmp_path):
    (tmp_path / "bad.j2").write_text("line one\n{% if x %}\nno endif\n")
    monkeypatch.setattr(vivado, "TEMPLATES_DIR", tmp_path)
    template_environment.cache_clear()
    try:
        with pytest.raises(BackendError, match=r"^template vivado/bad.j2 line \d+: .*endif"):
            render("vivado/bad.j2", {"x": 1})
    finally:
        template_environment.cache_clear()


def test_without_jinja2_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "jinja2", None)
    template_environment.cache_clear()
    try:
        with pytest.raises(BackendError, match=r"needs Jinja2: pip install 'dcsflow\[flow\]'"):
            render("vivado/build.tcl.j2", _full_context())
    finally:
        template_environment.cache_clear()


# ------------------------------------------------------------------------------------ boards
def test_board_files_and_cli_choices(dcsflow):
    names = board_names()
    assert names == sorted(p.stem for p in BOARDS_DIR.glob("*.json")) and {"pynq-z1", "arty-a7-35"} <= set(names)
    for n in names:
        b = load_board(n)
        assert b.name == n and b.device in sd.PARTS
    assert load_board("arty-a7-35").device == "xc7a35t" and load_board("pynq-z1").device == "xc7z020"
    assert load_board("pynq-z1").wrapper_name == "dcs_axil_wrapper.v" and load_board("arty-a7-35").block_design is None
    r = dcsflow("build", "--help")
    assert f"[{'|'.join(names)}]" in r.stdout.replace("\n", " ").replace(" ", "").replace("--board", "")


def test_unknown_and_malformed_board(monkeypatch, tmp_path):
    with pytest.raises(BackendError, match=r"unknown board 'nope'; boards: arty-a7-35, pynq-z1"):
        load_board("nope")
    for f in BOARDS_DIR.iterdir():
        shutil.copy(f, tmp_path / f.name)
    monkeypatch.setattr(vivado, "BOARDS_DIR", tmp_path)
    d = json.loads((tmp_path / "pynq-z1.json").read_text())
    for change, words in [({"version": 1}, "not a dcsflow-board v2 file"),
                          ({"block_design": "missing.tcl.j2"}, "'missing.tcl.j2': not a .j2 file"),
                          ({"block_design_wrapper": None}, "both template names or both null"),
                          ({"hwicap_base": None}, "needs hwicap_base"),
                          ({"clock": {k: v for k, v in d["clock"].items() if k != "period_ns"}}, "period_ns"),
                          ({"reset": dict(d["reset"], active_low="yes")}, "active_low")]:
        (tmp_path / "bad.json").write_text(json.dumps({**d, **change}))
        with pytest.raises(BackendError) as e:
            load_board("bad")
        assert "malformed board file" in str(e.value) and words in str(e.value) and "\n" not in str(e.value)


def test_cli_board_errors_are_one_line(dcsflow, tmp_path):
    r = dcsflow("build", "tests/data/flow/keyxor.v", "--out", tmp_path / "x", "--backend", "vivado",
                "--board", "pynq-z1", "--device", "xc7a35t")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip() == ("error: board pynq-z1 carries xc7z020, --device is xc7a35t "
                                "(leave --device out or use --device xc7z020)"), r.stderr
    assert not (tmp_path / "x").exists()
    r = dcsflow("build", "tests/data/flow/keyxor.v", "--out", tmp_path / "x", "--backend", "vivado",
                "--board", "zedboard")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "Invalid value for '--board': 'zedboard' is not one of 'arty-a7-35', 'pynq-z1'" in r.stderr, r.stderr


# ------------------------------------------------------------------------------------ device facts
def test_device_facts_file():
    d = json.loads((sd.resources.files("dcsflow.scg") / "devices.json").read_text())
    assert (d["format"], d["version"]) == ("dcsflow-devices", 2)
    assert sd.PARTS == tuple(d["devices"]) and sd.DEFAULT_PART == d["default"] == "xc7z020"
    assert set(sd.PARTS) == set(package_devices())       # every listed part has its Project X-Ray data
    for p in sd.PARTS:
        f = sd.device_facts(p)
        assert f.vivado_part.startswith(p) and p[2:] in f.bit_part
        assert (sd.resources.files("dcsflow.scg") / "xc7" / p / f.clb_sites).is_file()
        dev = sd.get_device(p)
        assert header_part(dev) == f.bit_part and sd.device_facts(f.bit_part) == f
    assert sd.device_facts("XC7A35T-CSG324").vivado_part == "xc7a35ticsg324-1L"
    assert sd.device_facts("xc7z020").processor == "Cortex-A9" and sd.device_facts("xc7a35t").processor is None
    assert header_part(sd.get_device("xc7z020")) == "7z020clg400"
    assert sd.device_facts("xc7z020").vivado_part == "xc7z020clg400-1"
    with pytest.raises(DeviceError, match="unsupported part 'xc7k325t'"):
        sd.device_facts("xc7k325t")


def test_device_resources_agree_with_the_slice_structure_and_the_site_model():
    """The data sheet counts of devices.json hold UG474's slice structure (4 LUTs, a CARRY4, two
    MUXF7 and a MUXF8 per slice; 4 memory LUTs per SLICEM; a RAMB36 is two RAMB18), and never offer
    more slices or SLICEMs than the device model's Project X-Ray site list holds."""
    import collections

    for p in sd.PARTS:
        f = sd.device_facts(p)
        r = f.resources
        assert set(r) == set(sd.RESOURCES) and f.resources_source
        assert r["luts"] == 4 * r["slices"] and r["carry4"] == r["slices"] == r["muxf8"]
        assert r["muxf7"] == 2 * r["slices"] and r["lutram"] == 4 * r["slicem"] and r["ramb18"] == 2 * r["ramb36"]
        kinds = collections.Counter(s.kind for s in sd.get_device(p).sites.values())
        assert r["slices"] <= sum(kinds.values()) and r["slicem"] <= kinds["SLICEM"]
        assert (f.processor == "Cortex-A9") == (f.family == "zynq-7000")
