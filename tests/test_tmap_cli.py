"""``dcsflow map``: JSON figures, outputs, usage errors and one-line errors for bad input."""

from __future__ import annotations

import json
import re

from dcsflow.aig import write_aiger
from dcsflow.tmap.generators import multiplier, ripple_adder


def _mul(tmp_path):
    g, params = multiplier(4)
    f = tmp_path / "mul4.aig"
    write_aiger(g, f)
    p = tmp_path / "params.txt"
    p.write_text("\n".join(params) + "\n")
    return f, p


def test_map_json_and_outputs(tmp_path, dcsflow):
    f, p = _mul(tmp_path)
    r = dcsflow("map", f, "--params", p, "-K", "4", "--out", tmp_path / "o", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout.strip().splitlines()[-1])
    assert set(d) >= {"luts", "tluts", "depth", "ppc_ands", "verified", "baseline_luts", "baseline_depth",
                      "seconds", "baseline_seconds"}
    assert d["verified"] is True and d["tluts"] == 8 and d["luts"] == 8
    assert d["baseline_luts"] > d["luts"]  # the baseline cannot fold the parameter operand away
    assert "TLUTs" in r.stdout
    for name in ("netlist.json", "netlist.blif", "ppc.aig", "ppc.json"):
        assert (tmp_path / "o" / name).is_file()


def test_map_without_params_says_conventional(tmp_path, dcsflow):
    g, _ = ripple_adder(4)
    f = tmp_path / "add.aig"
    write_aiger(g, f, binary=False)
    r = dcsflow("map", f, "--no-baseline", "--json")
    assert r.returncode == 0, r.stderr
    assert "conventional" in r.stderr
    d = json.loads(r.stdout.strip().splitlines()[-1])
    assert d["tluts"] == 0 and d["verified"] is True and d["baseline_luts"] is None


def test_map_bad_inputs(tmp_path, dcsflow):
    f, p = _mul(tmp_path)
    bad = tmp_path / "bad.txt"
    bad.write_text("b[7]\n")
    r = dcsflow("map", f, "--params", bad)
    assert r.returncode == 1 and r.stderr.strip().startswith("error:") and "did you mean" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = dcsflow("map", f, "-K", "7")
    assert r.returncode == 2 and "-K" in r.stderr
    broken = tmp_path / "broken.aig"
    broken.write_bytes(f.read_bytes()[:40])
    r = dcsflow("map", broken)
    assert r.returncode == 1 and re.search(r"(line|byte offset) \d+: unexpected end", r.stderr)
    assert "Traceback" not in r.stderr
    r = dcsflow("map", tmp_path / "missing.aig")
    assert r.returncode == 1 and "cannot read" in r.stderr
    assert not (tmp_path / "o").exists()


def test_map_abc_opt_area(tmp_path, dcsflow):
    # --abc-opt maps ABC-optimized variants too; the proof is still against the input circuit
    g, params = multiplier(6)
    f = tmp_path / "mul6.aig"
    write_aiger(g, f)
    p = tmp_path / "params.txt"
    p.write_text("\n".join(params) + "\n")
    plain = dcsflow("map", f, "--params", p, "--area", "--no-baseline", "--json")
    r = dcsflow("map", f, "--params", p, "--area", "--abc-opt", "--no-baseline", "--json")
    assert r.returncode == 0 and plain.returncode == 0, r.stderr + plain.stderr
    d, d0 = (json.loads(x.stdout.strip().splitlines()[-1]) for x in (r, plain))
    assert d["verified"] is True
    assert d["luts"] <= d0["luts"]
