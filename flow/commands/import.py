"""``dcsflow import``: Vivado import — passes its arguments unchanged to the runtime's command line
(``python -m dcsflow.scg import``, :mod:`dcsflow.scg.cli`), where every option is defined once."""

from ._runtime import runtime_command

COMMAND = runtime_command("import", "Link a routed Vivado bitstream as a build's template.")
