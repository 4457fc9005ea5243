"""One cocotb run for :mod:`dcsflow.flow.cocotb_check`, in its own process.

Reads a JSON job on stdin (``sources``, ``top``, ``module``: the test module's file, ``work``: a
private folder, ``env``: extra environment of the simulation) and prints one JSON line
``{"passed": bool, "reason": str}`` (or ``{"missing": module}`` when cocotb is not installed).
cocotb's own output goes to ``work/cocotb.log``. A run passes only when at least one test ran and
every test passed: a skipped test, or a module without tests, is a failure (a check that tested
nothing must not read as passed).
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path


def results(xml: Path) -> tuple[int, int, list[str]]:
    """Tests, failed tests and the names of skipped tests in cocotb's JUnit ``results.xml``
    (one ``<testcase>`` per test; ``<failure>``/``<error>`` mark a failure, ``<skipped>`` a skip).

    Raises:
        RuntimeError: the file is missing (the simulation ended abnormally). ElementTree.ParseError:
        it is not XML.
    """
    if not xml.is_file():
        raise RuntimeError(f"simulation ended abnormally: no {xml.name}")
    tests, failed, skipped = 0, 0, []
    for case in ElementTree.parse(xml).getroot().iter("testcase"):
        tests += 1
        if case.find("skipped") is not None:
            skipped.append(case.get("name", "?"))
        elif case.find("failure") is not None or case.find("error") is not None:
            failed += 1
    return tests, failed, skipped


def _tail(log: Path, n: int = 3) -> str:
    try:
        lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return "no log"
    lines = [ln for ln in lines if not ln.startswith("**")]      # cocotb's summary table
    fails = [ln for ln in lines if "FAIL" in ln or "Error" in ln or "assert" in ln.lower()]
    return " | ".join((fails or lines)[-n:])[-400:]


def main() -> int:
    job = json.loads(sys.stdin.read())
    try:
        from cocotb_tools.runner import get_runner
    except ImportError as e:
        print(json.dumps({"missing": getattr(e, "name", None) or "cocotb"}))
        return 0
    work, module = Path(job["work"]), Path(job["module"])
    sys.path.insert(0, str(module.parent))       # the runner hands sys.path to the simulator's Python
    log = work / "cocotb.log"
    runner = get_runner("icarus")
    try:
        runner.build(sources=job["sources"], hdl_toplevel=job["top"], build_dir=work / "sim_build", always=True,
                     timescale=("1ns", "1ps"), log_file=log)
        xml = runner.test(test_module=module.stem, hdl_toplevel=job["top"], build_dir=work / "sim_build",
                          test_dir=work, extra_env=job["env"], results_xml=str(work / "results.xml"),
                          log_file=work / "cocotb_test.log")
        tests, failed, skipped = results(Path(xml))
    except (Exception, SystemExit) as e:  # noqa: BLE001 - any failure of the run is this value's FAIL
        reason = _tail(work / "cocotb_test.log") if (work / "cocotb_test.log").exists() else _tail(log)
        print(json.dumps({"passed": False, "reason": f"{type(e).__name__}: {e}; {reason}"[:500]}))
        return 0
    if tests == 0:
        print(json.dumps({"passed": False, "reason": "no test ran: " + _tail(work / "cocotb_test.log")}))
    elif skipped:
        print(json.dumps({"passed": False, "reason": f"{len(skipped)} of {tests} tests skipped (a skipped test "
                                                     f"checks nothing): {', '.join(skipped)}"[:500]}))
    elif failed:
        print(json.dumps({"passed": False, "reason": f"{failed} of {tests} tests failed: "
                                                     + _tail(work / "cocotb_test.log")}))
    else:
        print(json.dumps({"passed": True, "reason": ""}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
