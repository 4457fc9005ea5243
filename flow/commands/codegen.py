"""``dcsflow codegen``: firmware SCG sources — passes its arguments unchanged to the runtime's command line
(``python -m dcsflow.scg codegen``, :mod:`dcsflow.scg.cli`), where every option is defined once."""

from ._runtime import runtime_command

COMMAND = runtime_command("codegen", "C99 sources of the firmware SCG for a build folder.")
