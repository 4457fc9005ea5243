"""Running ABC (``yosys-abc``) as a subprocess: PPC optimization, equivalence proof, baseline mapping.

ABC: Berkeley Logic Synthesis and Verification Group, "ABC: A System for Sequential Synthesis and
Verification", https://github.com/berkeley-abc/abc (Yosys ships it as ``yosys-abc``). Found by the one
tool locator (:mod:`dcsflow.tools`, ``$DCSFLOW_ABC``).
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from dataclasses import dataclass

from dcsflow.aig import Aig, read_aiger, write_aiger
from dcsflow.fileio import write_bytes_atomic
from dcsflow import limits, tools
from dcsflow.tools import failure_message, find_tool, run_tool

from .errors import ToolError, ToolTimeout

_ANSI = re.compile(r"\x1b\[[0-9;]*m")

#: Baseline script (strongest area-oriented LUT mapping found in ABC's documentation and the EPFL
#: suite's reference runs): structural choices (&dch), area-oriented mapping (&if -a), then
#: don't-care-based resynthesis of the mapped network (&mfs). ``{K}`` is the LUT size.
BASELINE_AREA_SCRIPT = "&st; &dch; &if -K {K} -a; &mfs; &ps"
#: Depth-oriented reference (ABC's default mapper: depth-optimal priority cuts plus area recovery),
#: the same class of algorithm as TMAP's default mode.
BASELINE_DEPTH_SCRIPT = "&st; &if -K {K}; &ps"


def abc_binary() -> str:
    """Path of ABC: ``$DCSFLOW_ABC``, else ``yosys-abc``, ``abc`` or ``berkeley-abc`` on PATH
    (:func:`dcsflow.tools.find_tool`). Raises :class:`dcsflow.tools.ToolMissing` when none is there."""
    return find_tool("abc")


def run_abc(script: str, timeout: float | None = None, cwd: str | None = None, what: str = "") -> str:
    """Run an ABC command string (in folder ``cwd``, default the current one); returns stdout
    without colour codes. File names in ``script`` are best relative to ``cwd`` (ABC splits its
    commands at white space). ``what``: what the run does, for the timing records
    (:mod:`dcsflow.steps`; default: the script). ``timeout``: this run's own budget in seconds
    (None: ABC's time limit, :mod:`dcsflow.limits`).

    Raises:
        ToolMissing: ABC missing (:mod:`dcsflow.tools`).
        ToolError: ABC could not be started, exited non-zero, was killed by a signal (one line naming
            the program, its exit status or signal and the last line it printed:
            :func:`dcsflow.tools.failure_message`) or reported an error.
        ToolTimeout: ABC ran past its time limit (a ToolError and a :class:`dcsflow.tools.ToolTimeout`:
            one line naming the step and the limit).
    """
    exe = abc_binary()
    name = os.path.basename(exe)
    doing = f"running {script[:60]!r}"
    try:
        p = run_tool([exe, "-q", script], tool="abc", what=what or script[:200], timeout=timeout, cwd=cwd)
    except tools.ToolTimeout as e:
        raise ToolTimeout(e.tool, e.where, e.seconds, e.source) from None
    except OSError as e:
        raise ToolError(f"{name} ({exe}) could not be started: {e.strerror or e}") from None
    out = _ANSI.sub("", p.stdout + p.stderr)
    if p.returncode != 0:
        raise ToolError(failure_message(name, p.returncode, out, doing))
    if "Error:" in out or "Cannot " in out:
        tail = " | ".join(out.strip().splitlines()[-3:])
        raise ToolError(f"{name} failed {doing}: {tail}")
    return out


def optimize_aig(aig: Aig, script: str = "strash; dc2; dc2", timeout: float | None = None, what: str = "") -> Aig:
    """Optimize a combinational AIG with ABC (default ``strash; dc2; dc2``), keeping the order of
    inputs and outputs and the names. Returns the smaller of input and result. ``what``: what the
    run is for, in the timing records (:func:`run_abc`; default: the script).

    Raises:
        ToolMissing: ABC missing; ToolError: ABC failed; ToolTimeout after ``timeout`` seconds (None:
        ABC's time limit).
    """
    if aig.num_ands == 0:
        return aig
    with tempfile.TemporaryDirectory(prefix="tmap-abc-") as d:
        src, dst = os.path.join(d, "in.aig"), os.path.join(d, "out.aig")
        write_aiger(aig, src)
        out = run_abc(f"read in.aig; {script}; write_aiger out.aig", timeout=timeout, cwd=d, what=what or script)
        if not os.path.exists(dst):
            raise ToolError(f"yosys-abc wrote no result for {script!r}: {out.strip()[-200:]}")
        res = read_aiger(dst)
    if res.num_inputs != aig.num_inputs or res.num_outputs != aig.num_outputs:
        raise ToolError("yosys-abc changed the number of inputs or outputs of the AIG")
    res.input_names = list(aig.input_names)
    res.output_names = list(aig.output_names)
    res.comments = []
    return res if res.num_ands < aig.num_ands else aig


def _verdict(out: str) -> tuple[bool | None, str]:
    """ABC's verdict in ``out``: (True: proved equivalent, False: not equivalent, None: undecided or no
    verdict; the verdict line)."""
    lines = [ln.strip() for ln in out.splitlines() if "equivalent" in ln.lower() or "undecided" in ln.lower()]
    verdict = lines[-1] if lines else out.strip()[-200:]
    if any("NOT EQUIVALENT" in ln.upper() for ln in lines):
        return False, verdict
    if any("networks are equivalent" in ln.lower() for ln in lines):
        return True, verdict
    return None, verdict


#: the time limit of the first, quick engine of :func:`cec` (``&cec``), in seconds
QUICK_CEC_SECONDS = 20


def cec(a: Aig, b: Aig, seconds: float | None = 600.0, what: str = "") -> tuple[bool, str]:
    """Prove two combinational AIGs with equal input/output order equivalent with ABC (inputs and
    outputs matched by order; an undecided proof counts as not proved; ``seconds`` None: nine tenths
    of ABC's time limit, :mod:`dcsflow.limits`). ``what``: what is proved, in the timing records
    (:func:`run_abc`, e.g. ``"cec: netlist ∘ PPC vs AIG"``; default: the command).

    Three engines, each only when the ones before leave the proof undecided: ``&cec`` (simulation
    and SAT sweeping on the AIG package, 1,000 conflicts per node, at most :data:`QUICK_CEC_SECONDS`
    or a tenth of ``seconds``), ``dcec`` (FRAIG on structural choices, then SAT; 10^6 conflicts per
    SAT call), then ``cec`` (FRAIG + SAT, the same limits), sharing ``seconds``. ``dcec`` matches
    inputs and outputs by name, so every engine gets both AIGs without symbol tables (ABC then names
    them by position; ``&cec`` matches by position). On the Keccak core's rounds ``&cec`` proves an
    ABC-optimized AIG against the original in 2-3 s where ``dcec`` takes 45-65 s; on XOR-rich
    arithmetic (a parameter added to constants, the sums XORed) ``&cec`` had not decided the pair
    after 2 minutes (10^6 conflicts per node) and ``cec`` after 13, where ``dcec`` proves it in
    under a second.

    Returns:
        (equivalent, ABC's verdict line, e.g. "Networks are equivalent." / "... NOT EQUIVALENT" /
        "... UNDECIDED").
    """
    if seconds is None:
        seconds = max(1.0, 0.9 * limits.limit_for("abc")[0])
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tmap-cec-") as d:
        write_bytes_atomic(os.path.join(d, "a0.aig"), a.to_bytes(symbols=False))
        write_bytes_atomic(os.path.join(d, "b0.aig"), b.to_bytes(symbols=False))
        quick = max(1, int(min(QUICK_CEC_SECONDS, seconds / 10)))
        out = run_abc(f"&r a0.aig; &cec -T {quick} b0.aig", timeout=quick + 60, cwd=d,
                      what=f"{what} (&cec)" if what else "")
        ok, verdict = _verdict(out)
        left = seconds - (time.monotonic() - start)
        if ok is None and left >= 1:
            out = run_abc(f"dcec -T {max(1, int(left))} -C 1000000 a0.aig b0.aig", timeout=left + 60, cwd=d,
                          what=f"{what} (dcec)" if what else "")
            ok, verdict = _verdict(out)
        left = seconds - (time.monotonic() - start)
        if ok is None and left >= 1:
            write_aiger(a, os.path.join(d, "a.aig"))
            write_aiger(b, os.path.join(d, "b.aig"))
            out = run_abc(f"cec -n -T {int(left)} -C 1000000 a.aig b.aig", timeout=left + 60, cwd=d, what=what)
            ok, verdict = _verdict(out)
    return bool(ok), verdict


@dataclass
class Baseline:
    """ABC's LUT mapping of an AIG: LUT count, depth (LUT levels), wall time in seconds, script."""

    luts: int
    depth: int
    seconds: float
    script: str


def baseline(aig: Aig, K: int = 6, script: str = BASELINE_AREA_SCRIPT) -> Baseline:
    """Map ``aig`` (combinational view; parameters as ordinary inputs) with ABC and report LUTs and
    depth. ``script`` contains ``{K}``; its last command must be ``&ps``."""
    with tempfile.TemporaryDirectory(prefix="tmap-base-") as d:
        f = os.path.join(d, "in.aig")
        write_aiger(aig.combinational() if aig.num_latches else aig, f)
        s = script.format(K=K)
        t = time.perf_counter()
        out = run_abc(f"&r in.aig; {s}", cwd=d, what=f"LUT mapping baseline: {s}")
        sec = time.perf_counter() - t
    m = re.findall(r"lut\s*=\s*(\d+).*?lev\s*=\s*(\d+)", out)
    if not m:
        if aig.num_ands == 0:
            return Baseline(0, 0, sec, s)
        raise ToolError(f"cannot read LUT count from yosys-abc output: {out.strip()[-200:]}")
    return Baseline(int(m[-1][0]), int(m[-1][1]), sec, s)
