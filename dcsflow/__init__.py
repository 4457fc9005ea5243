"""dcsflow: parameterized-configuration (dynamic circuit specialization) flow for Xilinx 7-series.

Installed modules live under this one namespace; the repository keeps one top-level folder per part
(``setup.py`` maps them):

- ``dcsflow`` (folder ``dcsflow/``): the core at the bottom of the layers — the AIG
  (:mod:`dcsflow.aig`: AIGER read/write, simulation, truth tables), atomic file output
  (:mod:`dcsflow.fileio`), the external-tool locator (:mod:`dcsflow.tools`: Yosys, ABC, GHDL,
  Icarus, Verilator; one ``DCSFLOW_<TOOL>`` environment variable each). Standard library only.
- :mod:`dcsflow.tmap` (``tmap/``): reduced-cut TLUT mapping and PPC construction.
- :mod:`dcsflow.scg` (``scg/``): the runtime (standard library only; also on a Zynq running Linux).
- :mod:`dcsflow.flow` (``flow/``): the pipeline and the ``dcsflow`` command.
- :mod:`dcsflow.designs` (``designs/``): the bundled designs, one folder each.

Layers, from the bottom: core — scg and tmap (independent of each other) — flow — designs.
Nothing imports upward.
"""

__version__ = "0.1.0"
