"""dcsflow.aig (the core AIG): AIGER reading/writing (ASCII and binary, latches, symbols) and malformed input."""

from __future__ import annotations

import random
import subprocess

import pytest

from dcsflow.aig import Aig, parse_aiger, read_aiger, write_aiger
from dcsflow.aig import AigerError
from dcsflow.tmap.generators import random_aig

# Example from the AIGER format description (Biere, 2007): "and gate" and "half adder".
AND_AAG = b"aag 3 2 0 1 1\n2\n4\n6\n6 2 4\n"
HALF_ADDER_AAG = b"""aag 7 2 0 2 3
2
4
6
12
6 13 15
12 2 4
14 3 5
i0 x
i1 y
o0 s
o1 c
c
half adder
"""
# "toggle flip-flop" example (latch with next state = its own complement), AIGER 1.9 reset value.
TOGGLE_AAG = b"aag 1 0 1 2 0\n2 3\n2\n3\n"


def test_and_gate_example():
    g = parse_aiger(AND_AAG)
    assert (g.num_inputs, g.num_latches, g.num_ands, g.num_outputs) == (2, 0, 1, 1)
    # 4 patterns x=0101, y=0011 -> AND = 0001
    assert g.simulate([0b1010, 0b1100], width=4) == [0b1000]


def test_half_adder_example_names_and_function():
    g = parse_aiger(HALF_ADDER_AAG)
    assert g.input_names == ["x", "y"] and g.output_names == ["s", "c"]
    assert g.comments == ["half adder"]
    for x in (0, 1):
        for y in (0, 1):
            assert g.simulate({"x": x, "y": y}) == [x ^ y, x & y]


def test_ascii_and_nodes_out_of_order_are_sorted():
    # AND 6 uses 8, defined on the next line: legal in ASCII AIGER
    g = parse_aiger(b"aag 4 2 0 1 2\n2\n4\n6\n6 8 2\n8 2 5\n")
    for x in (0, 1):
        for y in (0, 1):
            assert g.simulate([x, y]) == [x & (x & (1 - y))]


def test_latch_reset_values_and_combinational_view():
    g = parse_aiger(TOGGLE_AAG)
    assert g.num_latches == 1 and g.latch_init == [0]
    assert g.simulate([], latch_values=[1], with_latches=True) == [1, 0, 0]
    c = g.combinational()
    assert c.num_inputs == 1 and c.output_names[-1] == "l0$next"
    g2 = parse_aiger(b"aag 1 0 1 0 0\n2 3 1\n")
    assert g2.latch_init == [1]
    g3 = parse_aiger(b"aag 1 0 1 0 0\n2 3 2\n")
    assert g3.latch_init == [None]
    assert parse_aiger(g3.to_bytes()).latch_init == [None]


@pytest.mark.parametrize("binary", [True, False])
def test_roundtrip_random(binary, tmp_path):
    rng = random.Random(7)
    for k in range(5):
        g = random_aig(rng, 6, 40, 5, n_latch=k % 3)
        p = tmp_path / f"r{k}.aig"
        write_aiger(g, p, binary=binary)
        h = read_aiger(p)
        assert [tuple(sorted(x)) for x in h.ands] == [tuple(sorted(x)) for x in g.ands] and h.outputs == g.outputs and h.latch_next == g.latch_next
        assert h.input_names == g.input_names and h.latch_names == g.latch_names
        pats = [rng.getrandbits(64) for _ in range(g.num_inputs + g.num_latches)]
        assert h.simulate(pats, width=64, with_latches=True) == g.simulate(pats, width=64, with_latches=True)


def test_abc_reads_our_files_and_we_read_abc_files(tmp_path):
    """Second implementation: ABC rewrites our AIG (strash; dc2); we read its binary output and the
    simulation must agree (and ABC's cec must agree that they are equivalent)."""
    rng = random.Random(3)
    g = random_aig(rng, 8, 120, 6)
    src, dst = tmp_path / "g.aig", tmp_path / "h.aig"
    write_aiger(g, src)
    subprocess.run(["yosys-abc", "-q", f"read {src}; strash; dc2; write_aiger {dst}"], check=True)
    h = read_aiger(dst)
    pats = [rng.getrandbits(256) for _ in range(8)]
    assert h.simulate(pats, width=256) == g.simulate(pats, width=256)


