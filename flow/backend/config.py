"""Template configuration and frame map of a placed design (LUT contents only).

Physical LUT contents (UG474; FACTS.md "INIT index = the LUT6 truth-table index of the physical pins
A6..A1, A1 = LSB"): a LUT with inputs I0..I(k-1) sits on pins A1..Ak (this pin order is fixed and
recorded, like Vivado's LOCK_PINS); its 64-bit INIT repeats the 2^k entries over the unused pins, so
the value of an unused pin does not matter. A LUT6_2 pair puts the union of both input sets on
A1..Am (O6 LUT's inputs first), A6 is tied high: INIT[63:32] = O6 function, INIT[31:0] = O5 function.
A TLUT's INIT bit i is PPC output ``dcs_ppc[i mod 2^k]``; the template holds the value for an
all-zero parameter. With the opt-in TLUT pairs, two TLUTs share a LUT6_2 like static LUTs do and
INIT[31:0] / INIT[63:32] name the O5 / O6 TLUT's PPC outputs through the pin map. Route-through LUTs hold O6 = A1, constant LUTs all-zero/all-one.
A distributed-RAM LUT (site kind ``ram``) holds its port's INIT parameter unchanged (address bit i on
pin A(i+1), so INIT bit a is the word at address a; UG474) and an SRL its INIT: static template
content, never in the frame map.

The configuration is written into a :class:`dcsflow.scg.bitstream.FrameMemory` with :meth:`set_lut` (frame
ECC kept consistent); routing, CARRY4 and FF configuration bits are not generated (logic-only).
"""

from __future__ import annotations

from dataclasses import dataclass

from dcsflow.scg.bitstream import FrameMemory
from dcsflow.scg.device import Device
from dcsflow.scg.lut import expand

from .pack import LETTERS, RT_INIT, LutSite, Packing
from .place import Placement


def site_init(site: LutSite, packing: Packing, tlut_bits: dict[str, list[int]] | None = None) -> int:
    """64-bit physical INIT of a LUT site (rules in the module docstring).

    ``tlut_bits``: TLUT name -> its 2^k truth-table bits (default: the netlist's INIT, zero for TLUTs).
    """
    luts = packing.luts
    if site.kind == "rt":
        return RT_INIT
    if site.kind == "const":
        return (1 << 64) - 1 if site.const_value else 0
    if site.kind in ("srl", "ram"):
        return luts[site.o6].init & ((1 << 64) - 1)

    def table(name: str) -> int:
        lc = luts[name]
        if lc.tlut and tlut_bits is not None:
            return sum(b << i for i, b in enumerate(tlut_bits[name]))
        return lc.init

    if site.kind in ("lut", "tlut"):
        lc = luts[site.o6]
        return expand(table(site.o6), lc.k, list(range(lc.k)))
    # pair: O5 in the lower half, O6 in the upper half (A6 = 1)
    pin = {net: i for i, net in enumerate(site.pins)}
    lo = expand(table(site.o5), luts[site.o5].k, [pin[x] for x in luts[site.o5].inputs], 5)
    hi = expand(table(site.o6), luts[site.o6].k, [pin[x] for x in luts[site.o6].inputs], 5)
    return lo | (hi << 32)


@dataclass
class Configuration:
    """Template configuration: ``memory`` (frames), ``lut_inits`` {(site, bel): INIT}, ``framemap``
    entries [(far, word, bit, ppc_output)] sorted, ``tluts`` [{name, site, bel, pins}], ``tlut_fars``."""

    memory: FrameMemory
    lut_inits: dict
    entries: list
    tluts: list
    tlut_fars: list


def tlut_zero_bits(packing: Packing, ppc_zero: list[int] | None) -> dict[str, list[int]]:
    """TLUT truth tables for the PPC outputs ``ppc_zero`` (an all-zero parameter evaluation)."""
    out = {}
    for n, lc in packing.luts.items():
        if lc.tlut:
            out[n] = [ppc_zero[j] for j in lc.ppc] if ppc_zero is not None else [0] * len(lc.ppc)
    return out


def configure(packing: Packing, placement: Placement, device: Device, ppc_zero: list[int] | None = None,
              net_name=str) -> Configuration:
    """Write every LUT INIT of the placed design into a fresh frame memory and build the frame map.

    Args:
        ppc_zero: PPC output bits for the all-zero parameter (None: TLUT bits 0).
        net_name: net id -> printable name (for the TLUT pin lists).
    Raises:
        DeviceError (scg): a placement site outside the device.
    """
    mem = FrameMemory(device)
    zero = tlut_zero_bits(packing, ppc_zero)
    inits = {}
    entries = []
    tluts = []
    fars = set()
    for si, s in enumerate(packing.slices):
        site_name = placement.sites[si]
        for li, site in enumerate(s.luts):
            if site is None:
                continue
            bel = f"{LETTERS[li]}6LUT"
            v = site_init(site, packing, zero)
            mem.set_lut(site_name, bel, v, update_ecc=True)
            inits[(site_name, bel)] = v
            if site.kind == "tlut":
                lc = packing.luts[site.o6]
                locs = device.lut_bits(site_name, bel)
                for i, (far, word, bit) in enumerate(locs):
                    entries.append((far, word, bit, lc.ppc[i % len(lc.ppc)]))
                    fars.add(far)
                tluts.append({"name": lc.name, "site": site_name, "bel": bel,
                              "pins": [net_name(x) for x in lc.inputs] + [None] * (6 - lc.k)})
            elif site.kind == "tlutpair":
                locs = device.lut_bits(site_name, bel)
                pin = {net: q for q, net in enumerate(site.pins)}
                names = [net_name(x) for x in site.pins] + [None] * (5 - len(site.pins)) + ["1"]
                for half, name in ((0, site.o5), (1, site.o6)):
                    lc = packing.luts[name]
                    pins_of = [pin[x] for x in lc.inputs]
                    for j in range(32):
                        idx = sum(((j >> p) & 1) << q for q, p in enumerate(pins_of))
                        far, word, bit = locs[32 * half + j]
                        entries.append((far, word, bit, lc.ppc[idx]))
                        fars.add(far)
                    tluts.append({"name": lc.name, "site": site_name,
                                  "bel": bel if half else bel.replace("6LUT", "5LUT"), "pins": names,
                                  "input_pins": pins_of})
    entries.sort()
    return Configuration(mem, inits, entries, tluts, sorted(fars))
