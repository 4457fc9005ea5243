"""The runtime (SCG) of dcsflow: small, standard library only, usable on a Zynq running Linux.

Imports only the core (:mod:`dcsflow.aig`, :mod:`dcsflow.affine`, :mod:`dcsflow.fileio`) and the
standard library; never :mod:`dcsflow.tmap`, :mod:`dcsflow.flow` or a third-party package. Its
command line is ``python -m dcsflow.scg`` (:mod:`scg.cli`: ``rekey``, ``bit``, ``import``,
``codegen``). Modules:

- :mod:`scg.device` — 7-series device model: FAR encode/decode, FDRI frame order with row pads,
  CLB sites, LUT INIT bit -> (FAR, word, bit), frame ECC.
- :mod:`scg.bitstream` — UG470 reader/writer: .bit header, packets, CRC, full and partial
  bitstreams, :class:`~scg.bitstream.FrameMemory` with the LUT INIT API, frame files.
- :mod:`scg.emulator` — configuration-memory emulator (the ICAP's packet processor).
- :mod:`scg.hwicap` — AXI HWICAP (PG134) register model and a small vendor-style driver using it.
- :mod:`scg.buildfolder` — the one build-folder reader, with its integrity checks.
- :mod:`scg.params` — the one ``--param NAME=HEX`` parser.
- :mod:`scg.ppc` — PPC evaluation (bit-parallel).
- :mod:`scg.plan` — frame patches of a rekey, frames hash, firmware parameter layout.
- :mod:`scg.driver` — register-level AXI HWICAP driver (same sequence as firmware/hwicap.c).
- :mod:`scg.transports` — /dev/mem, Linux FPGA manager, devcfg PCAP_PR, emulator, bitstream streams.
- :mod:`scg.rekey` — :func:`~scg.rekey.rekey`: plan, transport, read-back, rollback.
- :mod:`scg.lut` — LUT truth tables as physical INITs; template INIT of exported TLUTs.
- :mod:`scg.vivado_import` — a routed Vivado bitstream becomes the template configuration.
- :mod:`scg.affine` — affine TLUTs patched from their frontier.
- :mod:`scg.codegen` — C99 for the firmware: bit-sliced PPC evaluation and frame patch, blob.
- :mod:`scg.cli` — the command line; :mod:`scg.data` — device data locator; :mod:`scg.errors` —
  error types.
"""
