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


def _cell(t, ins: dict, outs: dict):
    return {"type": t, "connections": {**ins, **outs},
            "port_directions": {**{p: "input" for p in ins}, **{p: "output" for p in outs}}}


def _lut_chain(cells, first_in: int, n: int, tag: str, base: int) -> int:
    """n LUT1s in a chain from bit first_in; returns the last output bit (bits base, base+1, ...)."""
    b = first_in
    for i in range(n):
        cells[f"{tag}{i}"] = _cell("LUT1", {"I0": [b]}, {"O": [base + i]})
        b = base + i
    return b


def test_lut_depth_counts_a_distributed_ram_read_on_its_own_address_port_only():
    # 2 LUTs -> ADDRA -> DOA -> 1 LUT: 4 levels; 5 LUTs on ADDRB do not lengthen DOA's path, DOB
    # (behind ADDRB) feeds nothing; 7 LUTs into DIA (a synchronous write) end there
    cells = {}
    a = _lut_chain(cells, 1, 2, "a", 100)
    b = _lut_chain(cells, 1, 5, "b", 200)
    d = _lut_chain(cells, 1, 7, "d", 300)
    cells["ram"] = _cell("RAM64M", {"ADDRA": [a] * 6, "ADDRB": [b] * 6, "ADDRC": [1] * 6, "ADDRD": [1] * 6,
                                    "DIA": [d], "DIB": [1], "DIC": [1], "DID": [1], "WE": [1], "WCLK": [0]},
                         {"DOA": [400], "DOB": [401], "DOC": [402], "DOD": [403]})
    cells["y"] = _cell("LUT1", {"I0": [400]}, {"O": [500]})
    m = {"ports": {}, "cells": cells, "netnames": {}}
    assert nl.lut_depth(m) == 7                     # the 7-LUT chain into DIA alone
    del cells["d6"], cells["d5"], cells["d4"], cells["d3"]
    cells["ram"]["connections"]["DIA"] = [302]
    assert nl.lut_depth(m) == 5                     # the 5-LUT chain into ADDRB alone
    cells["z"] = _cell("LUT1", {"I0": [401]}, {"O": [501]})
    assert nl.lut_depth(m) == 7                     # 5 LUTs, the DOB read, 1 LUT
    del cells["z"]
    for i in range(4):                              # ADDRB: 1 LUT
        del cells[f"b{i + 1}"]
    cells["ram"]["connections"]["ADDRB"] = [200] * 6
    assert nl.lut_depth(m) == 4                     # 2 LUTs, the DOA read, 1 LUT


def test_lut_depth_srl_address_and_rams_with_single_address_pins():
    cells = {}
    a = _lut_chain(cells, 1, 3, "a", 100)
    cells["srl"] = _cell("SRLC32E", {"A": [a] * 5, "D": [1], "CE": [1], "CLK": [0]}, {"Q": [200], "Q31": [201]})
    cells["y"] = _cell("LUT1", {"I0": [200]}, {"O": [300]})
    cells["y31"] = _cell("LUT1", {"I0": [201]}, {"O": [301]})       # Q31 is a register output
    cells["r"] = _cell("RAM64X1D", {**{f"A{i}": [1] for i in range(6)}, **{f"DPRA{i}": [300] for i in range(6)},
                                   "D": [1], "WE": [1], "WCLK": [0]}, {"SPO": [400], "DPO": [401]})
    cells["z"] = _cell("LUT1", {"I0": [401]}, {"O": [500]})
    m = {"ports": {}, "cells": cells, "netnames": {}}
    assert nl.lut_depth(m) == 7        # 3 LUTs, SRL read, LUT y, DPO read, LUT z


def test_path_levels_through_each_cell():
    # a0 -> a1 -> ram ADDRA -> DOA -> y ; b0 -> ADDRB (DOB unread) ; c0 alone
    cells = {}
    a = _lut_chain(cells, 1, 2, "a", 100)
    b = _lut_chain(cells, 1, 1, "b", 200)
    cells["c0"] = _cell("LUT1", {"I0": [1]}, {"O": [300]})
    cells["ram"] = _cell("RAM64M", {"ADDRA": [a] * 6, "ADDRB": [b] * 6, "ADDRC": [1] * 6, "ADDRD": [1] * 6,
                                    "DIA": [300], "DIB": [1], "DIC": [1], "DID": [1], "WE": [1], "WCLK": [0]},
                         {"DOA": [400], "DOB": [401], "DOC": [402], "DOD": [403]})
    cells["y"] = _cell("LUT1", {"I0": [400]}, {"O": [500]})
    m = {"ports": {}, "cells": cells, "netnames": {}}
    pl = nl.path_levels(m)
    assert pl == {"a0": 4, "a1": 4, "y": 4, "b0": 1, "c0": 1}
    assert max(pl.values()) == nl.lut_depth(m)
