"""The whole flow on aes128_iter (one build, reused): TLUT vs conventional, check on all 284 CAVP KAT
vectors (independent reference: the response files), check --frames, rekey, codegen, firmware on the
host and in QEMU."""

from __future__ import annotations

import pytest

from designs.aes128.vectors import load_kat
from flow.build import BuildOptions, build
from flow.check import check_build

from _aes_flow import firmware_host_and_qemu, rekey_cli, subset_rsp


@pytest.fixture(scope="module")
def iter_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("aes_iter") / "b"
    rep = build(BuildOptions(design="aes128_iter", out=out, progress=False)).report
    return out, rep


def test_report(iter_build):
    _, rep = iter_build
    c, t = rep["conventional"], rep["tlut"]
    assert rep["params"] == {"key": 128}
    assert t["tluts"] > 0 and t["ppc_ands"] > 0
    assert t["ffs"] <= c["ffs"] - 128               # the on-the-fly round-key register is gone
    assert t["luts"] < c["luts"]


def test_check_all_vectors(iter_build):
    res = check_build(iter_build[0], progress=False)
    assert res.total == 284 and res.passed == 284, res.failures[:3]


def test_check_detects_wrong_ciphertext(iter_build, tmp_path, dcsflow):
    v = load_kat()[10]
    bad = type(v)(v.source, v.key, v.plaintext, bytes([v.ciphertext[0] ^ 1]) + v.ciphertext[1:])
    f = tmp_path / "bad.rsp"
    subset_rsp(f, [v, bad])
    r = dcsflow("check", iter_build[0], "--vectors", f, "--quiet")
    assert r.returncode == 1 and "passed 1/2" in r.stdout and "bad.rsp:ENCRYPT:1" in r.stdout, r.stdout + r.stderr


def test_check_frames(iter_build, tmp_path, dcsflow):
    vs = load_kat()
    pick = vs[7:28:4] + vs[0:2]                      # KeySbox keys and the zero key
    f = tmp_path / "sub.rsp"
    subset_rsp(f, pick)
    r = dcsflow("check", iter_build[0], "--frames", "--vectors", f, "--quiet")
    assert r.returncode == 0 and f"passed {len(pick)}/{len(pick)}" in r.stdout, r.stdout + r.stderr


def test_rekey(iter_build, tmp_path, dcsflow):
    rekey_cli(dcsflow, iter_build[0], tmp_path)


def test_firmware_host_and_qemu(iter_build, tmp_path, dcsflow):
    keys = [v.key.hex() for v in load_kat()[7:10]] + ["f" * 32]
    firmware_host_and_qemu(dcsflow, iter_build[0], tmp_path, keys)
