"""``dcsflow rekey``: host SCG — passes its arguments unchanged to the runtime's command line
(``python -m dcsflow.scg rekey``, :mod:`dcsflow.scg.cli`), where every option is defined once."""

from ._runtime import runtime_command

COMMAND = runtime_command("rekey", "Host SCG: new parameter values, each touched frame written once.")
