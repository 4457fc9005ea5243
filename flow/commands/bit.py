"""``dcsflow bit``: bitstream tools — passes its arguments unchanged to the runtime's command line
(``python -m dcsflow.scg bit``, :mod:`dcsflow.scg.cli`), where every option is defined once."""

from ._runtime import runtime_command

COMMAND = runtime_command("bit", "Inspect, query and compare 7-series bitstreams.")
