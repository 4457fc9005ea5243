"""The runtime's command line ``python -m dcsflow.scg`` and the flow's pass-throughs to it."""

from __future__ import annotations

import json

import subprocess
import sys

import pytest

from dcsflow.scg import cli
from dcsflow.scg._synthetic import make_build
from dcsflow.scg.codegen import codegen


def _scg(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "dcsflow.scg", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd)


@pytest.fixture(scope="module")
def syn(tmp_path_factory):
    return make_build(tmp_path_factory.mktemp("cli") / "b")


@pytest.mark.parametrize("args,words", [
    ([], ["rekey", "bit", "import", "codegen"]),
    (["rekey"], ["--param NAME=HEX", "--to TARGET", "--verify", "--json", "devmem:BASE[@/dev/uioN]", "fpgamgr"]),
    (["bit"], ["info", "lut", "diff", "frames"]),
    (["bit", "info"], ["--json", "--no-ecc", "CRC"]),
    (["bit", "lut"], ["SITE/BEL", "16 hex digits"]),
    (["bit", "diff"], ["--json", "partial"]),
    (["bit", "frames"], ["-o OUT", "--all"]),
    (["import"], ["--bit FILE", "--cells FILE", "--json", "tlut/imported"]),
    (["codegen"], ["--out DIR", "--firmware DIR", "--style {auto,straight,table}", "--synthetic"]),
])
def test_help(args, words):
    r = _scg(*args, "--help")
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.startswith(f"usage: python -m dcsflow.scg {' '.join(args)}".rstrip())
    for w in words:
        assert w in r.stdout, w


