"""The conventional baselines: ABC's mapping read back, the choice, the savings split.

Independent checks: ABC's netlist as read back is simulated here against the AIG with
dcsflow.aig's own simulator (not ABC's cec); the choice and the split are checked on figures
written out by hand.
"""

from __future__ import annotations

import random

import pytest

from dcsflow.aig import Aig
from dcsflow.flow.baselines import (ABC_SCRIPTS, ALL_CANDIDATES, CANDIDATES, REFERENCE, BaselineError, _truth, abc_lut_netlist,
                                    check_names, choose, parse_names)
from dcsflow.flow.report import CAUSES, savings


def _random_aig(seed: int, n_in: int = 9, n_and: int = 120, n_out: int = 6) -> Aig:
    rng = random.Random(seed)
    g = Aig()
    lits = [g.add_input(f"x{j}") for j in range(n_in)]
    for _ in range(n_and):
        a, b = rng.sample(lits, 2)
        lits.append(g.add_and(a ^ rng.randint(0, 1), b ^ rng.randint(0, 1)))
    for j in range(n_out):
        g.add_output(lits[-1 - 7 * j] ^ (j & 1), f"y{j}")
    g.add_output(lits[2], "thru")          # an output driven by an input
    g.add_output(0, "zero")                # a constant output
    return g


def _eval_netlist(doc: dict, values: dict) -> dict:
    """Evaluate a static TLUT-netlist document (own evaluator: truth-table lookup per LUT, ``S ? I1 :
    I0`` per MUXF7/MUXF8, cells evaluated as soon as their inputs are known)."""
    v = {**values, "0": 0, "1": 1}
    todo = [("lut", x) for x in doc["luts"]] + [("mux", m) for m in doc.get("muxes", [])]
    while todo:
        left = []
        for kind, c in todo:
            ins = c["inputs"] if kind == "lut" else [c["I0"], c["I1"], c["S"]]
            if not all(x in v for x in ins):
                left.append((kind, c))
            elif kind == "lut":
                idx = sum(v[x] << j for j, x in enumerate(ins))
                v[c["name"]] = int(c["init"], 16) >> idx & 1
            else:
                v[c["name"]] = v[c["I1"]] if v[c["S"]] else v[c["I0"]]
        assert len(left) < len(todo), "a cell reads a net nothing drives"
        todo = left
    return {o["name"]: v[o["driver"]] for o in doc["outputs"]}


def _table_aig(table: int, k: int = 8) -> Aig:
    """One output: entry ``x`` of the ``2^k``-entry ``table`` at the inputs x0..x(k-1) (mux tree)."""
    g = Aig()
    xs = [g.add_input(f"x{j}") for j in range(k)]
    g.add_output(g.add_mux_tree(xs, [table >> i & 1 for i in range(1 << k)]), "y")
    return g


@pytest.mark.parametrize("script", sorted(ABC_SCRIPTS))
def test_abc_netlist_read_back_simulates_like_the_aig(script):
    g = _random_aig(7)
    doc, depth, _ = abc_lut_netlist(g, ABC_SCRIPTS[script], wide=script == "abc-wide")
    assert doc["params"] == [] and all(len(x["inputs"]) <= 6 for x in doc["luts"])
    assert [o["name"] for o in doc["outputs"]] == g.output_names
    assert 1 <= depth <= 10
    n = g.num_inputs
    for i in range(1 << n):
        vals = [i >> j & 1 for j in range(n)]
        expect = g.simulate(vals)
        got = _eval_netlist(doc, dict(zip(g.input_names, vals)))
        assert [got[o] for o in g.output_names] == [e & 1 for e in expect], i


