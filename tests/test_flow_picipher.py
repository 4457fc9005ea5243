"""End to end: build the π16 message processor (TLUT + conventional) and check specialized netlists
against official vectors (independent reference: the CAESAR submission's CIPHER fields)."""

from __future__ import annotations

import json

import pytest

from _picipher_records import record_text as _record
from dcsflow.designs.picipher.check import select_vectors

#: reads the main job's build (tests/_buildcache.py): scheduled after the other tests
pytestmark = pytest.mark.demo_builds


def test_picipher_build_and_check(tmp_path, dcsflow, builds):
    from dcsflow.designs.picipher.vectors import load_official

    out = builds.get("picipher", design="picipher")
    rep = json.loads((out / "report.json").read_text())
    c, t = rep["conventional"], rep["tlut"]
    assert rep["params"] == {"key_mn": 128}
    assert t["tluts"] > 0 and t["luts"] + t["ffs"] < c["luts"] + c["ffs"]
    assert t["ffs"] <= c["ffs"] - 128                    # BUFFER_KEY=1 key buffer folded away
    assert json.loads((out / "report.json").read_text())["tlut"]["tluts"] == t["tluts"]

    vecs = select_vectors(load_official(96), 96)
    pick = [v for v in vecs if len(v.msg) in (7, 24)]
    bad = pick[0]
    flipped = bytes([bad.cipher[0] ^ 1]) + bad.cipher[1:]
    vf = tmp_path / "v.txt"
    vf.write_text("".join(_record(v, v.cipher) for v in pick) + _record(bad, flipped))
    r = dcsflow("check", out, "--vectors", vf, "--quiet")
    assert "passed 2/3" in r.stdout and r.returncode == 1, r.stdout + r.stderr
    assert f"vector #{bad.number}" in r.stdout
