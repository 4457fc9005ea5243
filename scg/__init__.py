"""Runtime side of the flow (small dependencies, usable on a Zynq running Linux): device model,
bitstream I/O, PPC evaluation, frame patches, transports, emulators and C code generation.

Standard library only (Python >= 3.10); never imports :mod:`flow`. Modules:

- :mod:`scg.device` — 7-series device model: FAR encode/decode, FDRI frame order with row pads,
  CLB sites, LUT INIT bit -> (FAR, word, bit), frame ECC.
- :mod:`scg.bitstream` — UG470 reader/writer: .bit header, packets, CRC, full and partial
  bitstreams, :class:`~scg.bitstream.FrameMemory` with the LUT INIT API, frame files.
- :mod:`scg.emulator` — configuration-memory emulator (the ICAP's packet processor).
- :mod:`scg.hwicap` — AXI HWICAP (PG134) register model and a driver using it.
- :mod:`scg.ppc` — PPC evaluation (bit-parallel).
- :mod:`scg.rekey` — host SCG: build folder loading, frame patches, HWICAP session driver (same
  sequence as firmware/hwicap.c), transports emulator / bitfile / devmem, rollback.
- :mod:`scg.codegen` — C99 for the firmware: straight-line PPC evaluation and frame patch, blob.
- :mod:`scg.data` — locator of the shared device data; :mod:`scg.errors` — error types.
"""
