"""``dcsflow import``: Vivado import — the runtime's ``import`` (:mod:`dcsflow.scg.commands`: the same
options, checks and output as ``python -m dcsflow.scg import``), run in this process."""

from ._runtime import runtime_command

COMMAND = runtime_command("import", "Link a routed Vivado bitstream as a build's template.")