def test_wide_split_against_the_table():
    """split_wide: every entry of random 7- and 8-input tables through the cofactor LUTs and muxes."""
    from dcsflow.flow.baselines import split_wide

    rng = random.Random(21)
    for k in (7, 8):
        table = rng.getrandbits(1 << k)
        ins = [f"x{j}" for j in range(k)]
        luts, muxes = split_wide("f", ins, table)
        assert len(luts) == 1 << (k - 6) and [m.kind for m in muxes] == (["MUXF7"] if k == 7 else
                                                                          ["MUXF7", "MUXF7", "MUXF8"])
        doc = {"luts": [{"name": x.name, "inputs": x.inputs, "init": format(x.init, "x")} for x in luts],
               "muxes": [{"name": m.name, "I0": m.i0, "I1": m.i1, "S": m.s} for m in muxes],
               "outputs": [{"name": "y", "driver": "f"}]}
        for i in range(1 << k):
            assert _eval_netlist(doc, {f"x{j}": i >> j & 1 for j in range(k)})["y"] == table >> i & 1
    with pytest.raises(BaselineError, match="6 inputs cannot be split"):
        split_wide("g", ins[:6], 0)


def test_abc_wide_uses_muxes_on_an_8_input_table():
    """A random 8-input table (an S-box bit): ABC with the wide library gives one 8-input LUT, i.e.
    4 LUT6 + 2 MUXF7 + MUXF8 (how Vivado maps a 256x1 table), and the netlist computes the table."""
    table = random.Random(5).getrandbits(256)
    g = _table_aig(table)
    doc, depth, _ = abc_lut_netlist(g, ABC_SCRIPTS["abc-wide"], wide=True)
    assert len(doc["luts"]) == 4 and sorted(m["type"] for m in doc["muxes"]) == ["MUXF7", "MUXF7", "MUXF8"]
    assert depth == 1
    for i in range(256):
        assert _eval_netlist(doc, {f"x{j}": i >> j & 1 for j in range(8)})["y"] == table >> i & 1


def test_pick_variant_rule():
    """Fewest LUTs among those within the depth bound; the shallowest when none is."""
    from dcsflow.flow.baselines import pick_variant

    assert pick_variant([(18, 5), (24, 2)], None) == 0
    assert pick_variant([(18, 5), (24, 2)], 5) == 0
    assert pick_variant([(18, 5), (24, 2)], 4) == 1
    assert pick_variant([(18, 5), (24, 2)], 1) == 1          # none within: the shallowest
    assert pick_variant([(20, 3), (18, 3)], 3) == 1
    assert pick_variant([(18, 3), (18, 2)], None) == 1       # a tie in LUTs: the shallower


def test_abc_wide_keeps_the_area_mapping_only_within_the_depth_bound():
    """abc-wide on a random logic whose area-oriented mapping is deeper than the delay-oriented one
    (seed 1: ABC gives 18 LUTs at 5 levels with -a, 24 at 2 without): without a bound the smaller
    one is kept, with the bound 2 the shallow one; both compute the AIG's functions."""
    from dcsflow.flow.baselines import WIDE_SCRIPTS, abc_wide_netlist

    g = _random_aig(1, 12, 300, 8)
    free, d_free, s_free = abc_wide_netlist(g, None)
    bound, d_bound, s_bound = abc_wide_netlist(g, 2)
    assert s_free == WIDE_SCRIPTS[0] and s_bound == WIDE_SCRIPTS[1]
    assert d_bound <= 2 < d_free and len(free["luts"]) < len(bound["luts"])
    rng = random.Random(3)
    for _ in range(300):
        vals = [rng.getrandbits(1) for _ in range(g.num_inputs)]
        expect = [e & 1 for e in g.simulate(vals)]
        for doc in (free, bound):
            got = _eval_netlist(doc, dict(zip(g.input_names, vals)))
            assert [got[o] for o in g.output_names] == expect


def test_abc_result_not_equivalent_is_refused(monkeypatch):
    """A read-back error (one truth-table bit flipped) is caught by the proof."""
    import dcsflow.flow.baselines as bl

    real = bl._truth

    def flipped(ins, cubes):
        t = real(ins, cubes)
        return t ^ 1 if len(ins) >= 2 else t

    monkeypatch.setattr(bl, "_truth", flipped)
    with pytest.raises(BaselineError, match="not equivalent"):
        abc_lut_netlist(_random_aig(3), ABC_SCRIPTS["abc-synch2"])


