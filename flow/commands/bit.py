"""``dcsflow bit``: bitstream tools — the runtime's ``bit`` (:mod:`dcsflow.scg.commands`: the same
options, checks and output as ``python -m dcsflow.scg bit``), run in this process."""

from ._runtime import runtime_command

COMMAND = runtime_command("bit", "Inspect, query and compare 7-series bitstreams.")
