"""Runs the PPE RTL under Icarus Verilog (test bench ``designs/ppe/tb/tb_ppe.v``).

:func:`simulate` writes the program, coefficient image and input words as ``$readmemh`` files,
runs the bench and parses its result file (``ppe-results 1``, docs/formats.md).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from dcsflow.flow.simulate import SimulatorError, icarus

from . import isa

HERE = Path(__file__).resolve().parent
RTL_FILES = (HERE / "rtl" / "ppe_core.v", HERE / "rtl" / "ppe.v")
TB_FILE = HERE / "tb" / "tb_ppe.v"
PROG_FILES = (HERE / "rtl" / "ppe_core.v", HERE / "rtl" / "ppe_prog.v")
PROG_TB_FILE = HERE / "tb" / "tb_ppe_prog.v"
#: tops :func:`simulate` can run
TOPS = ("ppe", "ppe_prog")
RESULTS_MAGIC, RESULTS_VERSION = "ppe-results", 1


class PpeSimError(SimulatorError):
    """Icarus missing or failed, or the bench wrote an unreadable result file."""

    user_error = True


@dataclass
class SimResult:
    """What the RTL did.

    Attributes:
        outputs: words taken from the output port, in order (both runs).
        cycles: per run, cycles from ``start`` to the fall of ``busy`` (stalls included).
        halted: per run, whether it halted within the cycle limit.
        inputs_used: input words consumed (all runs).
        regs, coef: the 64 registers and 64 coefficient words at the end.
        lc, b: loop counter and coefficient base at the end.
    """

    outputs: list[int]
    cycles: list[int]
    halted: list[bool]
    inputs_used: int
    regs: list[int]
    coef: list[int]
    lc: int
    b: int


def rtl_files() -> list[Path]:
    """Verilog sources of the PE with its memories (top ``ppe``; the core is ``ppe_core``)."""
    return list(RTL_FILES)


def _hex(path: Path, words: Sequence[int]) -> None:
    path.write_text("".join(f"{w & isa.WORD_MASK:016x}\n" for w in words) or "0\n")


def simulate(words: Sequence[int], coef: Sequence[int], inputs: Sequence[int] = (), *,
             imem_depth: int = isa.DEFAULT_IMEM, second: tuple[Sequence[int], int] | None = None,
             seed: int = 0, max_cycles: int = 200_000, workdir: Path | None = None,
             top: str = "ppe", program_ram: int = 0, starts: Sequence[int] | None = None) -> SimResult:
    """Load ``words`` at address 0 and ``coef`` through the write ports, run from 0, collect results.

    ``top="ppe_prog"`` runs the program-as-parameter top instead (bench ``tb/tb_ppe_prog.v``; one
    run, no ``second``; ``program_ram`` 0: contents on the parameter ports, 1: written through the
    narrow port; ``imem_depth`` must be a power of two). Its result has no coefficient dump (zeros).

    Args:
        words: instruction words (at most ``imem_depth``); coef: up to 64 coefficient words.
        inputs: words offered on the input port, in order (at most 65,536).
        second: (words2, addr2): a second program written at ``addr2`` through the instruction
            write port *while the first runs*, started at ``addr2`` after the first halts.
        seed: nonzero: random ``in_valid``/``out_ready`` stalls (cycle counts then include stalls).
        starts: (top ``ppe`` only, not with ``second``) several runs back to back on one PE, run k
            from address ``starts[k]`` (1 to 65,536 runs); registers, coefficients, ``lc`` and ``b``
            carry over, the input stream is shared.
        max_cycles: limit per run. workdir: where to compile (default: a temporary folder).
    Raises:
        PpeSimError: the simulator is missing, failed, or its result file is malformed.
        ValueError: a program does not fit ``imem_depth``.
    """
    if top not in TOPS:
        raise ValueError(f"top must be one of {', '.join(TOPS)}, got {top!r}")
    if top == "ppe_prog" and (second is not None or imem_depth & (imem_depth - 1)):
        raise ValueError("ppe_prog: one program, imem_depth a power of two")
    if starts is not None:
        starts = [int(a) for a in starts]
        if top != "ppe" or second is not None:
            raise ValueError("starts: top ppe only, and not with a second program")
        if not 1 <= len(starts) <= 65536 or not all(0 <= a < imem_depth for a in starts):
            raise ValueError(f"starts: 1..65536 addresses in 0..{imem_depth - 1}")
    if len(words) > imem_depth:
        raise ValueError(f"{len(words)} words do not fit an instruction memory of {imem_depth}")
    if second is not None and second[1] + len(second[0]) > imem_depth:
        raise ValueError("the second program does not fit the instruction memory at its address")
    with tempfile.TemporaryDirectory(prefix="ppe-sim-") as tmp:
        w = Path(workdir) if workdir else Path(tmp)
        w.mkdir(parents=True, exist_ok=True)
        _hex(w / "prog.hex", words)
        _hex(w / "coef.hex", list(coef) + [0] * (isa.NCOEF - len(coef)))
        _hex(w / "in.hex", inputs)
        plus = [f"+prog={w / 'prog.hex'}", f"+nprog={len(words)}", f"+coef={w / 'coef.hex'}",
                f"+in={w / 'in.hex'}", f"+nin={len(inputs)}", f"+out={w / 'out.txt'}",
                f"+max={max_cycles}", f"+seed={seed}"]
        if second is not None:
            _hex(w / "prog2.hex", second[0])
            plus += [f"+prog2={w / 'prog2.hex'}", f"+nprog2={len(second[0])}", f"+addr2={second[1]}"]
        if starts is not None:
            (w / "starts.hex").write_text("".join(f"{a:03x}\n" for a in starts))
            plus += [f"+starts={w / 'starts.hex'}", f"+nstarts={len(starts)}"]
        if top == "ppe":
            icarus([*RTL_FILES, TB_FILE], w, top="tb_ppe", parameters={"IMEM_DEPTH": imem_depth},
                   plusargs=plus, name="tb_ppe", error=PpeSimError, missing=PpeSimError)
        else:
            icarus([*PROG_FILES, PROG_TB_FILE], w, top="tb_ppe_prog",
                   parameters={"IMEM_DEPTH": imem_depth, "PROGRAM_RAM": program_ram},
                   plusargs=plus, name="tb_ppe_prog", error=PpeSimError, missing=PpeSimError)
        return _parse(w / "out.txt")


def _parse(path: Path) -> SimResult:
    try:
        lines = path.read_text().split("\n")
    except OSError as e:
        raise PpeSimError(f"the test bench wrote no result file {path}: {e.strerror}") from None
    if not lines or lines[0].strip() != f"{RESULTS_MAGIC} {RESULTS_VERSION}":
        raise PpeSimError(f"{path}:1: not a {RESULTS_MAGIC} {RESULTS_VERSION} file")
    outs, cycles, halted = [], [], []
    regs, coef = [0] * isa.NREGS, [0] * isa.NCOEF
    lc = b = 0
    used = 0
    ended = False
    for i, line in enumerate(lines[1:], start=2):
        p = line.split()
        if not p:
            continue
        try:
            if p[0] == "out":
                outs.append(int(p[1], 16))
            elif p[0] == "run":
                cycles.append(int(p[3]))
                halted.append(p[5] == "1")
                used = int(p[7])
            elif p[0] == "r":
                regs[int(p[1])] = int(p[2], 16)
            elif p[0] == "c":
                coef[int(p[1])] = int(p[2], 16)
            elif p[0] == "lc":
                lc, b = int(p[1]), int(p[3])
            elif p[0] == "end":
                ended = True
            else:
                raise ValueError
        except (ValueError, IndexError):
            raise PpeSimError(f"{path}:{i}: unreadable line '{line.strip()}' (x or z values?)") from None
    if not ended:
        raise PpeSimError(f"{path}: result file ends early")
    return SimResult(outs, cycles, halted, used, regs, coef, lc, b)
