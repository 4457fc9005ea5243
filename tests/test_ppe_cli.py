"""``dcsflow ppe asm|run``: one line per input error, never a traceback."""

from __future__ import annotations

from pathlib import Path

from dcsflow.designs.ppe import asm

PI16 = Path(asm.__file__).resolve().parent / "programs" / "pi16.s"


def test_asm_and_run_pi16_zero_state(dcsflow, tmp_path):
    r = dcsflow("ppe", "asm", PI16, "-o", tmp_path / "pi16.obj")
    assert r.returncode == 0 and "208 instruction words (of 512), 32 coefficient words" in r.stdout
    r = dcsflow("ppe", "run", tmp_path / "pi16.obj", "--in", " ".join(["0"] * 16))
    assert r.returncode == 0, r.stderr
    # PI16CIPHER.md: π(0) starts 0274 2A3D; all four lanes alike
    assert r.stdout.split()[:2] == ["0274027402740274", "2a3d2a3d2a3d2a3d"]
    assert "cycles 560 halted" in r.stderr


def test_errors_are_one_line(dcsflow, tmp_path):
    (tmp_path / "bad.s").write_text("nop\nadd r1, r2\n")
    cases = [
        (("ppe", "asm", tmp_path / "bad.s"), "bad.s:2: '…' takes 3 operands"),
        (("ppe", "asm", tmp_path / "bad.s", "--show-text"), "bad.s:2: 'add' takes 3 operands"),
        (("ppe", "run", tmp_path / "bad.s"), "bad.s:2: '…' takes 3 operands"),
        (("ppe", "run", PI16, "--in", "zz"), "--in: 'zz' is not a hex word"),
        (("ppe", "run", PI16, "--in", "1"), "reads 'in' after all 1 input words were used"),
        (("ppe", "run", tmp_path / "missing.s"), "missing.s"),
    ]
    for args, msg in cases:
        r = dcsflow(*args)
        assert r.returncode != 0
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and msg in lines[0], r.stderr
        assert "Traceback" not in r.stderr
