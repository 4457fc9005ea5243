"""Vivado export against golden files (tests/data/vivado/, written by the implementation before the
templates): the small design keyxor without a board and on the Arty A7-35T, built through the CLI as
the golden files were; picipher on the PYNQ-Z1 is compared in tests/test_vivado.py (its module
fixture is that build)."""

from __future__ import annotations

import pytest

from _vivado_golden import assert_matches_golden

KEYXOR = "tests/data/flow/keyxor.v"


@pytest.mark.parametrize("case, board", [("keyxor", None), ("keyxor_arty-a7-35", "arty-a7-35")])
def test_keyxor_vivado_files_equal_golden(case, board, tmp_path, dcsflow):
    out = tmp_path / "kx"
    args = ["build", KEYXOR, "--out", out, "--backend", "vivado", "--quiet"] + (["--board", board] if board else [])
    r = dcsflow(*args)
    assert r.returncode == 0, r.stderr[-2000:]
    assert_matches_golden(out / "vivado", case, {"tluts.json"})
