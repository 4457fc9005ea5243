"""benchmarks/cfglut_bench.py's page (docs/results/cfglut.md) from small hand-made report.json figures:
the column "conventional, key register loaded over AXI4-Lite" takes the report's ``<mapper>@register``
candidate its choice rule picks (fewest slices, then LUTs, among the eligible ones), its load words
at the AXI4-Lite write cost; without such a candidate the chosen conventional baseline, with the
load words counted from the parameter widths and the register's flip-flops said to be left out. Every
bundled design gets a row. The expected cells are worked out here from the figures.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from dcsflow.flow.paths import REPO_ROOT
from dcsflow.scg import timemodel as tm

BENCH = REPO_ROOT / "benchmarks" / "cfglut_bench.py"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCH.parent))
    try:
        spec = importlib.util.spec_from_file_location("cfglut_bench", BENCH)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(BENCH.parent))
    return mod


def _cand(luts, ffs, slices, depth, eligible=None, **more):
    d = {"luts": luts, "ffs": ffs, "slices": slices, "depth": depth, "tluts": 0, **more}
    if eligible is not None:
        d["eligible"] = eligible
    return d


def frames_report(baselines: dict, params=None) -> dict:
    return {"design": "d", "top": "t", "params": params or {"key": 128},
            "conventional": {"luts": 2201, "ffs": 300, "depth": 9, "tluts": 0, "baseline": "abc-synch2"},
            "tlut": {"luts": 2069, "tluts": 128, "ffs": 172, "depth": 9},
            "backend": {"tlut": {"slices": 468, "slicem": 0}, "conventional": {"slices": 482, "slicem": 0}},
            "baselines": baselines}


def cfglut_report() -> dict:
    return {"design": "d", "top": "t", "params": {"key": 128},
            "conventional": {"luts": 2201, "ffs": 300, "depth": 9, "tluts": 0, "baseline": "abc-synch2"},
            "tlut": {"luts": 2192, "tluts": 0, "ffs": 428, "depth": 9},
            "backend": {"tlut": {"slices": 497, "slicem": 0}, "conventional": {"slices": 482, "slicem": 0}},
            "cfglut": {"cfglut5": 0, "param_bits": 128, "param_bit_luts": 128, "chains": 4, "chain_luts": 1,
                       "words": 32, "shift_cycles": 34},
            "verdict": {"pays": False, "line": "specialization does not pay here: the cfglut5 build has no CFGLUT5: X",
                        "reasons": ["X"]}}


REGISTERS = {
    "yosys-abc": _cand(2300, 300, 480, 9, True),                          # fewest slices, but no register
    "abc-synch2": _cand(2201, 300, 482, 9, True),
    "yosys-abc@register": _cand(2250, 428, 490, 9, True, variant="register", load_words=4),
    "abc-synch2@register": _cand(2240, 428, 490, 9, True, variant="register", load_words=4),
    "abc-wide@register": _cand(2100, 428, 470, 10, False, variant="register", load_words=4),    # deeper
}


def _result(bench, rf):
    return bench.result("d", rf, cfglut_report(),
                        {"ppc_ands": 0, "modelled_rekey_us_axi": 112.0, "icap_words": 500, "frames": 10,
                         "scg_instructions": 1000},
                        {"instructions": 3264, "spread": 0, "ppc": 100, "style": "straight"},
                        {"luts": 92, "ffs": 65, "ramb18": 0}, {"param_words": 4, "luts": 80},
                        {"frames": None, "cfglut5": 12.3})


def _cells(body: str, design: str) -> dict:
    lines = body.splitlines()
    heads = [h.strip() for h in lines[0].strip("|").split(" | ")]
    row = next(ln for ln in lines if ln.startswith(f"| `{design}` |"))
    return dict(zip(heads, (c.strip() for c in row.strip("|").split(" | "))))


REG = "conventional, key register loaded over AXI4-Lite"


def test_register_column_takes_the_eligible_register_candidate_with_fewest_slices_then_luts(bench):
    r = _result(bench, frames_report(REGISTERS))
    assert r["register"]["candidate"] == "abc-synch2@register"
    cells = _cells(bench.page_body({"d": r}, ["d", "ppe"]), "d")
    assert cells[f"{REG}: LUTs / FFs / slices"] == "2240 / 428 / 490 (`abc-synch2@register`)"
    assert cells[f"{REG}: load µs (modelled)"] == f"{round(4 * tm.AXIL_WRITE_US.value, 2)} (4 words)"
    assert cells["cfglut5: LUTs / FFs / slices / depth"] == (
        "2192 (0 CFGLUT5; 128 TLUTs as static LUTs on 128 parameter-bit FFs) / 428 / 497 (0 SLICEM) / 9")
    assert cells["conventional (chosen): LUTs / FFs / slices / depth"] == "2201 / 300 / 482 / 9 (`abc-synch2`)"


def test_register_candidates_without_eligible_flag_are_bounded_by_the_reference_depth(bench):
    """The reference candidate (yosys-abc) has LUT depth 9: abc-wide@register, with the fewest slices
    but depth 10, is out."""
    regs = {n: {k: v for k, v in b.items() if k != "eligible"} for n, b in REGISTERS.items()}
    regs["abc-synch2@register"].pop("load_words")   # then counted from the widths: 128 bits, 4 words
    reg = bench.register_figures(frames_report(regs))
    assert (reg["candidate"], reg["load_words"], reg["ffs_included"]) == ("abc-synch2@register", 4, True)


def test_without_register_candidates_the_words_come_from_the_widths_and_the_ffs_are_named(bench):
    rf = frames_report({"abc-synch2": REGISTERS["abc-synch2"]}, params={"key": 128, "nonce": 40})
    r = _result(bench, rf)
    body = bench.page_body({"d": r}, ["d", "ppe"])
    cells = _cells(body, "d")
    # 128 bits: 4 words, 40 bits: 2 words; 168 register flip-flops
    assert cells[f"{REG}: LUTs / FFs / slices"] == (
        "2201 / 300 / 482 (`abc-synch2`, parameter inputs as ports: the register's 168 FFs not included)")
    assert cells[f"{REG}: load µs (modelled)"] == f"{round(6 * tm.AXIL_WRITE_US.value, 2)} (6 words)"
    # every bundled design has a row; one not run says so
    assert _cells(body, "ppe")["conventional (chosen): LUTs / FFs / slices / depth"] == \
        "not measured in this run"
    assert "- `d`: specialization does not pay here: the cfglut5 build has no CFGLUT5: X\n" in body


def test_a_failed_build_gets_a_row_saying_so(bench):
    body = bench.page_body({"d": {"design": "d", "error": "dcsflow build d --tlut cfglut5 exited 1"}}, ["d"])
    assert _cells(body, "d")["conventional (chosen): LUTs / FFs / slices / depth"] == \
        "not measured: dcsflow build d --tlut cfglut5 exited 1"


def test_help_runs():
    r = subprocess.run([sys.executable, str(BENCH), "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "--allow-dirty" in r.stdout and "--designs" in r.stdout, r.stderr
