"""flow.netlist: LUT depth against a recursive reference on random DAGs; Verilog writer basics."""

from __future__ import annotations

import functools
import random

from hypothesis import given, settings, strategies as st

from dcsflow.flow import netlist as nl


def _random_netlist(seed: int, n: int):
    rng = random.Random(seed)
    cells = {}
    # bit 1 = register output; cell i drives bit 100 + i
    for i in range(n):
        k = rng.randint(1, 4)
        srcs = [1] + [100 + j for j in range(i)]
        ins = [rng.choice(srcs) for _ in range(k)]
        t = rng.choice(["LUT%d" % k, "LUT%d" % k, "CARRY4" if k == 4 else "LUT%d" % k, "FDRE"])
        if t == "FDRE":
            cells[f"c{i}"] = {"type": t, "connections": {"D": ins[:1], "Q": [100 + i], "C": [0]},
                              "port_directions": {"D": "input", "Q": "output", "C": "input"}}
        else:
            conns = {f"I{j}": [b] for j, b in enumerate(ins)}
            conns["O"] = [100 + i]
            cells[f"c{i}"] = {"type": t, "connections": conns,
                              "port_directions": {**{f"I{j}": "input" for j in range(k)}, "O": "output"}}
    order = list(cells)
    rng.shuffle(order)                 # cell order must not matter (not topological)
    return {"ports": {}, "cells": {n: cells[n] for n in order}, "netnames": {}}


def _reference(m) -> int:
    cells = m["cells"]
    drv = {c["connections"][p][0]: n for n, c in cells.items() for p in c["connections"]
           if c["port_directions"][p] == "output"}

    @functools.lru_cache(None)
    def d(n):
        c = cells[n]
        if c["type"] == "FDRE":
            return 0
        best = max((d(drv[b]) for p, bits in c["connections"].items() if c["port_directions"][p] == "input"
                    for b in bits if b in drv), default=0)
        return best + (1 if c["type"].startswith("LUT") else 0)

    return max((d(n) for n in cells), default=0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 40))
def test_lut_depth_matches_reference(seed, n):
    m = _random_netlist(seed, n)
    assert nl.lut_depth(m) == _reference(m)


def test_write_verilog_ports_constants_and_init_override():
    m = {"ports": {"a": {"direction": "input", "bits": [2, 3]}, "y": {"direction": "output", "bits": [4, "1"]}},
         "parameter_default_values": {"W": "00000000000000000000000000000010"},
         "cells": {"$dcs$x": {"type": "LUT2", "parameters": {"INIT": "0000"}, "attributes": {"dcs_tlut": "1"},
                              "connections": {"I0": [2], "I1": [3], "O": [4]},
                              "port_directions": {"I0": "input", "I1": "input", "O": "output"}}},
         "netnames": {}}
    v = nl.write_verilog(m, "t", {"$dcs$x": 0b1000})
    assert "parameter W = 2;" in v and "assign y[1] = 1'b1;" in v
    assert ".INIT(4'b1000)" in v and "\\$dcs$x " in v