def test_blif_covers():
    ins, outs, nodes = parse_names(".model m\n.inputs a b \\\n c\n.outputs y z k\n"
                                   ".names a b y\n01 1\n10 1\n.names a b c z\n111 0\n.names k\n1\n.end\n")
    assert ins == ["a", "b", "c"] and outs == ["y", "z", "k"]
    (y, yin, ycubes), (z, zin, zcubes), (k, kin, kcubes) = nodes
    assert _truth(yin, ycubes) == 0b0110                     # XOR: entries 1 and 2
    assert _truth(zin, zcubes) == 0xFF & ~(1 << 7)           # NAND3 from its off-set
    assert _truth(kin, kcubes) == 1 and _truth(["a"], []) == 0
    with pytest.raises(BaselineError, match=r"\.latch"):
        parse_names(".inputs a\n.outputs q\n.latch a q 0\n")
    with pytest.raises(BaselineError, match="does not fit"):
        parse_names(".inputs a b\n.outputs y\n.names a b y\n1 1\n")


def test_choice_fewest_slices_at_no_greater_depth():
    u = {"yosys-abc": {"slices": 100, "luts": 400, "depth": 5},
         "tmap": {"slices": 60, "luts": 230, "depth": 6},          # fewer slices but deeper: not eligible
         "abc-synch2": {"slices": 80, "luts": 300, "depth": 5},
         "abc-dch": {"slices": 80, "luts": 290, "depth": 4}}       # tie on slices: fewer LUTs wins
    best, eligible = choose(u)
    assert best == "abc-dch"
    assert eligible == {"yosys-abc": True, "tmap": False, "abc-synch2": True, "abc-dch": True}
    u["abc-dch"]["slices"] = 120
    assert choose(u)[0] == "abc-synch2"
    assert choose({"yosys-abc": {"slices": 9, "luts": 9, "depth": 9}}) == ("yosys-abc", {"yosys-abc": True})
    with pytest.raises(BaselineError, match="reference"):
        choose({"tmap": {"slices": 1, "luts": 1, "depth": 1}})


def test_candidate_names():
    assert check_names(["tmap"]) == (REFERENCE, "tmap")
    assert check_names(reversed(CANDIDATES)) == CANDIDATES
    assert check_names(["abc-dch@precomputed", "tmap"]) == (REFERENCE, "tmap", "abc-dch@precomputed")
    assert check_names(["@register"]) == (REFERENCE, *(f"{m}@register" for m in CANDIDATES))
    assert check_names(["all"]) == ALL_CANDIDATES and len(ALL_CANDIDATES) == 3 * len(CANDIDATES)
    with pytest.raises(BaselineError, match=r"unknown baseline 'vivado'; baselines: yosys-abc, tmap"):
        check_names(["vivado"])
    for bad in ("tmap@rom", "@", "vivado@register"):
        with pytest.raises(BaselineError, match=f"unknown baseline '{bad}'"):
            check_names([bad])


def test_savings_split_adds_up():
    rep = {"conventional": {"luts": 1509, "ffs": 422, "baseline": "abc-synch2"},
           "tlut": {"luts": 1160, "ffs": 262, "tmap_luts": 1165, "tmap_no_param_luts": 4449,
                    "tmap_no_param_param_only_luts": 2420},
           "parameter_registers_folded": 32, "backend": {"slices_saved": 25, "slices_saved_percent": 7.89}}
    sv = savings(rep)
    by = {b["cause"]: b for b in sv["breakdown"]}
    assert list(by) == list(CAUSES)
    assert by["mapping"]["luts"] == 1509 - 4449 and by["ppc"]["luts"] == 2420
    assert by["tlut_folding"]["luts"] == 4449 - 2420 - 1165 and by["param_registers"]["ffs"] == 32
    assert by["mapping"]["ffs"] == 160 - 32
    assert sv["unexplained_luts"] == 5 and sv["unexplained_ffs"] == 0
    assert sv["luts"] == 349 == sum(b["luts"] for b in sv["breakdown"]) + sv["unexplained_luts"]
    assert sv["slices"] == 25 and sv["baseline"] == "abc-synch2"
    # without parameters: TMAP's own figure, no PPC or folding cause
    rep["tlut"]["tmap_no_param_luts"] = None
    sv = savings(rep)
    assert [b["luts"] for b in sv["breakdown"]] == [1509 - 1165, 0, 0, 0, 0]


