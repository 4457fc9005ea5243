"""``dcsflow build --transport`` and ``[build] transport`` of a dcsflow.toml: the configuration port of the
Vivado export (the AXI HWICAP or the ICAP stream controller), refused with one line where it cannot
apply, before anything is built."""

from __future__ import annotations

import pytest

from dcsflow.flow.project import ProjectError, load_project

DATA = "tests/data/flow/keyxor.v"


def _toml(tmp_path, build: str):
    (tmp_path / "k.v").write_text("module k(input [3:0] key, input [3:0] d, output [3:0] q); "
                                  "assign q = d ^ key; endmodule\n")
    p = tmp_path / "dcsflow.toml"
    p.write_text(f'[design]\nname = "k"\ntop = "k"\nsources = ["k.v"]\nparams = ["key"]\n[build]\n{build}\n')
    return p


def test_project_transport_key(tmp_path):
    assert load_project(_toml(tmp_path, 'transport = "icap-dma"')).transport == "icap-dma"
    assert load_project(_toml(tmp_path, 'lut_size = 6')).transport is None
    with pytest.raises(ProjectError, match="build.transport must be one of hwicap, icap-dma, got 'pcap'"):
        load_project(_toml(tmp_path, 'transport = "pcap"'))


@pytest.mark.parametrize("args, msg", [
    (["--transport", "icap-dma"], "--transport icap-dma: the ICAP stream controller goes into the Vivado export"),
    (["--transport", "icap-dma", "--backend", "vivado", "--tlut", "cfglut5"], "needs --tlut frames"),
])
def test_transport_refused_where_it_cannot_apply(dcsflow, tmp_path, args, msg):
    out = tmp_path / "b"
    r = dcsflow("build", DATA, "--out", out, "--quiet", *args)
    assert r.returncode == 1 and msg in r.stderr, r.stderr
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
    assert not (out / "build.json").exists()


def test_project_transport_without_vivado_is_refused(dcsflow, tmp_path):
    p = _toml(tmp_path, 'transport = "icap-dma"')
    r = dcsflow("build", "-p", p, "--out", tmp_path / "b", "--quiet")
    assert r.returncode == 1 and "design k: transport icap-dma" in r.stderr and r.stderr.count("\n") == 1
