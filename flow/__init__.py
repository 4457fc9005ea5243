"""dcsflow: parameterized-configuration (dynamic circuit specialization) flow for Xilinx 7-series.

The package ``flow`` holds the pipeline, its command-line interface, the Yosys front end, the back
ends and the reports. See ``DESIGN.md`` in the shared folder for the architecture.
"""

__version__ = "0.1.0"
