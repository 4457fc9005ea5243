"""cocotb test of keyxor's specialized netlist: q = (d ^ key) + swap(d), m = d[3:0] * key[7:4]."""
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge, Timer

from dcsflow.testing import parameter_values


@cocotb.test()
async def outputs_follow_the_key(dut):
    key = parameter_values()["key"]
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.load.value = 1
    dut.d.value = 0
    await RisingEdge(dut.clk)
    dut.load.value = 0
    rng = random.Random(key)
    for _ in range(20):
        d = rng.getrandbits(8)
        dut.d.value = d
        await RisingEdge(dut.clk)
        await Timer(1, unit="ns")
        assert int(dut.m.value) == ((d & 15) * (key >> 4)) & 0xFF, f"m for d={d:02x}"
        assert int(dut.q.value) == ((d ^ key) + (((d & 15) << 4) | (d >> 4))) & 0xFF, f"q for d={d:02x}"
