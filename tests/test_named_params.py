"""Named parameter values (``--param NAME=TEXT``, :class:`dcsflow.flow.design.NamedParam`): the
generic expansion to ``PORT=HEX``, the ``dcsflow rekey`` argument rewrite, and the PPE's
``program`` converter (a π program's name or file -> ``prog_image``/``coef_image``)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from dcsflow.flow.design import Design, NamedParam, NamedParamError, expand_named_params
from dcsflow.scg.params import parse_param_args


def _design(conv):
    return Design(name="stub", top="t", sources=(), named_params=(NamedParam("prog", ("a", "b"), conv),))


def test_expansion_formats_hex_for_the_parser_and_keeps_other_items():
    d = _design(lambda text, ports: {"a": int(text), "b": 0x5})
    ports = {"a": 12, "b": 8, "k": 4}
    items = expand_named_params(d, ["k=3", "prog=2748"], ports)
    assert items == ["k=3", "a=abc", "b=05"]
    # the runtime's own parser takes them: the values round-trip
    assert parse_param_args(items, ports) == {"a": 2748, "b": 5, "k": 3}
    # a reader whose port is narrower (PPC without inputs for the top bits) gets the value cut
    assert expand_named_params(d, ["prog=4095"], ports, {"a": 10}) == ["a=3ff", "b=05"]


def test_expansion_errors_are_one_line():
    with pytest.raises(NamedParamError, match="does not fit its 4 bits"):
        expand_named_params(_design(lambda t, p: {"a": 16}), ["prog=x"], {"a": 4})
    with pytest.raises(NamedParamError, match="'z', which is no parameter"):
        expand_named_params(_design(lambda t, p: {"z": 1}), ["prog=x"], {"a": 4})
    # a build port of the same name wins over the named value; no design: unchanged
    assert expand_named_params(_design(lambda t, p: {"a": 1}), ["prog=1"], {"prog": 4}) == ["prog=1"]
    assert expand_named_params(None, ["prog=1"], {"a": 4}) == ["prog=1"]


def test_rekey_arguments_rewritten_for_the_builds_design(tmp_path, monkeypatch):
    from dcsflow.flow import registry
    from dcsflow.flow.commands import rekey
    from dcsflow.scg import buildfolder

    (tmp_path / "build.json").write_text(json.dumps({"params": {"a": 12, "b": 8}}))
    monkeypatch.setattr(registry, "design_of", lambda m, p="": _design(lambda t, ports: {"a": 0x123, "b": 1}))
    monkeypatch.setattr(buildfolder, "load_build", lambda p: SimpleNamespace(ports={"a": 12, "b": 8}))
    got = rekey.expand_args(["--to", "emulator", str(tmp_path), "--param", "prog=x", "--json"])
    assert got == ["--to", "emulator", str(tmp_path), "--param", "a=123", "--param", "b=01", "--json"]
    assert rekey.expand_args([str(tmp_path), "--param=prog=x"]) == [str(tmp_path), "--param=a=123", "--param=b=01"]
    assert rekey.expand_args(["--help"]) == ["--help"]
    assert rekey.expand_args([str(tmp_path / "missing"), "--param", "prog=x"]) == \
        [str(tmp_path / "missing"), "--param", "prog=x"]


def test_rekey_applies_the_designs_parameter_transform(monkeypatch):
    """``dcsflow rekey --param key=HEX`` on a build whose design derives a further circuit
    parameter (as a GCM core's H from its key): the transform computes it; every circuit parameter
    given is the runtime's form and is kept; a value of the wrong width is the parser's error."""
    from dcsflow.flow import registry
    from dcsflow.flow.commands import rekey
    from dcsflow.flow.design import ParamTransform
    from dcsflow.scg.params import ParamValueError

    d = Design(name="stub", top="t", sources=(),
               transform=ParamTransform({"key": 8}, lambda u: {"key": u["key"], "h": u["key"] ^ 0xFF}))
    monkeypatch.setattr(registry, "design_of", lambda m, p="": d)
    manifest = {"params": {"key": 8, "h": 8}, "user_params": {"key": 8}}
    got = rekey._transformed(["key=3c"], manifest, "b")
    assert sorted(got) == [("h", 0xC3), ("key", 0x3C)]
    assert parse_param_args(got, manifest["params"]) == {"key": 0x3C, "h": 0xC3}
    assert rekey._transformed(["key=3c", "h=01"], manifest, "b") == ["key=3c", "h=01"]
    assert rekey._transformed(["key=3c"], {"params": {"key": 8, "h": 8}, "user_params": None}, "b") == ["key=3c"]
    with pytest.raises(ParamValueError, match="expected 8 bits"):
        rekey._transformed(["key=3"], manifest, "b")


def test_rekey_arguments_for_the_board_get_the_transformed_parameters(tmp_path, monkeypatch):
    """The command line for the runtime on a board (which knows no designs): the user's key is
    replaced by every circuit parameter the transform computes, in the place of the first
    ``--param``; other words stay; a build given every circuit parameter is left as written."""
    from dcsflow.flow import registry
    from dcsflow.flow.commands import rekey
    from dcsflow.flow.design import ParamTransform

    d = Design(name="stub", top="t", sources=(),
               transform=ParamTransform({"key": 8}, lambda u: {"key": u["key"], "h": u["key"] ^ 0xFF}))
    (tmp_path / "build.json").write_text(json.dumps({"params": {"key": 8, "h": 12}, "user_params": {"key": 8}}))
    monkeypatch.setattr(registry, "design_of", lambda m, p="": d)
    got = rekey.expand_args(["--to", "emulator", str(tmp_path), "--param", "key=3c", "--json"])
    assert got == ["--to", "emulator", str(tmp_path), "--param", "key=3c", "--param", "h=0c3", "--json"]
    assert rekey.expand_args([str(tmp_path), "--param=key=01"]) == [str(tmp_path), "--param", "key=01",
                                                                      "--param", "h=0fe"]
    full = [str(tmp_path), "--param", "key=01", "--param", "h=000"]
    assert rekey.expand_args(full) == full


def test_dcsflow_rekey_bad_program_is_one_line(dcsflow, tmp_path):
    """Through the CLI, on a folder whose build.json names the installed ``ppe`` design: the value is
    converted before the runtime opens the build, so a bad program is the error reported."""
    b = tmp_path / "b"
    b.mkdir()
    (b / "build.json").write_text(json.dumps({"params": {"prog_image": 256 * 64, "coef_image": 4096},
                                              "design_source": {"kind": "installed", "name": "ppe"}}))
    r = dcsflow("rekey", b, "--param", "program=pi99")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        "error: --param program: the value (4 characters, not shown) is no bundled program "
        "(bmw512, pi16, pi32, pi64) and no existing file"]
    bad = tmp_path / "bad.s"
    bad.write_text("  nop\n  frob r1\n")
    r = dcsflow("rekey", b, f"--param=program={bad}")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and f"{bad}:2: " in r.stderr
    # a good program gets past the conversion; the runtime then refuses this unfinished folder
    r = dcsflow("rekey", b, "--param", "program=pi16")
    assert r.returncode == 1 and r.stderr.strip().splitlines() == [f"error: {b / 'build.json'}: not a dcsflow-build manifest"]


PORTS = {"prog_image": 256 * 64, "coef_image": 64 * 64}


def test_ppe_program_values_from_name_or_file():
    from dcsflow.designs.ppe.asm import assemble_file
    from dcsflow.designs.ppe.params import PROGRAMS, program_values

    a = program_values("pi32", PORTS)
    assert a == program_values("pi32.s", PORTS) == program_values(str(PROGRAMS / "pi32.s"), PORTS)
    p = assemble_file(PROGRAMS / "pi32.s", imem_depth=256)
    img = a["prog_image"]
    assert [(img >> (64 * i)) & ((1 << 64) - 1) for i in range(len(p.words))] == p.words
    assert img >> (64 * len(p.words)) == 0                    # the rest of the memory is no-ops (0)
    assert [(a["coef_image"] >> (64 * i)) & ((1 << 64) - 1) for i in range(64)] == p.coef
    assert program_values("pi16", PORTS) != a


def test_ppe_program_errors(tmp_path):
    from dcsflow.designs.ppe.params import program_values

    with pytest.raises(NamedParamError, match=r"program: the value \(4 characters, not shown\) is no bundled program .*pi16, pi32, pi64"):
        program_values("pi99", PORTS)
    bad = tmp_path / "bad.s"
    bad.write_text("  nop\n  frob r1, r2\n")
    with pytest.raises(NamedParamError, match=r"bad.s:2: "):
        program_values(str(bad), PORTS)
    with pytest.raises(NamedParamError, match="needs|memory holds"):
        program_values("pi16", {"prog_image": 16 * 64, "coef_image": 4096})
    with pytest.raises(NamedParamError, match="no PPE program parameters"):
        program_values("pi16", {"key": 128})



def test_ppe_design_offers_program_and_designs_json_lists_it(dcsflow):
    from dcsflow.flow.registry import installed

    d = installed()["ppe"]
    assert [(n.name, n.sets) for n in d.named_params] == [("program", ("prog_image", "coef_image"))]
    r = dcsflow("designs", "--json")
    assert json.loads(r.stdout)["ppe"]["named_params"]["program"]["sets"] == ["prog_image", "coef_image"]
