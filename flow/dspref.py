"""The DSP48E1 reference of a design whose multiplier has a parameter operand.

Such a multiplier is built from LUTs in both implementations (the TLUT build's chunk products, the
conventional build's soft multiplier: :mod:`dcsflow.flow.frontend`), so that the two differ only in
how the same multiplier is mapped. A designer without specialization would let Vivado or Yosys put
it into a DSP48E1, so the comparison's baseline is stated with that alternative beside it: the
front end runs Yosys's own ``synth_xilinx -flatten`` on the same sources (the read commands of
``frontend/frontend.ys``), with DSP inference, and counts the LUTs, DSP48E1s, flip-flops and CARRY4
of the result (``frontend/dsp_reference.json``). :func:`describe` gives the phrase the build's
output, its report and its page use ("LUT-only multiplier ...; with DSP48E1: 0 LUTs, 0 flip-flops + 1
DSP48E1": the 8-bit multiplier of the tutorial and its output register fit one DSP48E1).
"""

from __future__ import annotations

import re
from pathlib import Path

from dcsflow.fileio import NETLIST_LIMIT, load_json_file

#: the front end's files this module reads and writes (in the build's ``frontend/``)
PROBE_COUNT = "probe_count.txt"
FRONTEND_SCRIPT = "frontend.ys"
NETLIST = "dsp_reference.json"


def needed(fdir: Path, mul_chunk: int | None) -> bool:
    """True when the front end found a multiplier with a parameter operand (its probe's count,
    ``probe_count.txt``, written by Yosys ``select -count``) and split it into LUT-sized chunk
    products (``mul_chunk`` not 0), so that both implementations build it from LUTs."""
    if not mul_chunk:
        return False
    try:
        m = re.search(r"(\d+)\s+objects", (fdir / PROBE_COUNT).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return False
    return bool(m and int(m.group(1)) > 0)


def script(fdir: Path, top: str) -> str:
    """The reference's Yosys script: the front end's read commands (the lines of ``frontend.ys``
    before its first ``synth_xilinx``), then ``synth_xilinx -flatten -top TOP`` and ``write_json``."""
    lines = []
    for ln in (fdir / FRONTEND_SCRIPT).read_text(encoding="utf-8").splitlines():
        if ln.lstrip().startswith("synth_xilinx"):
            break
        lines.append(ln)
    return "\n".join(lines + [f"synth_xilinx -flatten -top {top}", f"write_json {NETLIST}"]) + "\n"


def run(fdir: Path, top: str) -> dict:
    """Run the reference synthesis in ``fdir`` and count its cells: ``{"luts", "dsp48e1", "ffs",
    "carry4", "seconds"}``.

    Raises:
        dcsflow.flow.yosys.YosysError: Yosys failed. OSError: ``frontend.ys`` is missing.
    """
    from .netlist import FF_TYPES, LUT_TYPES
    from .yosys import run_script

    secs = run_script(script(fdir, top), fdir, "dsp_reference", None)
    mod = load_json_file(fdir / NETLIST, NETLIST_LIMIT)["modules"][top]
    types = [str(c.get("type")) for c in mod["cells"].values()]
    return {"luts": sum(t in LUT_TYPES for t in types), "dsp48e1": sum(t.startswith("DSP48") for t in types),
            "ffs": sum(t in FF_TYPES for t in types), "carry4": types.count("CARRY4"), "seconds": round(secs, 3)}


def describe(ref: dict | None) -> str | None:
    """The baseline phrase of a report's ``dsp_reference`` (None when the design has none)."""
    if not ref:
        return None
    head = "LUT-only multiplier (both implementations build the multiplier with a parameter operand from LUTs)"
    if not ref["dsp48e1"]:
        return (f"{head}; Yosys synth_xilinx, DSP48E1 allowed, uses none for it: {ref['luts']} LUTs, "
                f"{ref['ffs']} flip-flops")
    return (f"{head}; with DSP48E1: {ref['luts']} LUTs, {ref['ffs']} flip-flops + {ref['dsp48e1']} DSP48E1 "
            "(Yosys synth_xilinx)")
