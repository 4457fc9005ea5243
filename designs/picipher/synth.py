"""Yosys ``synth_xilinx`` resource counts of the message processor (for benchmarks and reports).

This is the plain baseline synthesis (ABC LUT mapping, the key as an ordinary input), not the
TLUT flow.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from dcsflow.tools import ToolMissing, find_tool, run_tool

from dcsflow.flow.yosys import quote, script_path

from .errors import SimulationError, SimulatorMissing
from .sim import rtl_files


@dataclass(frozen=True)
class SynthCounts:
    """Cell counts after ``synth_xilinx -flatten`` (family xc7).

    Attributes:
        top: top module; key_bits / buffer_key: its Verilog parameters (None for picipher_cis_mp).
        luts: LUT1..LUT6 cells; ffs: FDRE/FDSE/FDCE/FDPE cells; carry4: CARRY4 cells;
        cells: every cell type with its count.
    """

    top: str
    key_bits: int | None
    buffer_key: int | None
    luts: int
    ffs: int
    carry4: int
    cells: dict = field(default_factory=dict)


def synth_counts(key_bits: int | None = 96, buffer_key: int = 0, cis: bool = False) -> SynthCounts:
    """Run ``yosys synth_xilinx -flatten`` on picipher_mp (or picipher_cis_mp) and count cells.

    Raises:
        SimulationError: yosys failed; SimulatorMissing (a SimulationError and a ToolMissing): yosys
            missing (``$DCSFLOW_YOSYS`` overrides where it is found).
    """
    try:
        exe = find_tool("yosys")
    except ToolMissing as e:
        raise SimulatorMissing(str(e)) from None
    top = "picipher_cis_mp" if cis else "picipher_mp"
    chp = "" if cis else f"chparam -set KEY_BITS {key_bits} -set BUFFER_KEY {buffer_key} picipher_mp; "
    with tempfile.TemporaryDirectory(prefix="picipher-synth-") as td:
        out = Path(td) / "stat.json"
        script = (f"read_verilog {' '.join(quote(script_path(f, Path(td))) for f in rtl_files(cis))}; {chp}"
                  f"synth_xilinx -flatten -top {top}; tee -q -o stat.json stat -json")
        r = run_tool([exe, "-q", "-p", script], tool="yosys", what=f"synth_xilinx {top} (cell counts)", cwd=td)
        if r.returncode != 0 or not out.exists():
            raise SimulationError("yosys failed: " + (r.stderr or r.stdout).strip()[-500:])
        mods = json.loads(out.read_text())["modules"]
    (stats,) = [m for name, m in mods.items() if name.lstrip("\\").startswith(top)]
    cells = dict(stats["num_cells_by_type"])
    luts = sum(v for k, v in cells.items() if k.startswith("LUT"))
    ffs = sum(v for k, v in cells.items() if k in ("FDRE", "FDSE", "FDCE", "FDPE"))
    return SynthCounts(top, None if cis else key_bits, None if cis else buffer_key, luts, ffs,
                       cells.get("CARRY4", 0), cells)
