"""The constants of every modelled time, each with its value, unit and source.

No time in dcsflow's reports, pages or benchmarks is measured on a board: rekey times are
*modelled* from counts that are measured (ICAP words, chain words, Cortex-A9 instructions in QEMU)
and the constants below. This module is the one place those constants are written down; the
build's report (:mod:`dcsflow.flow.backend.report`, :mod:`dcsflow.flow.reportpage`), the runtime,
the benchmarks under ``benchmarks/`` and the documentation (``docs/conf.py`` substitutes them into
the pages) all read them from here. Standard library only, like the rest of the runtime.

Each :class:`Constant` names its source: a document and table, a published figure, or
``assumed:`` where no source was at hand (the page that shows a figure derived from it says so).
The helpers (:func:`hwicap_us`, :func:`icap_us`, ...) turn counts into microseconds; every
figure they give is a modelled one, and is labelled "modelled" wherever it is shown.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Constant:
    """One constant of the time models.

    Attributes:
        name: the module attribute's name (``HWICAP_US_PER_WORD``).
        value: the value, in ``unit``.
        unit: e.g. ``µs``, ``Hz``, ``B/s``.
        what: one phrase saying what it is.
        source: where the value comes from (document and table, ``published: ...``, ``derived: ...``
            or ``assumed: ...``).
    """

    name: str
    value: float
    unit: str
    what: str
    source: str


#: One TLUT rewritten by its own read-modify-write of 4 frames through the AXI HWICAP (µs).
HWICAP_US_PER_TLUT_RMW = Constant(
    "HWICAP_US_PER_TLUT_RMW", 230.0, "µs",
    "one TLUT rewritten through the AXI HWICAP by a read-modify-write of its 4 frames",
    "published per-TLUT figure of the TLUT flow (scg/xc7/FACTS.md, 'Frame read and write sequences')")
#: ICAP words (written + read) of that read-modify-write, as the vendor-style sequence sends them
#: (:func:`dcsflow.flow.backend.report.rmw_words_per_tlut`; a test checks the two agree).
RMW_WORDS_PER_TLUT = 1090
#: One 32-bit ICAP word through the AXI HWICAP, driven word by word by a processor (µs).
HWICAP_US_PER_WORD = Constant(
    "HWICAP_US_PER_WORD", 0.211, "µs",
    "one 32-bit word through the AXI HWICAP (write FIFO filled word by word by the processor)",
    f"derived: {HWICAP_US_PER_TLUT_RMW.value:g} µs per TLUT read-modify-write (published) / "
    f"{RMW_WORDS_PER_TLUT} ICAP words of that read-modify-write (UG470 read and write sequences, "
    "scg/xc7/FACTS.md); about 20x below the ICAP's 400 MB/s, as FACTS.md's throughput anchor says")
#: One AXI4-Lite write of a 32-bit word from the Cortex-A9 to the fabric (µs).
AXIL_WRITE_US = Constant(
    "AXIL_WRITE_US", HWICAP_US_PER_WORD.value, "µs",
    "one 32-bit AXI4-Lite write from the Cortex-A9 to a register in the fabric (M_AXI_GP)",
    "assumed equal to HWICAP_US_PER_WORD: an AXI HWICAP word is one AXI4-Lite write to its write "
    "FIFO; UG585 (Zynq-7000 TRM) Table 22-8 puts CPU programmed I/O over M_AXI_GP below 25 MB/s, "
    "at least 0.16 µs per 32-bit write")
#: PS DMA controller (DMAC) throughput, bytes per second.
PS_DMA_BYTES_PER_S = Constant(
    "PS_DMA_BYTES_PER_S", 600e6, "B/s",
    "Zynq-7000 PS DMA controller moving words to the fabric (setup not counted)",
    "UG585 (Zynq-7000 TRM) Table 22-8, DMAC throughput")
#: PCAP (Zynq-7000 devcfg DMA) throughput, bytes per second.
PCAP_BYTES_PER_S = Constant(
    "PCAP_BYTES_PER_S", 145e6, "B/s",
    "Zynq-7000 PCAP: the devcfg DMA writing a partial bitstream, non-secure mode",
    "assumed: the rate commonly quoted for the Zynq-7000 devcfg DMA in non-secure mode (the port "
    "is 32 bit at 100 MHz, 400 MB/s in theory); not measured here, not checked against UG585")
#: Cortex-A9 clock of the Zynq-7000 boards the firmware targets (Hz).
A9_HZ = Constant(
    "A9_HZ", 667e6, "Hz",
    "Cortex-A9 clock of the Zynq-7000 processing system",
    "DS187 (Zynq-7000 data sheet), the -1 speed grade's maximum CPU clock (ZC702's setting; the "
    "PYNQ-Z1 runs at 650 MHz)")
#: Cortex-A9 instructions per cycle in the model.
A9_IPC = Constant(
    "A9_IPC", 1.0, "instructions per cycle",
    "Cortex-A9 instructions retired per clock cycle in the model",
    "assumed: one instruction per cycle (the core can issue two; cache misses and AXI stalls are "
    "not modelled); the instruction counts themselves are measured in QEMU (benchmarks/rekey_bench.py)")
#: Clock of the CFGLUT5 loader, its parameter generator and the shift (Hz).
LOADER_HZ = Constant(
    "LOADER_HZ", 100e6, "Hz",
    "clock of the CFGLUT5 loader, the parameter generator and the chains' shift",
    "FCLK_CLK0 of the generated block design (flow/boards/pynq-z1_bd.tcl.j2: 100 MHz)")
#: ICAPE2 clock (Hz).
ICAPE2_HZ = Constant(
    "ICAPE2_HZ", 100e6, "Hz",
    "ICAPE2 configuration port clock",
    "UG470 (7 Series configuration), ICAPE2: 100 MHz maximum; scg/xc7/FACTS.md 'Throughput anchors'")
#: ICAPE2 data width (bytes per cycle).
ICAPE2_BYTES = Constant(
    "ICAPE2_BYTES", 4, "bytes per cycle",
    "ICAPE2 data width: one 32-bit configuration word per cycle",
    "UG470, ICAPE2 (ICAP_WIDTH X32)")

#: every constant, in the order the documentation lists them
CONSTANTS = (HWICAP_US_PER_TLUT_RMW, HWICAP_US_PER_WORD, AXIL_WRITE_US, PS_DMA_BYTES_PER_S, PCAP_BYTES_PER_S,
             A9_HZ, A9_IPC, LOADER_HZ, ICAPE2_HZ, ICAPE2_BYTES)

#: bytes per ICAP word
WORD_BYTES = 4


def icap_us_per_word() -> float:
    """µs per 32-bit word at the ICAPE2's full rate (``ICAPE2_BYTES`` x ``ICAPE2_HZ``: 0.01 µs)."""
    return WORD_BYTES / (ICAPE2_BYTES.value * ICAPE2_HZ.value) * 1e6


