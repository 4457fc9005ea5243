"""The pipeline, its command-line interface ``dcsflow``, the Yosys and GHDL front end, the back ends
and the reports. Architecture: docs/architecture.md."""