def test_reads_yosys_write_aiger(tmp_path):
    v = tmp_path / "t.v"
    v.write_text("module t(input [3:0] a, input [3:0] key, output [3:0] y, output z);\n"
                 "assign y = a ^ key; assign z = &(a | key);\nendmodule\n")
    out = tmp_path / "t.aig"
    subprocess.run(["yosys", "-q", "-p", f"read_verilog {v}; synth -top t -flatten; aigmap; "
                    f"write_aiger -symbols {out}"], check=True)
    g = read_aiger(out)
    assert "key[3]" in g.input_names and "a[0]" in g.input_names
    rng = random.Random(1)
    for _ in range(20):
        a, k = rng.randrange(16), rng.randrange(16)
        vals = {f"a[{i}]": a >> i & 1 for i in range(4)} | {f"key[{i}]": k >> i & 1 for i in range(4)}
        res = dict(zip(g.output_names, g.simulate(vals)))
        assert [res[f"y[{i}]"] for i in range(4)] == [(a ^ k) >> i & 1 for i in range(4)]
        assert res["z"] == int((a | k) == 15)


@pytest.mark.parametrize("data,where", [
    (b"aig 3 2 0 1\n", "line 1"),                       # bad header (too few counts)
    (b"xyz 1 1 0 1 0\n2\n2\n", "line 1"),               # bad header (magic)
    (b"aag 3 2 0 1 1\n2\n4\n6\n", "line 5"),            # truncated: AND line missing
    (b"aag 3 2 0 1 1\n2\n4\n6\n6 2 9\n", "line 5"),     # literal out of range
    (b"aag 4 2 0 1 1\n2\n4\n6\n6 2 8\n", "line 5"),     # undefined literal 8
    (b"aag 4 2 0 1 2\n2\n4\n6\n6 2 8\n8 6 4\n", "line"),  # cycle 6 -> 8 -> 6
    (b"aag 1 1 0 1 0\n3\n2\n", "line 2"),               # odd input literal
    (b"aag 1 1 0 1 0\n2\n5\n", "line 3"),               # output literal out of range
])
def test_malformed_ascii(data, where):
    with pytest.raises(AigerError) as e:
        parse_aiger(data, "x.aag")
    assert where in str(e.value) and "x.aag" in str(e.value)


def test_cycle_message_names_cycle():
    with pytest.raises(AigerError, match="cycle"):
        parse_aiger(b"aag 4 2 0 1 2\n2\n4\n6\n6 2 8\n8 6 4\n")


def test_malformed_binary_truncated_and_bad_delta():
    g = random_aig(random.Random(5), 5, 30, 3)
    data = g.to_bytes(binary=True, symbols=False)
    with pytest.raises(AigerError, match="byte offset"):
        parse_aiger(data[:-3], "t.aig")
    # first AND node with delta 0 (lhs == rhs0): invalid
    bad = b"aig 3 2 0 1 1\n6\n\x00\x00"
    with pytest.raises(AigerError, match="byte offset 16"):
        parse_aiger(bad)


def test_unsupported_sections_and_missing_file(tmp_path):
    with pytest.raises(AigerError, match="not supported"):
        parse_aiger(b"aag 1 1 0 0 0 1\n2\n2\n")
    with pytest.raises(AigerError, match="cannot read"):
        read_aiger(tmp_path / "nope.aig")


def test_builder_strash_and_constants():
    g = Aig()
    a, b = g.add_input("a"), g.add_input("b")
    assert g.add_and(a, 0) == 0 and g.add_and(a, 1) == a and g.add_and(a, a ^ 1) == 0
    x = g.add_and(a, b)
    assert g.add_and(b, a) == x and g.num_ands == 1
    g.add_output(g.add_xor(a, b), "x")
    g.add_output(g.add_mux(a, b, b ^ 1), "m")
    assert g.simulate([0b0101, 0b0011], width=4) == [0b0110, 0b1001]


def test_reads_yosys_latches_and_maps_them(tmp_path):
    from dcsflow.tmap.mapper import map_tluts

    v = tmp_path / "ff.v"
    v.write_text("module ff(input clk, input [1:0] d, input [1:0] key, output reg [1:0] q, output y);\n"
                 "always @(posedge clk) q <= d ^ key;\nassign y = &q;\nendmodule\n")
    out = tmp_path / "ff.aag"
    subprocess.run(["yosys", "-q", "-p", f"read_verilog {v}; synth -flatten -top ff; aigmap; "
                    f"write_aiger -symbols -ascii {out}"], check=True)
    g = read_aiger(out)
    assert g.latch_names == ["q[0]", "q[1]"] and g.latch_init == [None, None]
    for d in range(4):
        for k in range(4):
            for q in range(4):
                vals = {"d[0]": d & 1, "d[1]": d >> 1, "key[0]": k & 1, "key[1]": k >> 1,
                        "q[0]": q & 1, "q[1]": q >> 1}
                res = g.simulate(vals, with_latches=True)
                assert res[-2:] == [(d ^ k) & 1, (d ^ k) >> 1] and res[2] == int(q == 3)
    res = map_tluts(g, ["key[0]", "key[1]"])
    assert res.stats.verified and "q[1]" in res.netlist.inputs
    assert [n for n, _ in res.netlist.outputs][-2:] == ["q[0]$next", "q[1]$next"]
