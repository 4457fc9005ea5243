"""The PPE's :class:`~dcsflow.flow.design.Design` description: the program as a parameter input.

Registered in ``setup.py`` (entry-point group ``dcsflow.designs``):

- ``ppe``: top ``ppe_prog`` (``rtl/ppe_prog.v`` around ``rtl/ppe_core.v``), ``IMEM_DEPTH`` = 256.
  TLUT build (``PROGRAM_RAM=0``): the parameter inputs ``prog_image`` (256 instruction words, 16,384
  bits) and ``coef_image`` (64 coefficient words, 4,096 bits) are the memory contents, folded into TLUTs.
  Conventional build (``PROGRAM_RAM=1``): distributed RAMs written through a narrow port carried on
  the same ports (layout in ``rtl/ppe_prog.v``).

Named parameter value ``program`` (:mod:`.params`): ``dcsflow rekey BUILD --param program=pi32``
switches the algorithm by micro-reconfiguration.

``dcsflow sim ppe --program pi16|pi32|pi64|bmw512``: the ``ppe`` RTL running a program against its
golden model (:func:`.commands.sim_command`).

Check (``dcsflow check``, :mod:`.check`): one specialized netlist per π program (the parameter
value), simulated on random states against the golden model's π.
"""

from __future__ import annotations

from dcsflow.flow.design import Design

from .check import ppe_check
from .commands import ppe_command, sim_command
from .params import PROGRAM
from .sim import HERE

#: instruction-memory depth of the ``ppe`` build (the π programs need 208 words)
PROG_DEPTH = 256


def prog_files():
    """Verilog sources of ``ppe_prog`` (core first)."""
    return (HERE / "rtl" / "ppe_core.v", HERE / "rtl" / "ppe_prog.v")


PPE = Design(
    name="ppe", top="ppe_prog", sources=prog_files(),
    chparams={"PROGRAM_RAM": 0, "IMEM_DEPTH": PROG_DEPTH},
    conventional_chparams={"PROGRAM_RAM": 1},
    check=ppe_check,
    commands=(ppe_command,),
    named_params=(PROGRAM,),
    sims={"ppe": sim_command},
    description="ARX processing element; program + coefficients as parameter")