def test_savings_split_counts_the_static_remap_when_kept():
    rep = {"conventional": {"luts": 1509, "ffs": 422, "baseline": "abc-synch2"},
           "tlut": {"luts": 1160, "ffs": 262, "tmap_luts": 1165, "tmap_no_param_luts": 4449,
                    "tmap_no_param_param_only_luts": 2420,
                    "static_remap": {"result": "kept", "luts_before": 1170, "luts_after": 1160, "depth": 5,
                                     "script": "&st; &synch2; &if -K {K}; &mfs"}},
           "parameter_registers_folded": 32, "backend": {}}
    sv = savings(rep)
    by = {b["cause"]: b for b in sv["breakdown"]}
    assert by["static_remap"]["luts"] == 10 and "1170 − 1160" in by["static_remap"]["how"]
    # the re-import added 5 LUTs to TMAP's 1165 before the re-mapping took 10 away
    assert sv["unexplained_luts"] == -5
    assert sv["luts"] == sum(b["luts"] for b in sv["breakdown"]) + sv["unexplained_luts"]
    rep["tlut"]["static_remap"]["result"] = "not kept: no candidate with fewer than 1170 LUTs at LUT depth <= 5"
    sv = savings(rep)
    assert {b["cause"]: b["luts"] for b in sv["breakdown"]}["static_remap"] == 0 and sv["unexplained_luts"] == 5


def test_build_refuses_unknown_baseline(tmp_path, dcsflow):
    r = dcsflow("build", "picipher", "--out", tmp_path / "b", "--baselines", "tmap,vivado", "--quiet")
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown baseline 'vivado'" in lines[0] and "Traceback" not in r.stderr
    assert not (tmp_path / "b").exists()


def test_param_only_luts_counted_through_wide_muxes():
    """The 'ppc' cause counts the LUTs of the no-parameter mapping that read only parameters,
    constants and such cells (also through a MUXF7); worked out by hand."""
    from dcsflow.flow.mapping import param_only_luts
    from dcsflow.tmap.netlist import Lut, Mux, TlutNetlist

    n = TlutNetlist(6, ["x"], ["k0", "k1", "k2"],
                    [Lut("a", ["k0", "k1"], 6), Lut("b", ["k1", "1"], 2), Lut("c", ["a", "x"], 6),
                     Lut("d", ["m"], 2), Lut("e", ["c", "k0"], 6)],
                    [("o", "d"), ("p", "e")], muxes=[Mux("m", "MUXF7", "a", "b", "k2")])
    assert param_only_luts(n, ["k0", "k1", "k2"]) == 3          # a, b, d (c and e read x)
    assert param_only_luts(n, ["k0", "k1"]) == 2                # the mux's select k2 is regular now


