"""The build's page (``dcsflow report``, :mod:`dcsflow.flow.reportpage`): rendered for a small real
build whose report.json gets the version-2 keys (baselines, savings breakdown) with figures chosen
here, loaded in headless Chromium (every image decoded by the browser, the savings figures in the
page's text, a screenshot kept), and refused with one line for builds of an older report version."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from dcsflow.flow.reportpage import FIRMWARE_FIGURES, ReportPageError, load_inputs, render_page, rekey_split

from _builds import reseal
from _chromium import chromium_path, inspect_page

DATA = Path(__file__).parent / "data" / "flow"

#: version-2 keys added to the real build's report.json; the page must show these exact figures
BASELINES = {
    "yosys-abc": {"how": "synth_xilinx, abc -luts 2:2,3,6:5,10,20", "luts": 4301, "ffs": 1723, "carry4": 37,
                  "muxf7": 11, "muxf8": 3, "depth": 7, "slices": 1289, "slicem": 4, "lut_sites": 4777,
                  "eligible": True, "chosen": False, "seconds": 3.25},
    "abc-if-choices": {"how": "ABC &if with structural choices", "luts": 3907, "ffs": 1709, "carry4": 37,
                       "muxf7": 9, "muxf8": 2, "depth": 6, "slices": 1187, "slicem": 5, "lut_sites": 4391,
                       "eligible": True, "chosen": True, "seconds": 5.5},
    "tmap": {"how": "TMAP, parameters as ordinary inputs", "luts": 3650, "ffs": 1709, "carry4": 37, "muxf7": 0,
             "muxf8": 0, "depth": 9, "slices": 1111, "slicem": 0, "lut_sites": 3999, "eligible": False,
             "chosen": False, "seconds": 2.0},
}
SAVINGS = {"baseline": "abc-if-choices", "slices": 417, "slices_percent": 35.1, "luts": 1234, "ffs": 567,
           "breakdown": [
               {"cause": "ppc", "label": "parameter-only logic moved into the PPC", "luts": 345, "ffs": 0,
                "how": "LUTs of the parameter-only cones in the baseline"},
               {"cause": "param_registers", "label": "parameter registers folded", "luts": 12, "ffs": 567,
                "how": "FFs the front end folded"},
               {"cause": "tlut_folding", "label": "logic folded into TLUTs", "luts": 678, "ffs": 0,
                "how": "TMAP without parameters minus TMAP with parameters"},
               {"cause": "mapping", "label": "TMAP without parameters vs the baseline", "luts": 190, "ffs": 0,
                "how": "baseline LUTs minus TMAP without parameters"}],
           "unexplained_luts": 9}


@pytest.fixture(scope="module")
def small_build(builds):
    """keyxor (tests/data/flow), the session's shared build (tests alter copies)."""
    from _buildcache import KEYXOR

    return builds.get("keyxor", **KEYXOR)


