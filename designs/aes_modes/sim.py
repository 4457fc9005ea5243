"""Simulation driver of the AES-128 modes RTL (``designs/aes_modes/rtl``) under Icarus Verilog.

So far the GF(2^128) multiplier ``gf128_mul`` (GCM bit order, SP 800-38D §6.3) with the test bench
``tb/tb_gf128_mul.v``: :func:`run_mul` computes single products, :func:`run_ghash` GHASH chains
(§6.4) through the one combinational multiplier, all in ONE simulator process per call. Both write
the test bench's stimulus file and parse its result file (formats in the test bench's header);
expected values come from elsewhere (:mod:`dcsflow.designs.aes_modes.model`, ``cryptography``, the
NIST files), never from these functions.

Values are 128-bit blocks as big-endian integers of their 16 bytes (the block's leftmost bit is
bit 127), as in :mod:`dcsflow.designs.aes_modes.model`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from dcsflow.flow.simulate import icarus, last_output

from .errors import InputError, SimulationError, SimulatorMissing

HERE = Path(__file__).resolve().parent
RTL_DIR = HERE / "rtl"
TB_MUL = HERE / "tb" / "tb_gf128_mul.v"
_MASK = (1 << 128) - 1


def rtl_files() -> list[Path]:
    """Verilog sources of the design's RTL (so far ``gf128_mul.v``)."""
    return sorted(RTL_DIR.glob("*.v"))


def _value(v, what: str) -> int:
    if isinstance(v, (bytes, bytearray)):
        if len(v) != 16:
            raise InputError(f"{what} must be 16 bytes (128 bits), got {len(v)}")
        return int.from_bytes(v, "big")
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= _MASK:
        raise InputError(f"{what} must be a 128-bit value (0 .. 2^128 - 1) or 16 bytes")
    return v


def _run(stim_text: str, n_results: int, workdir) -> list[int]:
    tmp = None
    if workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="gf128-sim-")
        workdir = tmp.name
    try:
        wd = Path(workdir)
        wd.mkdir(parents=True, exist_ok=True)
        stim, res = wd / "stim.txt", wd / "res.txt"
        stim.write_text(stim_text)
        r = icarus([*rtl_files(), TB_MUL], wd, plusargs=[f"+in={stim}", f"+out={res}"],
                   error=SimulationError, missing=SimulatorMissing)
        if not res.exists():
            raise SimulationError("vvp wrote no result file" + last_output(r))
        lines = res.read_text().splitlines()
    finally:
        if tmp is not None:
            tmp.cleanup()
    if not lines or lines[0].split() != ["gf128-mul-results", "1"] or lines[-1:] != ["END"]:
        raise SimulationError("unreadable or incomplete gf128_mul result (no 'gf128-mul-results 1' ... 'END')")
    out = []
    for line in lines[1:-1]:
        f = line.split()
        if len(f) != 2 or f[0] != "R":
            raise SimulationError(f"unreadable simulation result line {line[:60]!r}")
        try:
            out.append(int(f[1], 16))
        except ValueError:
            raise SimulationError(f"unreadable simulation result line {line[:60]!r}") from None
    if len(out) != n_results:
        raise SimulationError(f"gf128_mul result has {len(out)} of {n_results} values")
    return out


def run_mul(pairs: list[tuple[int | bytes, int | bytes]], workdir: str | Path | None = None) -> list[int]:
    """The products x·y (SP 800-38D §6.3) of ``pairs`` = [(x, y)] computed by ``gf128_mul`` in one
    Icarus run; values are 128-bit integers or 16-byte blocks, results integers.

    Args:
        workdir: folder for the files (default: a private temporary folder, removed afterwards).
    Raises:
        InputError: a value out of range. SimulationError: Icarus failing, unreadable output
            (SimulatorMissing: Icarus not installed).
    """
    lines = ["gf128-mul 1"]
    for x, y in pairs:
        lines.append(f"M {_value(x, 'x'):032x} {_value(y, 'y'):032x}")
    return _run("\n".join(lines) + "\n", len(pairs), workdir)


def run_ghash(jobs: list[tuple[bytes, bytes]], workdir: str | Path | None = None) -> list[bytes]:
    """GHASH_H(X) (SP 800-38D §6.4) of ``jobs`` = [(H, X)] with every product computed by
    ``gf128_mul`` (the test bench chains Y_i = (Y_{i-1} ^ X_i)·H), in one Icarus run; H is 16 bytes,
    X a multiple of 16 bytes (empty: Y_0 = 0). Returns the 16-byte results.

    Raises:
        InputError: H not 16 bytes, X not a multiple of 16 bytes. SimulationError: as :func:`run_mul`.
    """
    lines = ["gf128-mul 1"]
    for h, x in jobs:
        hv = _value(h, "H")
        if not isinstance(x, (bytes, bytearray)) or len(x) % 16:
            raise InputError("GHASH input must be bytes, a multiple of 16 bytes long")
        lines.append(f"G {hv:032x} {len(x) // 16:x}")
        lines += [f"B {x[i:i + 16].hex()} 0" for i in range(0, len(x), 16)]
    return [v.to_bytes(16, "big") for v in _run("\n".join(lines) + "\n", len(jobs), workdir)]