def test_a_failing_candidate_is_left_out(tmp_path, monkeypatch):
    """A candidate that cannot be made (here: abc-dch's ABC run fails) does not stop the build: it
    is reported under baselines_failed and left out of the choice."""
    from pathlib import Path

    import dcsflow.flow.baselines as bl
    from dcsflow.flow.build import BuildOptions, build

    real = bl.abc_lut_netlist

    def failing(aig, script, *a, **kw):
        if script == ABC_SCRIPTS["abc-dch"]:
            raise BaselineError("ABC wrote no netlist (test)")
        return real(aig, script, *a, **kw)

    monkeypatch.setattr(bl, "abc_lut_netlist", failing)
    data = Path(__file__).parent / "data" / "flow" / "keyxor.v"
    # jobs=1: the monkeypatched function runs in this process (a parallel build's workers import their own)
    rep = build(BuildOptions(design=str(data), out=tmp_path / "b", progress=False, frontend_check=False,
                             baselines=("yosys-abc", "abc-synch2", "abc-dch"), jobs=1)).report
    assert rep["baselines_failed"] == {"abc-dch": "ABC wrote no netlist (test)"}
    assert sorted(rep["baselines"]) == ["abc-synch2", "yosys-abc"]
    assert rep["conventional"]["baseline"] in rep["baselines"]
    assert not (tmp_path / "b" / "baselines" / "abc-dch" / "netlist.json").exists()


def test_a_crashing_tool_in_a_parallel_branch_is_recorded_and_the_others_finish(tmp_path, monkeypatch):
    """-j 2: ABC crashes (SIGSEGV) when it maps with &dch; that candidate is reported with the
    crash, every other candidate and the TLUT build finish, and the timing records name the failed
    tool run."""
    import stat
    from pathlib import Path

    from dcsflow.flow.build import BuildOptions, build
    from dcsflow.tools import find_tool

    real = find_tool("abc")
    fake = tmp_path / "abc"
    fake.write_text(f'#!/bin/sh\ncase "$*" in *"&dch"*) kill -SEGV $$ ;; esac\nexec "{real}" "$@"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("DCSFLOW_ABC", str(fake))
    data = Path(__file__).parent / "data" / "flow" / "keyxor.v"
    res = build(BuildOptions(design=str(data), out=tmp_path / "b", progress=False, frontend_check=False,
                             baselines=("yosys-abc", "tmap", "abc-synch2", "abc-dch"), jobs=2))
    rep = res.report
    assert list(rep["baselines_failed"]) == ["abc-dch"]
    assert "killed by signal 11 (SIGSEGV)" in rep["baselines_failed"]["abc-dch"]
    assert sorted(rep["baselines"]) == ["abc-synch2", "tmap", "yosys-abc"]
    assert rep["tlut"]["luts"] > 0 and rep["timing"]["jobs"] == 2
    crashed = [s for s in rep["timing"]["steps"] if s["kind"] == "tool" and s["failed"]]
    assert crashed and all("baseline abc-dch" in s["path"] and "SIGSEGV" in s["failed"] for s in crashed)


def test_the_best_candidate_of_each_variant():
    from dcsflow.flow.report import best_by_variant

    rep = {"baselines": {
        "yosys-abc": {"variant": "conventional", "slices": 50, "luts": 200, "depth": 6, "eligible": True},
        "abc-dch": {"variant": "conventional", "slices": 40, "luts": 150, "depth": 7, "eligible": False},
        "tmap": {"variant": "conventional", "slices": 45, "luts": 190, "depth": 6, "eligible": True},
        "tmap@register": {"variant": "register", "slices": 44, "luts": 180, "depth": 6, "eligible": True},
        "abc-dch@register": {"variant": "register", "slices": 44, "luts": 170, "depth": 6, "eligible": True},
        "abc-dch@precomputed": {"variant": "precomputed", "slices": 30, "luts": 90, "depth": 8, "eligible": False},
        "tmap@precomputed": {"variant": "precomputed", "slices": 31, "luts": 99, "depth": 9, "eligible": False}}}
    # deeper candidates lose to eligible ones; a variant with none eligible still has its best
    assert best_by_variant(rep) == {"conventional": "tmap", "register": "abc-dch@register",
                                    "precomputed": "abc-dch@precomputed"}
    # a report of before the register forms: every candidate is of the conventional variant
    assert best_by_variant({"baselines": {"yosys-abc": {"slices": 3, "luts": 1, "depth": 1}}}) == \
        {"conventional": "yosys-abc"}