def icap_bytes_per_s() -> float:
    """The ICAPE2's full rate in bytes per second (400 MB/s)."""
    return ICAPE2_BYTES.value * ICAPE2_HZ.value


def hwicap_us(words: int) -> float:
    """Modelled µs to send ``words`` ICAP words through the AXI HWICAP."""
    return words * HWICAP_US_PER_WORD.value


def icap_us(words: int) -> float:
    """Modelled µs to send ``words`` ICAP words at the ICAPE2's full rate (from the fabric)."""
    return words * icap_us_per_word()


def pcap_us(words: int) -> float:
    """Modelled µs to send ``words`` configuration words through the Zynq-7000 PCAP."""
    return words * WORD_BYTES / PCAP_BYTES_PER_S.value * 1e6


def axil_us(writes: int) -> float:
    """Modelled µs of ``writes`` 32-bit AXI4-Lite writes from the Cortex-A9."""
    return writes * AXIL_WRITE_US.value


def dma_us(words: int) -> float:
    """Modelled µs to move ``words`` 32-bit words with the PS DMA controller (setup not counted)."""
    return words * WORD_BYTES / PS_DMA_BYTES_PER_S.value * 1e6


def a9_us(instructions: int) -> float:
    """Modelled µs of ``instructions`` Cortex-A9 instructions (``A9_HZ``, ``A9_IPC``)."""
    return instructions / (A9_HZ.value * A9_IPC.value) * 1e6


def loader_us(cycles: int) -> float:
    """Modelled µs of ``cycles`` clock cycles of the CFGLUT5 loader (``LOADER_HZ``)."""
    return cycles / LOADER_HZ.value * 1e6


def mhz(c: Constant) -> str:
    """A clock constant in MHz as text (``667 MHz``)."""
    return f"{c.value / 1e6:g} MHz"


def mbytes(c: Constant) -> str:
    """A throughput constant in MB/s as text (``145 MB/s``)."""
    return f"{c.value / 1e6:g} MB/s"


def substitutions() -> dict[str, str]:
    """Text of each constant for the documentation's pages (``docs/conf.py``: MyST substitutions,
    ``{{ hwicap_us_per_word }}``): name in lower case -> the value with its unit."""
    out = {}
    for c in CONSTANTS:
        if c.unit == "Hz":
            text = mhz(c)
        elif c.unit == "B/s":
            text = mbytes(c)
        else:
            text = f"{c.value:g} {c.unit}"
        out[c.name.lower()] = text
    out["icap_us_per_word"] = f"{icap_us_per_word():g} µs"
    out["icap_mbytes"] = f"{icap_bytes_per_s() / 1e6:g} MB/s"
    return out
