"""Every table the CLI prints fits 80 columns without cutting names; long runs print
one line per finished stage on stderr."""

from __future__ import annotations

import copy
import io
import json
import os
from pathlib import Path

import pytest

from dcsflow.flow.report import comparison_rows, print_summary, print_table

DATA = Path(__file__).parent / "data"
#: a real report.json of `dcsflow build picipher` (seed 1), used as input only
REPORT = DATA / "terminal" / "picipher_report.json"


def _scaled(obj, k: int):
    """The same report with every number multiplied by k (wider figures than any real build)."""
    if isinstance(obj, dict):
        return {key: _scaled(v, k) for key, v in obj.items()}
    if isinstance(obj, list):
        return [_scaled(v, k) for v in obj]
    if isinstance(obj, (int, float)) and not isinstance(obj, bool):
        return obj * k
    return obj


def _lines(text: str) -> list[str]:
    return text.rstrip("\n").splitlines()


def _assert_fits(text: str) -> None:
    long = [ln for ln in _lines(text) if len(ln) > 80]
    assert not long, f"{len(long)} lines longer than 80 columns, e.g. {long[0]!r}"
    assert "…" not in text, "rich cut a cell"


@pytest.fixture(params=[80, 200], ids=["cols80", "cols200"])
def columns(request, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(request.param))
    return request.param


@pytest.mark.parametrize("k", [1, 10])
def test_build_table_fits_80_columns_and_keeps_every_cell(k, columns):
    rep = _scaled(json.loads(REPORT.read_text()), k)
    rep["design"] = "picipher128_cis"
    buf = io.StringIO()
    print_table(rep, file=buf)
    out = buf.getvalue()
    _assert_fits(out)
    assert "picipher128_cis" in out
    for metric, conv, tlut in comparison_rows(rep):
        # each row on one line: nothing wrapped into a second line
        assert any(metric in ln and conv in ln and tlut in ln for ln in _lines(out)), (metric, conv, tlut)


@pytest.mark.parametrize("long_name", [False, True], ids=["5-digit figures", "15-char name"])
def test_demo_summary_fits_80_columns_with_full_design_names(columns, long_name):
    rep = json.loads(REPORT.read_text())
    big = _scaled(rep, 10)     # 5-digit LUT and FF counts
    rows = [("picipher", rep["tlut"], rep["conventional"], 206, "25/25"),
            ("picipher128_cis", rep["tlut"], rep["conventional"], 1234, "75/75") if long_name else
            ("picipher_cis", big["tlut"], big["conventional"], None, "25/25")]
    buf = io.StringIO()
    print_summary(rows, file=buf)
    out = buf.getvalue()
    _assert_fits(out)
    for name, t, c, _, ok in rows:
        line = next((ln for ln in _lines(out) if f" {name} " in ln), None)
        assert line is not None, f"design name {name} cut or wrapped:\n{out}"
        assert f"{t['luts']} ({t['tluts']})" in line and f"{c['luts']}/{c['ffs']}" in line and ok in line


def _cli_env(columns: int) -> dict:
    return {**os.environ, "COLUMNS": str(columns)}


def test_sim_table_fits(dcsflow):
    r = dcsflow("sim", "picipher", env=_cli_env(200))
    assert r.returncode == 0, r.stderr
    _assert_fits(r.stdout)
    assert "bad tag rejected" in r.stdout and "passed 75/75" in r.stdout


def test_bit_info_table_fits(dcsflow, shared):
    r = dcsflow("bit", "info", shared / "bitstreams" / "pynq-z1_base.bit", env=_cli_env(200))
    assert r.returncode == 0, r.stderr
    _assert_fits(r.stdout)
    assert "0x03727093" in r.stdout.lower() or "3727093" in r.stdout.lower()


def test_map_table_fits_and_prints_stage_lines(dcsflow, tmp_path):
    from dcsflow.aig import write_aiger
    from dcsflow.tmap.generators import multiplier

    g, params = multiplier(4)
    d = tmp_path / ("a_rather_long_folder_name_" * 3)
    d.mkdir()
    f = d / "mul4.aig"
    write_aiger(g, f)
    p = tmp_path / "params.txt"
    p.write_text("\n".join(params) + "\n")
    r = dcsflow("map", f, "--params", p, "-K", "4", env=_cli_env(200))
    assert r.returncode == 0, r.stderr
    table = r.stdout[:r.stdout.index("┘") + 1]        # the lines after the table are free text
    _assert_fits(table)
    assert "mul4.aig" in table and "equivalence proof" in table
    assert "map mul4.aig: TMAP done in" in r.stderr and "map mul4.aig: ABC baseline done in" in r.stderr


def test_build_prints_one_line_per_stage(dcsflow, tmp_path):
    r = dcsflow("build", DATA / "flow" / "keyxor.v", "--out", tmp_path / "kx", "--to", "tmap",
                env=_cli_env(80))
    assert r.returncode == 0, r.stderr
    ours = [ln for ln in r.stderr.splitlines() if ln.startswith("build keyxor: ")]
    done = [ln for ln in ours if " done in " in ln]
    assert [ln.split()[2] for ln in done] == ["frontend", "tmap"], r.stderr
    assert all(ln.endswith(" s") for ln in done)
    # besides the stage lines, only the parameter input the front end found (keyxor.v: key, 8 bits) and
    # the adder it reaches through the key buffer, (d ^ kb) + {d[3:0], d[7:4]}: its top bit depends on all
    # 8 bits of d (> K = 6), so it stays a CARRY4 chain, 2 CARRY4 for 8 bits
    assert [ln for ln in ours if ln not in done] == [
        f"build keyxor: parameter input key: 8 bits, (* PARAM *), {(DATA / 'flow' / 'keyxor.v').resolve()}:5",
        "build keyxor: adders fed by parameter inputs: 0 to the LUT mapper as logic, 1 kept as CARRY4 chains "
        "(--adders auto)",
        "build keyxor: parameter inputs reach 2 CARRY4 cells: the chains stay in the template, the TLUTs stop at "
        "their inputs"], r.stderr


@pytest.mark.parametrize("k", [1, 10])
def test_candidates_table_with_every_register_form_fits_80_columns(k, columns):
    """All 15 candidates (the longest names are the register forms', ``abc-synch2@precomputed``),
    with aes128_iter's pinned figures (tests/data/build_figures.json) and ten times them, keep every
    cell whole within 80 columns."""
    from _build_figures import TABLE
    from dcsflow.flow.baselines import ALL_CANDIDATES

    pinned = json.loads(TABLE.read_text())["designs"]["aes128_iter"]
    conv = pinned["conventional"]
    rep = json.loads(REPORT.read_text())
    rep["baselines"] = {n: {**c, "muxf7": conv["muxf7"], "muxf8": conv["muxf8"], "chosen": n == conv["baseline"],
                            "eligible": c["depth"] <= pinned["candidates"]["yosys-abc"]["depth"]}
                        for n, c in pinned["candidates"].items()}
    assert sorted(rep["baselines"]) == sorted(ALL_CANDIDATES)
    rep = _scaled(rep, k)
    buf = io.StringIO()
    print_table(rep, file=buf)
    out = buf.getvalue()
    _assert_fits(out)
    for n in ALL_CANDIDATES:
        assert any(ln.startswith(f"│ {n} ") for ln in _lines(out)), n
