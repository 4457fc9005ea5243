"""The runtime (SCG) of dcsflow: small, standard library only, usable on a Zynq running Linux.

Imports only the core (:mod:`dcsflow.aig`, :mod:`dcsflow.affine`, :mod:`dcsflow.fileio`) and the
standard library; never :mod:`dcsflow.tmap`, :mod:`dcsflow.flow` or a third-party package. Its
command line is ``python -m dcsflow.scg`` (:mod:`dcsflow.scg.cli`: ``rekey``, ``bit``, ``import``,
``codegen``). Modules:

- :mod:`dcsflow.scg.device` — 7-series device model: FAR encode/decode, FDRI frame order with row pads,
  CLB sites, LUT INIT bit -> (FAR, word, bit), frame ECC.
- :mod:`dcsflow.scg.bitstream` — UG470 reader/writer: .bit header, packets, CRC, full and partial
  bitstreams, :class:`~dcsflow.scg.bitstream.FrameMemory` with the LUT INIT API, frame files.
- :mod:`dcsflow.scg.emulator` — configuration-memory emulator (the ICAP's packet processor).
- :mod:`dcsflow.scg.hwicap` — AXI HWICAP (PG134) register model and a small vendor-style driver using it.
- :mod:`dcsflow.scg.buildfolder` — the one build-folder reader, with its integrity checks.
- :mod:`dcsflow.scg.params` — the one ``--param NAME=HEX`` parser.
- :mod:`dcsflow.scg.ppc` — PPC evaluation (bit-parallel).
- :mod:`dcsflow.scg.plan` — frame patches of a rekey, frames hash, firmware parameter layout.
- :mod:`dcsflow.scg.driver` — register-level AXI HWICAP driver (same sequence as firmware/hwicap.c).
- :mod:`dcsflow.scg.transports` — /dev/mem, Linux FPGA manager, devcfg PCAP_PR, emulator, bitstream streams.
- :mod:`dcsflow.scg.rekey` — :func:`~dcsflow.scg.rekey.rekey`: plan, transport, read-back, rollback.
- :mod:`dcsflow.scg.timemodel` — the constants of every modelled time (AXI HWICAP, PCAP, ICAPE2,
  Cortex-A9, loader), each with its source.
- :mod:`dcsflow.scg.lut` — LUT truth tables as physical INITs; template INIT of exported TLUTs.
- :mod:`dcsflow.scg.vivado_import` — a routed Vivado bitstream becomes the template configuration.
- :mod:`dcsflow.scg.affine` — affine TLUTs patched from their frontier.
- :mod:`dcsflow.scg.cfglut` — CFGLUT5 TLUTs: chain words for the fabric loader, words file.
- :mod:`dcsflow.scg.codegen` — C99 for the firmware: bit-sliced PPC evaluation and frame patch, blob.
- :mod:`dcsflow.scg.commands` — the commands' arguments (one parser) and what each does, for both
  command lines (this one and ``dcsflow``).
- :mod:`dcsflow.scg.cli` — the command line (exit status, signals); :mod:`dcsflow.scg.data` — device data
  locator; :mod:`dcsflow.scg.errors` — error types.
"""
