"""A tiny third-party design package for the tests: its own folder plus one entry point.

``tinyxor``: ``y = (d ^ key) ^ (rotl(d, 1) & key)`` with the 8-bit ``key`` as ``(* PARAM *)``
parameter input. It registers itself exactly as any design package would (``entry_points.txt`` of
``dcsflow_tiny-0.1.dist-info`` beside this folder: ``tiny_keyxor = dcsflow_tiny:DESIGN``) and
brings its own check: a Verilog test bench driving all 256 values of ``d``, compared with the
Python model below, through the flow's simulator runner.
"""

from __future__ import annotations

from pathlib import Path

from dcsflow.fileio import write_text_atomic
from dcsflow.flow.design import Design, DesignCheck
from dcsflow.flow.simulate import icarus
from dcsflow.flow.yosys import cells_sim

HERE = Path(__file__).resolve().parent
KEYS = (0x00, 0xA5, 0x3C)


def model(key: int, d: int) -> int:
    """The golden model of tinyxor."""
    rot = ((d << 1) | (d >> 7)) & 0xFF
    return (d ^ key) ^ (rot & key)


def run_group(work: Path, verilog: str, top: str, cases: list):
    """Simulate the netlist specialized for ``cases[0]`` on every d; one (ok, reason) per case."""
    net = work / "netlist.v"
    write_text_atomic(net, verilog, private=True)
    out = icarus([net, HERE / "tb_tinyxor.v", cells_sim()], work).stdout
    got = {int(f[1], 16): int(f[2], 16) for f in (ln.split() for ln in out.splitlines()) if f and f[0] == "Y"}
    key = cases[0]
    bad = [d for d in range(256) if got.get(d) != model(key, d)]
    return [(not bad, f"{len(bad)} outputs differ, first d={bad[0]:02x}" if bad else "")], []


def check(build, options) -> DesignCheck:
    """Three fixed keys, one specialized netlist each."""
    return DesignCheck(list(KEYS), [({"key": k}, [i]) for i, k in enumerate(KEYS)], lambda k: f"key={k:02x}",
                       run_group)


DESIGN = Design(name="tiny_keyxor", top="tinyxor", sources=(HERE / "tinyxor.v",), check=check,
                description="test: an 8-bit key XOR, from a third-party package")