@pytest.mark.parametrize("args,msg", [
    ([], "required: COMMAND"),
    (["rekey"], "required: BUILD"),
    (["rekey", "b", "--bogus"], "dcsflow.scg rekey: error: unrecognized arguments: --bogus"),
    (["bit"], "required: COMMAND"),
    (["bit", "frames", "x.bit"], "required: -o/--output"),
    (["codegen", "--out", "g"], "give either BUILD or --synthetic"),
    (["codegen", "b", "--synthetic", "--out", "g"], "give either BUILD or --synthetic"),
    (["codegen", "b", "--out", "g", "--style", "fast"], "invalid choice: 'fast'"),
    (["import", "b", "--bit", "x.bit"], "required: --cells"),
])
def test_usage_errors_exit_2(args, msg, tmp_path):
    r = _scg(*args, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == "" and msg in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize("args,msg", [
    (["rekey", "{nowhere}", "--param", "key=0001"], "not a finished build folder (no build.json)"),
    (["rekey", "{syn}", "--param", "key=0001", "--to", "nowhere"], "unknown target 'nowhere'"),
    (["rekey", "{syn}", "--param", "key=0001", "--to", "bitfile:{tmp}/k.txt"], "use a .bit or .bin file name"),
    (["rekey", "{syn}", "--param", "key=0001", "--to", "devmem:zz"], "bad base address 'zz'"),
    (["rekey", "{syn}", "--param", "key=0001", "--to", "devmem:0@{tmp}/none"], "cannot open"),
    (["rekey", "{syn}", "--param", "key=0001", "--to", "bitfile:{blocker}/k.bin"], "cannot write"),
    (["rekey", "{syn}", "--param", "key=1"], "parameter key: expected 16 bits (4 hex digits), got 1 hex digits"),
    (["rekey", "{syn}"], "missing --param for key (16 bits)"),
    (["bit", "info", "{tmp}/none.bit"], "cannot read"),
    (["bit", "frames", "{syn}/tlut/template.frm", "-o", "{tmp}/o.frm"], "{syn}/tlut/template.frm: "),
    (["codegen", "{tmp}", "--out", "{tmp}/g"], "not a finished build folder"),
])
def test_user_errors_are_one_line_exit_1(syn, tmp_path, args, msg):
    (tmp_path / "blocker").write_text("a file, not a folder")
    subst = {"syn": syn, "tmp": tmp_path, "nowhere": tmp_path / "nowhere", "blocker": tmp_path / "blocker"}
    r = _scg(*[a.format(**subst) for a in args])
    lines = r.stderr.splitlines()
    assert r.returncode == 1 and r.stdout == "", r.stdout
    assert len(lines) == 1 and lines[0].startswith("error: ") and msg.format(**subst) in lines[0], r.stderr


def test_rekey_json_and_text(syn, capsys, tmp_path):
    """Every word count named for what it counts, the same in the text, in --json and in the back
    end's model: 20 frames in 5 runs are 25 x 101 words of frame data with pad frames, plus 27 words
    of configuration packets per run (scg/xc7/FACTS.md "Write frame(s)") = 2660 ICAP words; the
    read-back asks for each run with 57 words (the read sequence) and reads a dummy frame + the frames."""
    from dcsflow.flow.backend.report import rekey_model
    from dcsflow.scg.buildfolder import load_build

    assert cli.main(["rekey", str(syn), "--param", "key=BEEF", "--verify"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rekey via emulator: 20 frames in 5 runs, 2660 ICAP words (2525 of frame data with pad "
                          "frames, 135 of configuration packets); read-back: 285 words to request it, 2525 words "
                          "read, 5615 register accesses, "), out
    assert out.rstrip().endswith(" ms, read-back verified")
    b = load_build(syn)
    assert rekey_model(1, list(b.fars), b.device)["icap_words_batched"] == 2660
    assert cli.main(["rekey", str(syn), "--param", "key=BEEF", "--json", "--verify"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["icap_words"], d["frame_words"], d["verify_words"], d["readback_words"]) == (2660, 2525, 285, 2525)
    part = tmp_path / "p.bin"
    assert cli.main(["rekey", str(syn), "--param", "key=BEEF", "--to", f"partial:{part}", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["icap_words"] == 2660 and d["frame_words"] == 2525 and "verify_words" not in d
    assert d["bitstream_words"] * 4 == part.stat().st_size == d["bytes"]


def test_bit_info_is_a_plain_two_column_table(shared, capsys):
    assert cli.main(["bit", "info", str(shared / "bitstreams" / "pynq-z1_base.bit")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("bitstream ") and lines[0].endswith("pynq-z1_base.bit")
    rows = {ln[2:].split("  ", 1)[0].strip(): ln[2:].split("  ", 1)[1].strip() for ln in lines[1:]}
    assert rows["part"] == "xc7z020" and rows["idcode"] == "0x03727093" and rows["crc"] == "ok"
    assert rows["fdri_frames"] == "10008" and rows["header part"] == "7z020clg400" and "ecc_mismatch_frames" in rows
    assert all(ln.startswith("  ") for ln in lines[1:])


def test_codegen_synthetic_equals_codegen_of_the_synthetic_build(tmp_path, capsys):
    assert cli.main(["codegen", "--synthetic", "--out", str(tmp_path / "a")]) == 0
    assert capsys.readouterr().out.startswith(f"wrote 3 files to {tmp_path / 'a'} (straight code)")
    codegen(make_build(tmp_path / "b"), tmp_path / "c")
    for name in ("scg_gen.c", "scg_devtab.c"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "c" / name).read_bytes()
    ha, hc = ((tmp_path / d / "scg_gen.h").read_text().split("\n", 1) for d in ("a", "c"))
    assert ha[1] == hc[1]                                  # the first line names the build folder


def test_flow_commands_pass_through(dcsflow, syn, tmp_path):
    """dcsflow rekey|bit|import|codegen: listed with one line each, their help and errors are the runtime's."""
    r = dcsflow("--help")
    assert r.returncode == 0
    for name in ("rekey", "bit", "import", "codegen"):
        line = next(ln for ln in r.stdout.splitlines() if ln.strip().startswith(name + " "))
        assert len(line.split(None, 1)[1]) > 10, line
        h = dcsflow(name, "--help")
        assert h.returncode == 0 and h.stdout.startswith(f"usage: dcsflow {name} ")
        assert h.stdout.split("\n\n", 1)[1] == _scg(name, "--help").stdout.split("\n\n", 1)[1]   # after usage
    r = dcsflow("rekey", syn, "--param", "key=beef", "--bogus")
    assert r.returncode == 2 and "dcsflow rekey: error: unrecognized arguments: --bogus" in r.stderr
    r = dcsflow("rekey", syn, "--param", "key=beef", "--to", "emulator", "--verify", "--json")
    assert r.returncode == 0 and '"verified": true' in r.stdout
    r = dcsflow("codegen", syn, "--out", tmp_path / "g", "--style", "table")
    assert r.returncode == 0 and "(table code)" in r.stdout and (tmp_path / "g" / "scg_gen.c").is_file()
    r = dcsflow("bit", "lut", tmp_path / "none.bit", "SLICE_X54Y10/A6LUT")
    assert r.returncode == 1 and r.stderr.startswith("error: cannot read")
