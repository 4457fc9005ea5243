"""A cocotb test that never returns: simulated time runs on forever, or (``HANG_BUSY=1`` in the
environment) the test's Python spins without ever yielding to the simulator."""
import os

import cocotb
from cocotb.triggers import Timer


@cocotb.test()
async def never_returns(dut):
    busy = os.environ.get("HANG_BUSY") == "1"
    while True:
        if busy:
            continue
        dut.d.value = 0
        await Timer(1, unit="ns")
