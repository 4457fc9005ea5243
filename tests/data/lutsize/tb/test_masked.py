"""cocotb test of masked's specialized netlist against a Python model of rtl/masked.v:
p = parity(a & key), s[i] = key[i] ? a[i] ^ b[i] : a[i] & b[i], t = (a ^ key) + b, m = a * key[3:0]."""
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge, Timer

from dcsflow.testing import parameter_values


def model(key: int, a: int, b: int) -> dict:
    """The registered outputs for inputs a, b and parameter key (8 bits each)."""
    sel = (a ^ b) & key | (a & b) & ~key & 0xFF
    return {"p": bin(a & key).count("1") & 1, "s": sel, "t": ((a ^ key) + b) & 0xFF, "m": a * (key & 15)}


@cocotb.test()
async def outputs_follow_the_key(dut):
    key = parameter_values()["key"]
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.a.value = 0
    dut.b.value = 0
    await RisingEdge(dut.clk)              # the first edge: the inputs are set from here on
    rng = random.Random(key)
    for _ in range(40):
        a, b = rng.getrandbits(8), rng.getrandbits(8)
        dut.a.value = a
        dut.b.value = b
        await RisingEdge(dut.clk)
        await Timer(1, unit="ns")
        for port, want in model(key, a, b).items():
            assert int(getattr(dut, port).value) == want, f"{port} for a={a:02x} b={b:02x}"
