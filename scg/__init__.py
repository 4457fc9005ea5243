"""Runtime side of the flow (small dependencies, usable on a Zynq running Linux): device model,
bitstream I/O, PPC evaluation, frame patches, transports, emulators and C code generation."""
