"""For test benches run by ``dcsflow check``: the parameter values the check chose.

A cocotb test module named in a ``dcsflow.toml`` (``[check] cocotb = "tb/test_x.py"``) or used by a
design's cocotb check runs once per random parameter value against the netlist specialized for that
value; it computes the expected outputs from :func:`parameter_values`::

    from dcsflow.testing import parameter_values

    @cocotb.test()
    async def xor_with_key(dut):
        key = parameter_values()["key"]
        ...

Standard library only.
"""

from __future__ import annotations

import json
import os

#: environment variable through which ``dcsflow check`` hands the values to the test process
ENV_VAR = "DCSFLOW_PARAMETER_VALUES"


class NotUnderCheck(RuntimeError):
    """:func:`parameter_values` was called outside a ``dcsflow check`` run."""


def parameter_values() -> dict[str, int]:
    """The parameter values (user parameter port -> int, bit i = ``port[i]``) of this run.

    Raises:
        NotUnderCheck: not running under ``dcsflow check`` (the variable is missing or malformed).
    """
    raw = os.environ.get(ENV_VAR)
    if raw is None:
        raise NotUnderCheck(f"{ENV_VAR} is not set: run this test through `dcsflow check BUILD`")
    try:
        doc = json.loads(raw)
        return {str(k): int(v, 16) for k, v in doc.items()}
    except (ValueError, TypeError, AttributeError) as e:
        raise NotUnderCheck(f"{ENV_VAR} is malformed ({e})") from None