def _copy(src: Path, dst: Path, version: int = 2, **extra) -> Path:
    """A copy of the build folder with report.json of ``version`` (version 2: the keys above added),
    build.json's hashes renewed (as if the flow had written it)."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("frontend", "tmap", "conventional"))
    r = json.loads((dst / "report.json").read_text())
    r["version"] = version
    if version >= 2:
        r["baselines"] = json.loads(json.dumps(BASELINES))
        r["savings"] = json.loads(json.dumps(SAVINGS))
        r["conventional"]["baseline"] = "abc-if-choices"
    r.update(extra)
    (dst / "report.json").write_text(json.dumps(r, indent=1))
    reseal(dst, ppc_hash=False)
    return dst


def _artifacts(tmp_path: Path) -> Path:
    d = os.environ.get("DCSFLOW_TEST_ARTIFACTS")
    return Path(d) if d else tmp_path


def test_build_writes_the_page(small_build):
    """The outputs stage draws the page for every build (report version 2: every section present);
    nothing of it is in build.json; the back end writes no page."""
    page = small_build / "report.html"
    text = page.read_text()
    version = json.loads((small_build / "report.json").read_text())["version"]
    assert version == 2
    assert "<img" in text and "not in this report" not in text
    assert sorted(p.name for p in (small_build / "report").iterdir()) == ["breakdown.png", "device_map.png",
                                                                          "lut_histogram.png", "rekey_time.png",
                                                                          "utilization.png"]
    bj = json.loads((small_build / "build.json").read_text())
    assert not any(n.startswith("report/") or n == "report.html" for n in bj["files"])
    assert not (small_build / "backend").exists()


def test_page_in_chromium(small_build, tmp_path):
    """Chromium loads the page: every image decodes (naturalWidth > 0), the savings figures are in the
    page's text; the screenshot is kept (DCSFLOW_TEST_ARTIFACTS, else the test's tmp folder)."""
    if chromium_path() is None:
        if os.environ.get("CI"):
            pytest.fail("chromium missing (Debian package chromium; scripts/setup.sh installs it)", pytrace=False)
        pytest.skip("chromium missing (Debian package chromium; scripts/setup.sh installs it)")
    b = _copy(small_build, tmp_path / "b")
    written = render_page(b)
    assert written[-1] == b / "report.html"
    assert {p.name for p in written[:-1]} == {"breakdown.png", "utilization.png", "device_map.png",
                                              "rekey_time.png", "lut_histogram.png"}
    shot = _artifacts(tmp_path) / "report_page.png"
    seen = inspect_page(b / "report.html", shot)
    print(f"screenshot of the report page: {shot}")
    imgs = seen["images"]
    assert len(imgs) == 5
    broken = [i["src"] for i in imgs if not (i["complete"] and i["width"] > 0 and i["height"] > 0)]
    assert not broken, f"images that did not load: {broken}"
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    text = " ".join(seen["text"].split())
    assert "417 slices fewer (35.1 %)" in text
    assert "1,234 LUTs and 567 FFs fewer than the chosen baseline abc-if-choices" in text
    for name, d in BASELINES.items():
        assert name in text and d["how"] in text and f"{d['luts']:,}" in text and f"{d['slices']:,}" in text
    assert "abc-if-choices (chosen)" in text and "no (deeper)" in text
    for row in SAVINGS["breakdown"]:
        assert f"{row['label']} ({row['cause']}) {row['luts']:,} {row['ffs']:,} {row['how']}" in text
    assert "not explained by a cause 9" in text and "total against abc-if-choices 1,234 567" in text
    # slices each baseline loses to the TLUT implementation, from the back end's TLUT slices
    tl = json.loads((b / "report.json").read_text())["backend"]["tlut"]["slices"]
    assert f"{BASELINES['tmap']['slices'] - tl:,}" in text
    assert "not in this report" not in text
    assert "SCG compute: not measured" in text and "--write-figures" in text


def test_page_shows_device_utilization_timing_estimate_and_vivado_figures(small_build, tmp_path):
    """The device section: used / available / % on xc7z020 (13,300 slices, DS190), the LUT-input
    histogram; the timing section: an estimated period per implementation with its critical path,
    labelled an estimate; Vivado's reports, where vivado/ holds them (the committed format samples),
    read back beside it: WNS, Fmax = 1000 / (period - WNS), utilization."""
    import re
    import shutil as sh

    b = _copy(small_build, tmp_path / "b")
    render_page(b)
    page = (b / "report.html").read_text()
    text = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    tl = json.loads((b / "report.json").read_text())["backend"]["tlut"]["slices"]
    assert 'id="device-table"' in page and f"Slices 13,300" in text
    assert f"{100 * tl / 13300:.2f} %" in text
    assert 'id="lut-histogram"' in page and "report/lut_histogram.png" in page
    assert "Timing estimate (an estimate, not a timing analysis)" in text
    table = page[page.index('id="timing-table"'):]
    periods = re.findall(r"<tr><td>(conventional|TLUT)</td><td class=\"n\">([\d.]+)</td>", table[:table.index("</table>")])
    # the TLUT implementation's estimate; the conventional one's netlist is the chosen candidate's, which
    # this copy's report names abc-if-choices (figures set above) and the folder does not hold: said so
    assert [p[0] for p in periods] == ["TLUT"] and float(periods[0][1]) > 0.3
    assert "no netlist (baselines/abc-if-choices/netlist.json)" in text
    # the critical path ends at the period the table gives
    ends = re.findall(r'<td class="n">[\d.]+</td><td class="n">([\d.]+)</td></tr>\n</table></details>', page)
    assert [float(e) for e in ends] == [float(periods[0][1])]
    assert "No Vivado report in this build folder" in text
    (b / "vivado").mkdir(exist_ok=True)
    for f in ("timing.rpt", "utilization.rpt"):
        sh.copy(Path(__file__).parent / "data" / "vivado_reports" / f, b / "vivado" / f)
    render_page(b)
    text = " ".join(re.sub(r"<[^>]+>", " ", (b / "report.html").read_text()).split())
    assert "WNS 4.215 ns on clock clk (8.000 ns), Fmax 264.2 MHz" in text
    assert "Slice LUTs 42 53,200 0.08 %" in text and "Bonded IOB 26 125 20.8 %" in text


def test_firmware_figures_split_the_rekey_time(small_build, tmp_path):
    """With firmware figures of this very build the rekey time gets its compute part; figures of
    another build are not used (the page says so)."""
    b = _copy(small_build, tmp_path / "b")
    bj = json.loads((b / "build.json").read_text())
    fw = {"format": "dcsflow-firmware-figures", "version": 1, "design": "keyxor", "design_hash": bj["design_hash"],
          "ppc_sha256": bj["files"]["ppc.aig"], "framemap_sha256": bj["files"]["tlut/framemap.json"],
          "cpu": "Cortex-A9", "measured_with": "QEMU test figures", "keys": 7, "scg_instructions": 66700,
          "ppc_instructions": 1000, "code_style": "straight"}
    (b / FIRMWARE_FIGURES).write_text(json.dumps(fw))
    render_page(b)
    text = " ".join((b / "report.html").read_text().split())
    assert "66,700 Cortex-A9 instructions" in text and "100.00 µs at 667 MHz" in text
    rk = json.loads((b / "report.json").read_text())["backend"]["rekey"]
    split = rekey_split(rk, fw, "xc7z020")
    assert [s["transport"] for s in split] == ["AXI HWICAP", "PCAP", "raw ICAP"]
    # the model's constants (dcsflow.scg.timemodel): 667 MHz, one instruction per cycle; 400 and 145 MB/s
    assert all(s["compute_us"] == pytest.approx(66700 / 667.0) for s in split)
    words = split[0]["words"]
    assert split[2]["transport_us"] == pytest.approx(words * 4 / 400.0)
    assert split[1]["transport_us"] == pytest.approx(words * 4 / 145.0)
    assert split[0]["total_us"] > split[1]["total_us"] > split[2]["total_us"]
    # an Artix-7 has no PCAP and no Cortex-A9: neither is modelled for it
    art = rekey_split(rk, fw, "xc7a35t")
    assert [s["transport"] for s in art] == ["AXI HWICAP", "raw ICAP"]
    assert all(s["compute_us"] is None and s["total_us"] is None for s in art)
    fw["ppc_sha256"] = "0" * 64
    (b / FIRMWARE_FIGURES).write_text(json.dumps(fw))
    render_page(b)
    text = " ".join((b / "report.html").read_text().split())
    assert "measured on another build" in text and "66,700" not in text
    (b / FIRMWARE_FIGURES).write_text("{")
    with pytest.raises(ReportPageError, match="firmware_figures.json: unusable firmware figures"):
        render_page(b)


def test_page_shows_the_verdict_only_when_specialization_does_not_pay(small_build, tmp_path):
    """The build's line under the savings headline: the recorded one, or for a report without
    ``verdict`` the one its figures give (here the back end's TLUT slices raised above the
    conventional ones); none when it pays."""
    b = _copy(small_build, tmp_path / "b")
    r = json.loads((b / "report.json").read_text())
    assert r["verdict"]["pays"] is True
    render_page(b)
    assert 'id="verdict"' not in (b / "report.html").read_text()
    _set(b, verdict={"pays": False, "line": "specialization does not pay here: a recorded line", "reasons": []})
    render_page(b)
    assert '<p class="verdict" id="verdict">specialization does not pay here: a recorded line</p>' in \
        (b / "report.html").read_text()
    r = json.loads((b / "report.json").read_text())
    del r["verdict"]
    conv = r["backend"]["conventional"]["slices"]
    r["backend"]["tlut"]["slices"] = conv + 3
    (b / "report.json").write_text(json.dumps(r))
    reseal(b, ppc_hash=False)
    render_page(b)
    text = " ".join((b / "report.html").read_text().split())
    assert (f"specialization does not pay here: the TLUT implementation uses {conv + 3} slices against {conv} "
            "for the conventional one (abc-if-choices)") in text


def test_missing_sections_say_so(small_build, tmp_path):
    """A version-2 report without the optional sections still renders, each saying it is missing."""
    b = _copy(small_build, tmp_path / "b")
    r = json.loads((b / "report.json").read_text())
    del r["savings"], r["baselines"]
    (b / "report.json").write_text(json.dumps(r))
    reseal(b, ppc_hash=False)
    shutil.rmtree(b / "tlut")
    bj = json.loads((b / "build.json").read_text())
    bj["files"] = {k: v for k, v in bj["files"].items() if not k.startswith("tlut/")}
    (b / "build.json").write_text(json.dumps(bj))
    (b / "report" / "breakdown.png").write_bytes(b"stale")
    names = {p.name for p in render_page(b)}
    assert names == {"utilization.png", "rekey_time.png", "lut_histogram.png", "report.html"}
    assert not (b / "report" / "breakdown.png").exists()         # a figure of the earlier page is gone
    text = (b / "report.html").read_text()
    for what in ("Savings: not in this report", "Baselines: not in this report",
                 "Savings breakdown: not in this report", "Placement map: no TLUT placement"):
        assert what in text


def _one_error_line(res):
    assert res.returncode == 1, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in res.stderr
    return lines[0]


def test_old_report_version_refused(small_build, tmp_path, dcsflow):
    """report.json of version 1 (before baselines and savings): one line naming the rebuild command;
    no page is written."""
    b = _copy(small_build, tmp_path / "b", version=1)
    (b / "report.html").unlink()
    shutil.rmtree(b / "report")
    line = _one_error_line(dcsflow("report", b))
    assert line == (f"error: {b}/report.json is report version 1 (before baselines and savings breakdown); "
                    f"rebuild: dcsflow build <the HDL files of keyxor> --out {b}")
    assert not (b / "report.html").exists() and not (b / "report").exists()


@pytest.mark.parametrize("case", ["no build.json", "no report.json", "changed report", "bad json",
                                  "newer", "not a folder", "malformed savings", "malformed cfglut", "malformed verdict",
                                  "old build.json"])
def test_bad_build_folders_refused(small_build, tmp_path, dcsflow, case):
    """Every unusable folder is one line ``error: ...`` with exit status 1, the old page untouched."""
    b = _copy(small_build, tmp_path / "b")
    before = (b / "report.html").read_bytes()
    target = b
    if case == "no build.json":
        (b / "build.json").unlink()
        want = "not a finished build folder (no build.json); run: dcsflow build"
    elif case == "no report.json":
        (b / "report.json").unlink()
        want = "report.json: missing; rebuild: dcsflow build"
    elif case == "changed report":
        (b / "report.json").write_text((b / "report.json").read_text().replace('"design"', '"design" ', 1))
        want = "does not match build.json (changed since the build)"
    elif case == "bad json":
        (b / "report.json").write_text("{not json")
        reseal(b, ppc_hash=False)
        want = "report.json: not JSON"
    elif case == "newer":
        _set(b, version=3)
        want = "report version 3 is newer than this dcsflow reads (2); update dcsflow"
    elif case == "not a folder":
        target = b / "missing"
        want = "not a folder"
    elif case == "malformed savings":
        _set(b, savings={**SAVINGS, "luts": "many"})
        want = "malformed report (field savings.luts: a number expected, got a string)"
    elif case == "malformed cfglut":
        _set(b, cfglut={"cfglut5": 4, "chains": 2, "chain_luts": 2, "words": "many"})
        want = "malformed report (field cfglut.words: a number expected, got a string)"
    elif case == "malformed verdict":
        _set(b, verdict={"pays": False, "line": None, "reasons": []})
        want = "malformed report (field verdict.line: a string expected when pays is false)"
    else:
        bj = json.loads((b / "build.json").read_text())
        bj["version"] = 1
        (b / "build.json").write_text(json.dumps(bj))
        want = "build folder of format version 1 (this dcsflow reads 2); rebuild"
    line = _one_error_line(dcsflow("report", target))
    assert want in line, line
    assert (b / "report.html").read_bytes() == before


def _set(b: Path, **keys) -> None:
    r = json.loads((b / "report.json").read_text())
    r.update(keys)
    (b / "report.json").write_text(json.dumps(r))
    reseal(b, ppc_hash=False)


def test_report_command_prints_and_opens(small_build, tmp_path, monkeypatch):
    """``dcsflow report BUILD --open`` prints the page's path and hands its file:// URI to the web
    browser (monkeypatched: no browser starts); without --open nothing is opened."""
    from click.testing import CliRunner

    from dcsflow.flow.cli import cli
    from dcsflow.flow.commands import report as cmd

    b = _copy(small_build, tmp_path / "b")
    opened = []
    monkeypatch.setattr(cmd.webbrowser, "open", lambda uri: opened.append(uri) or True)
    res = CliRunner().invoke(cli, ["report", str(b)])
    assert res.exit_code == 0 and res.output.strip() == str(b / "report.html") and opened == []
    res = CliRunner().invoke(cli, ["report", str(b), "--open"])
    assert res.exit_code == 0, res.output
    assert opened == [(b / "report.html").resolve().as_uri()]
    monkeypatch.setattr(cmd.webbrowser, "open", lambda uri: False)
    res = CliRunner().invoke(cli, ["report", str(b), "--open"])
    assert res.exit_code == 0 and "no web browser could be started" in res.output


def test_lenient_mode_is_only_for_the_build(small_build, tmp_path):
    """The outputs stage draws a version-1 report (sections marked missing); the command refuses it."""
    b = _copy(small_build, tmp_path / "b", version=1)
    assert load_inputs(b, lenient=True).notes
    with pytest.raises(ReportPageError, match="report version 1"):
        load_inputs(b)


# ------------------------------------------------------------------------------------ damaged folders
def _frm_of_another_design(b: Path) -> None:
    p = b / "tlut" / "template.frm"
    head, rest = p.read_text().split("\n", 1)
    old = head.split("design_hash=")[1].split()[0]
    p.write_text(head.replace(old, "6" * 64) + "\n" + rest)
    reseal(b, ppc_hash=False)


def _framemap_of_another_design(b: Path) -> None:
    p = b / "tlut" / "framemap.json"
    fm = json.loads(p.read_text())
    fm["design_hash"] = "7" * 64
    p.write_text(json.dumps(fm))
    reseal(b, ppc_hash=False)


def _flip_framemap(b: Path) -> None:
    p = b / "tlut" / "framemap.json"
    p.write_text(p.read_text().replace('"entries"', '"entries" ', 1))


DAMAGED = {
    "listed file changed": (_flip_framemap, "tlut/framemap.json does not match build.json"),
    "template of another design": (_frm_of_another_design, "is the template of another design"),
    "frame map of another design": (_framemap_of_another_design, "design hash of tlut/framemap.json differs"),
    "stray Vivado import": (lambda b: (b / "tlut" / "imported").mkdir(),
                            "holds a Vivado import that build.json does not name"),
}


@pytest.mark.parametrize("case", sorted(DAMAGED))
def test_report_refuses_what_every_reader_refuses(small_build, tmp_path, dcsflow, case):
    """``dcsflow report`` checks the folder with the same reader as rekey: one line, the old page
    untouched; rekey refuses the folder with the same reason."""
    b = _copy(small_build, tmp_path / "b")
    before = (b / "report.html").read_bytes()
    damage, want = DAMAGED[case]
    damage(b)
    line = _one_error_line(dcsflow("report", b))
    assert want in line and line.endswith("dcsflow report --force draws it marked unverified"), line
    assert (b / "report.html").read_bytes() == before
    assert want in _one_error_line(dcsflow("rekey", b, "--param", "key=a5", "--to", "emulator"))


@pytest.mark.parametrize("case", ["listed file changed", "template of another design"])
def test_report_force_draws_a_damaged_build_marked_unverified(small_build, tmp_path, dcsflow, case):
    b = _copy(small_build, tmp_path / "b")
    damage, want = DAMAGED[case]
    damage(b)
    res = dcsflow("report", b, "--force")
    assert res.returncode == 0 and res.stdout.strip() == str(b / "report.html"), res.stderr
    assert res.stderr.startswith("note: ") and want in res.stderr and "UNVERIFIED" in res.stderr
    html = (b / "report.html").read_text()
    assert "<title>UNVERIFIED: " in html and 'id="unverified"' in html and want in html


def test_report_force_on_a_changed_report_marks_it(small_build, tmp_path, dcsflow):
    b = _copy(small_build, tmp_path / "b")
    (b / "report.json").write_text((b / "report.json").read_text().replace('"design"', '"design" ', 1))
    res = dcsflow("report", b, "--force")
    assert res.returncode == 0 and "report.json: does not match build.json" in res.stderr
    assert 'id="unverified"' in (b / "report.html").read_text()


def test_report_force_on_a_sound_build_is_not_marked(small_build, tmp_path, dcsflow):
    b = _copy(small_build, tmp_path / "b")
    res = dcsflow("report", b, "--force")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    html = (b / "report.html").read_text()
    assert "UNVERIFIED" not in html and 'id="unverified"' not in html
