"""Parameter lists written for other TLUT tools: ``tmap.params.resolve_params`` and ``dcsflow map --params``
(names that are not inputs skipped with one warning, ``--strict``, ``params_used``/``params_missing``)."""

from __future__ import annotations

import json

import pytest

from dcsflow.aig import write_aiger
from dcsflow.tmap.errors import ParamError
from dcsflow.tmap.generators import multiplier
from dcsflow.tmap.params import resolve_params


def test_resolve_bit_names_ports_and_missing():
    g, _ = multiplier(4)  # inputs a[0..3], b[0..3]
    sel = resolve_params(g, ["b<1>", "b(2)", "b[7]", "a", "b[1]", "b[7]", "nokey"])
    assert sel.used == ["b[1]", "b[2]", "a[0]", "a[1]", "a[2]", "a[3]"]
    assert sel.missing == ["b[7]", "nokey"] and sel.given == 6
    w = sel.warning(shown=1)
    assert w.startswith("2 of 6 parameter names are not inputs of the AIG and were skipped: b[7]")
    assert w.endswith("(+1 more)") and "nokey" not in w
    assert resolve_params(g, ["b[0]"]).warning() == ""


def test_resolve_errors():
    g, _ = multiplier(4)
    with pytest.raises(ParamError, match="none of the parameter names.*did you mean"):
        resolve_params(g, ["b[9]", "c[0]"])
    with pytest.raises(ParamError, match="1 of 2 .*--strict.*'b\\[9\\]'"):
        resolve_params(g, ["b[0]", "b[9]"], strict=True)
    assert resolve_params(g, []).used == []


def _files(tmp_path, names):
    g, _ = multiplier(4)
    f = tmp_path / "mul4.aig"
    write_aiger(g, f)
    p = tmp_path / "params.txt"
    p.write_text("# written for another TLUT tool\n\n" + "\n".join(names) + "\n")
    return f, p


def test_cli_skips_missing_names_with_one_warning(tmp_path, dcsflow):
    names = [f"b[{i}]" for i in range(8)]  # b[4..7] were removed by synthesis
    f, p = _files(tmp_path, names)
    r = dcsflow("map", f, "--params", p, "-K", "4", "--no-baseline", "--json")
    assert r.returncode == 0, r.stderr
    warn = [ln for ln in r.stderr.splitlines() if ln.startswith("warning:")]
    assert warn == ["warning: 4 of 8 parameter names are not inputs of the AIG and were skipped: "
                    "b[4], b[5], b[6], b[7]"]
    d = json.loads(r.stdout.strip().splitlines()[-1])
    assert d["params_used"] == names[:4] and d["params_missing"] == names[4:]
    assert d["verified"] is True and d["tluts"] == 8  # same mapping as with the exact list
    r = dcsflow("map", f, "--params", p, "--strict", "--no-baseline")
    assert r.returncode == 1 and r.stderr.startswith("error:") and "--strict" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_cli_no_valid_name_is_an_error(tmp_path, dcsflow):
    f, p = _files(tmp_path, ["key[0]", "key<1>", "key"])
    r = dcsflow("map", f, "--params", p, "--out", tmp_path / "o")
    assert r.returncode == 1 and r.stderr.startswith("error: none of the parameter names")
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert not (tmp_path / "o").exists()


def test_cli_whole_port_name(tmp_path, dcsflow):
    f, p = _files(tmp_path, ["b"])
    r = dcsflow("map", f, "--params", p, "-K", "4", "--no-baseline", "--json")
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr
    d = json.loads(r.stdout.strip().splitlines()[-1])
    assert d["params_used"] == [f"b[{i}]" for i in range(4)] and d["params_missing"] == []


def test_param_latches_include_load_enabled_registers():
    from dcsflow.aig import Aig
    from dcsflow.tmap.mapper import map_tluts
    from dcsflow.tmap.options import MapOptions

    g = Aig()
    k, x, ld = g.add_input("k"), g.add_input("x"), g.add_input("ld")
    g.num_latches = 2
    g.latch_names, g.latch_next, g.latch_init = ["kr", "xr"], [0, 0], [0, 0]
    kr, xr = 2 * 4, 2 * 5
    g.latch_next[0] = g.add_mux(ld, k, kr)   # key register: loads the parameter k
    g.latch_next[1] = g.add_mux(ld, x, xr)   # loads a regular input: not a parameter
    g.add_output(g.add_xor(g.add_xor(kr, xr), x), "y")
    res = map_tluts(g, ["k"], MapOptions(param_latches=True))
    assert res.netlist.params == ["k", "kr"] and "xr" in res.netlist.inputs
    assert res.stats.verified and res.stats.tluts >= 1
    assert map_tluts(g, ["k"]).netlist.params == ["k"]
