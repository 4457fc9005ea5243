"""scg.affine: affine TLUT rows (frame-order butterfly + ECC from half-word parities) against the
Python SCG (scg.plan.plan: PPC entries bit by bit, ECC recomputed from the changed words).

The firmware C of the same rows is compared with the Python SCG in tests/test_scg_firmware.py (the
synthetic build there has the affine TLUTs of scg._synthetic.AFFINE_SITES).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from dcsflow.flow.paths import REPO_ROOT
from dcsflow.scg import buildfolder as bf, plan as pl
from dcsflow.scg.errors import BuildFolderError
from dcsflow.scg._synthetic import AFFINE_SITES, make_build
from dcsflow.scg.affine import _vmap, affine_rows, group_tables
from dcsflow.affine import xor_permute
from dcsflow.scg.codegen import needed_outputs, patch_model

from _builds import reseal


@pytest.fixture(scope="module")
def syn(tmp_path_factory):
    return make_build(tmp_path_factory.mktemp("aff") / "b", key_bits=24)


def test_rows_cover_every_affine_tlut_and_model_equals_plan(syn):
    b = bf.load_build(syn)
    rows, covered = affine_rows(b)
    # the 6-input ones become rows; the last (2 entries: cheaper bit by bit, scg.affine.generic_cost) not
    names = [r.name for r in rows]
    assert len(rows) >= 3 and f"a_{AFFINE_SITES[-1][0]}_{AFFINE_SITES[-1][1]}" not in names
    assert all(f"a_{s}_{bel}" in names for s, bel, k, _ in AFFINE_SITES if k == 6)
    assert len(covered) == 64 * len(rows)
    # the TLUTs sharing the first one's frontier form one group of 3 rows; ECC pre-summed per frame
    t = group_tables(rows)
    assert t.num_groups == len(rows) - 2 and t.groups[0] == 3
    assert len(t.rows) == 6 * len(rows)
    rnd = random.Random(4)
    for key in [0, (1 << 24) - 1] + [rnd.getrandbits(24) for _ in range(30)]:
        a = {"key": key}
        got = patch_model(b, b.ppc.evaluate(a), (rows, covered))
        want = pl.plan(b, a).frames
        assert set(got) == set(want)
        for far in want:
            assert got[far] == want[far], (hex(far), key)
    # the PPC evaluation only needs the frontier outputs of the affine TLUTs, not their entries
    need = needed_outputs(b, (rows, covered))
    aff_entries = {j for far, w, bit, j in b.entries if (far, w, bit) in covered}
    assert not aff_entries <= need and {j for r in rows for j in r.frontier} <= need


def test_without_records_everything_is_generic(tmp_path):
    b = bf.load_build(make_build(tmp_path / "b", affine=False))
    assert affine_rows(b) == ([], set())


def test_64_bit_permute_is_an_index_xor():
    rnd = random.Random(9)
    for _ in range(100):
        v, d = rnd.getrandbits(64), rnd.randrange(64)
        assert xor_permute(v, d, 6) == sum((v >> (i ^ d) & 1) << i for i in range(64))


def test_layout_checks():
    # 4 frames x one half-word, affine: accepted; a bit in the other half-word or a 5th frame: refused
    pos = [(f, 7, i % 16) for f in range(4) for i in range(16)]
    assert _vmap(pos, lambda f: f) is not None
    assert _vmap(pos[:-1] + [(3, 7, 16)], lambda f: f) is None
    assert _vmap(pos[:-1] + [(4, 7, 15)], lambda f: f) is None
    swapped = list(pos)
    swapped[1], swapped[2] = swapped[2], swapped[1]      # a bijection, but not affine (v(5) != v(4) ^ v(1))
    assert _vmap(swapped, lambda f: f) is None


def test_tampered_record_is_refused(syn, tmp_path):
    import shutil

    root = tmp_path / "t"
    shutil.copytree(syn, root)
    doc = json.loads((root / "ppc.json").read_text())
    name = sorted(doc["affine"])[0]
    rec = doc["affine"][name]
    rec["base"] = f"{int(rec['base'], 16) ^ 1:x}"
    (root / "ppc.json").write_text(json.dumps(doc))
    with pytest.raises(BuildFolderError, match="ppc.json does not match build.json"):
        bf.load_build(root)                   # a changed file is refused before anything else
    reseal(root)                              # as if the flow had written records of another PPC
    with pytest.raises(BuildFolderError, match="disagrees with the PPC"):
        affine_rows(bf.load_build(root))
    r = subprocess.run([sys.executable, "-m", "dcsflow.flow", "codegen", str(root), "--out", str(tmp_path / "g")],
                       cwd=REPO_ROOT, capture_output=True, text=True)
    assert r.returncode != 0 and r.stderr.startswith("error: ") and "disagrees with the PPC" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "g" / "scg_gen.c").exists()
    rec["cols"] = [99]
    (root / "ppc.json").write_text(json.dumps(doc))
    reseal(root)
    with pytest.raises(BuildFolderError, match=r"malformed PPC manifest \(field affine\..*\.cols\[0\]: out of range"):
        affine_rows(bf.load_build(root))
