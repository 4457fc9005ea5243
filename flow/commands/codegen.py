"""``dcsflow codegen``: firmware SCG sources — the runtime's ``codegen`` (:mod:`dcsflow.scg.commands`:
the same options, checks and output as ``python -m dcsflow.scg codegen``), run in this process."""

from ._runtime import runtime_command

COMMAND = runtime_command("codegen", "C99 sources of the firmware SCG for a build folder.")
