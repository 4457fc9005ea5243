"""End to end: build the π32 message processor (``picipher32``: W = 32, Key‖PMN = 256-bit parameter)
and check specialized netlists against official π32 records (independent reference: the reference
implementation's CIPHER fields). About 7 minutes on 2 cores (build 385 s): opt-in, ``DCSFLOW_SLOW_TESTS=1``."""

from __future__ import annotations

import os

import pytest

from _picipher_records import record_text as _record
from dcsflow.designs.picipher.check import select_vectors
from dcsflow.designs.picipher.vectors import load_official
from dcsflow.flow.build import BuildOptions, build

pytestmark = pytest.mark.skipif(os.environ.get("DCSFLOW_SLOW_TESTS") != "1",
                                reason="picipher32's build takes ~7 min on 2 cores: set DCSFLOW_SLOW_TESTS=1")


def test_picipher32_build_and_check(tmp_path, dcsflow):
    out = tmp_path / "picipher32"
    rep = build(BuildOptions(design="picipher32", out=out, progress=False)).report
    c, t = rep["conventional"], rep["tlut"]
    assert rep["params"] == {"key_mn": 256}
    assert t["tluts"] > 0 and t["luts"] + t["ffs"] < c["luts"] + c["ffs"]
    assert t["ffs"] <= c["ffs"] - 256                    # BUFFER_KEY=1 key buffer folded away

    vecs = select_vectors(load_official(128, 32), 128, 32)
    pick = [v for v in vecs if len(v.msg) in (5, 33)]
    bad = pick[0]
    flipped = bad.cipher[:-1] + bytes([bad.cipher[-1] ^ 1])      # a tag bit
    vf = tmp_path / "v.txt"
    vf.write_text("".join(_record(v, v.cipher) for v in pick) + _record(bad, flipped))
    r = dcsflow("check", out, "--vectors", vf, "--quiet")
    assert "passed 2/3" in r.stdout and r.returncode == 1, r.stdout + r.stderr
    assert f"vector #{bad.number}" in r.stdout
