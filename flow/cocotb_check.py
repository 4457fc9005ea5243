"""A design's check as a cocotb test (``dcsflow.toml`` ``[check] cocotb = ...``, or a package's design).

For N random values of the build's user parameters (``dcsflow check --keys N``, default 3, at most
:data:`~dcsflow.flow.design.MAX_KEYS`; ``--seed``
makes them repeatable) the netlist specialized for each value is simulated with cocotb (Icarus
Verilog, Yosys's ``xilinx/cells_sim.v``) running the user's test module, which reads the value from
:func:`dcsflow.testing.parameter_values`. One line per value (``key=...: passed`` / ``FAILED``);
every run passes or ``check`` exits non-zero; a run in which no test ran, or a test was skipped,
fails (it tested nothing). Each run is its own process (:mod:`._cocotb_run`), in
a private temporary folder that is deleted afterwards (the netlist holds the key); its output goes to
a log there, whose last lines become the failure reason.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path
from typing import Callable

from dcsflow.fileio import write_text_atomic
from dcsflow.limits import DEFAULT_LIMITS
from dcsflow.testing import ENV_VAR
from dcsflow.tools import ToolTimeout, last_line, run_tool

from .design import CheckError, CheckOptions, DesignCheck, check_keys

#: random parameter values per check when neither --keys nor the project says otherwise
DEFAULT_KEYS = 3
#: seconds one cocotb run may take unless --timeout or the project's [build] timeout says otherwise
#: (:mod:`dcsflow.limits`, tool ``cocotb``)
RUN_TIMEOUT = DEFAULT_LIMITS["cocotb"]


def _hex(value: int, bits: int) -> str:
    return f"{value:0{(bits + 3) // 4}x}"


def cocotb_check(test_module: Path, default_keys: int | None = None) -> Callable[..., DesignCheck]:
    """The ``Design.check`` function that runs cocotb test module ``test_module`` (a ``.py`` file)
    against the specialized netlist of each random parameter value (module docstring)."""
    test_module = Path(test_module)
    if default_keys is not None:
        check_keys(default_keys, "check.keys")

    def check(build, options: CheckOptions) -> DesignCheck:
        if not test_module.is_file():
            raise CheckError(f"cocotb test {test_module} not found")
        ports = build.user_params
        n = options.keys if options.keys is not None else default_keys if default_keys is not None else DEFAULT_KEYS
        check_keys(n)
        rng = random.Random(options.seed) if options.seed is not None else random.SystemRandom()
        values = [{p: rng.getrandbits(w) for p, w in ports.items()} for _ in range(n)]

        def label(v: dict) -> str:
            return " ".join(f"{p}={_hex(x, ports[p])}" for p, x in v.items())

        def run_group(work: Path, verilog: str, top: str, cases: list):
            ok, why = run_cocotb(work, verilog, top, test_module, {p: _hex(x, ports[p]) for p, x in cases[0].items()},
                                 label(cases[0]))
            return [(ok, why)], []

        return DesignCheck(values, [(v, [i]) for i, v in enumerate(values)], label, run_group, each_line=True)

    return check


def run_cocotb(work: Path, verilog: str, top: str, test_module: Path, values: dict[str, str],
               label: str = "") -> tuple[bool, str]:
    """Run ``test_module`` under cocotb on ``verilog`` (written with mode 0600 into the private
    folder ``work``) with the parameter values (hex strings) in :data:`dcsflow.testing.ENV_VAR`.
    The run (Icarus and the test's Python) has the time limit of tool ``cocotb``
    (:mod:`dcsflow.limits`). Returns (passed, reason: the failing tests or the tail of the log).

    Raises:
        CheckError: cocotb is not installed.
        ToolTimeout: the run went past its time limit (one line naming the test bench, ``label``: the
            parameter values in words, and the limit); the run and the simulator were ended.
    """
    from .yosys import cells_sim

    net = work / "netlist.v"
    write_text_atomic(net, verilog, private=True)
    spec = {"sources": [str(net), str(cells_sim())], "top": top, "module": str(test_module.resolve()),
            "work": str(work), "env": {ENV_VAR: json.dumps(values)}}
    # not under pytest even when the check itself is (cocotb's runner behaves differently there)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    try:
        r = run_tool([sys.executable, "-m", "dcsflow.flow._cocotb_run"], tool="cocotb", input=json.dumps(spec),
                     what=f"{test_module.name}" + (f" for {label}" if label else ""), env=env)
    except ToolTimeout as e:
        raise ToolTimeout(f"cocotb test bench {test_module.name}", f"check, {label}" if label else "check",
                          e.seconds, e.source) from None
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    try:
        res = json.loads(lines[-1])
    except (IndexError, ValueError):
        return False, "cocotb run failed: " + (last_line(r.stderr, 300) or last_line(r.stdout, 300) or "no output")
    if res.get("missing"):
        raise CheckError(f"the check needs cocotb ({res['missing']}): pip install 'dcsflow[flow]'")
    return bool(res.get("passed")), res.get("reason", "")
