"""The π-Cipher message processor (π16, π32, π64) on a board: the ports its block-design wrapper drives.

The PYNQ-Z1 block design (``flow/boards/pynq-z1_bd.tcl.j2``) puts the design behind an AXI4-Lite
register wrapper (``flow/boards/dcs_axil_wrapper.v.j2``) that connects exactly these ports of the
message processor's top (``picipher_mp``) and ties its one parameter input (the key) to 0.
``flow.backend.vivado.export_vivado(..., board_ports=BOARD_PORTS)`` writes ``block_design.tcl`` and
the wrapper only for a top that has all of them and exactly one parameter port. The wrapper takes
the tag and byte-count widths from the top's ports (π16/π32/π64: 128/256/512-bit tag as 4/8/16
registers; register map in the template's header).
"""

from __future__ import annotations

#: ports of a π-Cipher message processor top (any word size) that the AXI-Lite wrapper drives
BOARD_PORTS: frozenset[str] = frozenset({
    "clk", "rst", "key_load", "mode", "s_data", "s_valid", "s_ready", "s_last", "s_bytes", "m_data",
    "m_valid", "m_ready", "m_last", "m_bytes", "tag", "tag_in", "done", "tag_ok"})
