"""Transports of the host SCG: where the specialized frames go.

- :class:`DevMemBus`: the AXI HWICAP registers through ``/dev/mem`` or a UIO device (mmap), for the
  register-level driver :class:`dcsflow.scg.driver.HwicapSession` (target ``devmem:BASE[@/dev/uioN]``),
  and the CFGLUT5 loader's for :class:`dcsflow.scg.cfglut_loader.LoaderSession` (target
  ``cfglut:devmem:BASE[@/dev/uioN]``);
- :func:`make_emulator`: the AXI HWICAP model over the configuration-memory emulator holding the
  template (target ``emulator``);
- :func:`specialized_stream`: the configuration words of a partial or full specialized bitstream
  (targets ``bitfile:``/``partial:``, and :class:`FpgaManager`);
- :class:`FpgaManager`: PCAP through the Linux FPGA manager (target ``fpgamgr[:NAME]``);
- :func:`clear_pcap_pr`: the Zynq-7000 devcfg switch from PCAP to ICAP (UG585).

Files holding key material (the FPGA manager's firmware file) are written with owner-only
permissions through :mod:`dcsflow.fileio`.
"""

from __future__ import annotations

import array
import mmap
import os
import sys
from pathlib import Path

from dcsflow.fileio import OutputError, write_bytes_atomic

from .bitstream import FrameMemory, full_stream_words, partial_stream_words
from .device import get_device
from .errors import RekeyError


class DevMemBus:
    """AXI HWICAP registers through ``/dev/mem`` (or a UIO device) mapped with mmap.

    Args:
        base: physical base address of the AXI HWICAP (e.g. 0x40020000 on PYNQ overlays);
        path: ``/dev/mem`` or ``/dev/uioN`` (then ``base`` is the map offset, normally 0).
        size: bytes mapped (default :attr:`SIZE`, the AXI HWICAP's; the CFGLUT5 loader's is
            ``2**ADDR_WIDTH``).
    Raises:
        RekeyError: the device cannot be opened or mapped.
    """

    SIZE = 0x1000

    def __init__(self, base: int, path: str = "/dev/mem", size: int | None = None):
        try:
            fd = os.open(path, os.O_RDWR | os.O_SYNC)
        except OSError as e:
            raise RekeyError(f"cannot open {path}: {e.strerror}", "arg") from None
        try:
            self._mm = mmap.mmap(fd, size or self.SIZE, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE,
                                 offset=base)
        except (OSError, ValueError) as e:
            raise RekeyError(f"cannot map {path} at 0x{base:X}: {e}", "arg") from None
        finally:
            os.close(fd)

    def read(self, off: int) -> int:
        """32-bit register read."""
        return int.from_bytes(self._mm[off:off + 4], "little")

    def write(self, off: int, value: int) -> None:
        """32-bit register write."""
        self._mm[off:off + 4] = value.to_bytes(4, "little")




def specialized_stream(build, p, full: bool = False):
    """Configuration words (UG470) of the specialized configuration ``p`` (:class:`dcsflow.scg.plan.RekeyPlan`)
    of ``build`` (:class:`dcsflow.scg.buildfolder.BuildFolder`).

    ``full=False``: partial bitstream of the touched frames only (:func:`dcsflow.scg.bitstream.partial_stream_words`:
    sync, RCRC, IDCODE, per run FAR + WCFG + FDRI with the frames and one pad frame, CRC, DESYNC).
    ``full=True``: the whole template with the touched frames replaced
    (:func:`dcsflow.scg.bitstream.full_stream_words`, Vivado's packet order).
    """
    if full:
        mem = build.template.copy()
        for far, fr in p.frames.items():
            mem.set_frame(far, fr)
        return full_stream_words(mem)
    mem = FrameMemory(build.device)
    for far, fr in p.frames.items():
        mem.set_frame(far, fr)
    return partial_stream_words(mem, build.fars, crc=True)


def words_to_le_bytes(words) -> bytes:
    """32-bit words -> little-endian bytes (the byte order the Linux zynq FPGA manager expects)."""
    a = array.array("I", words)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


#: Zynq-7000 devcfg registers (UG585, appendix B.16 "Device Configuration Interface (devcfg)").
DEVCFG_BASE = 0xF8007000
DEVCFG_CTRL_PCAP_PR = 1 << 27


def clear_pcap_pr(devcfg) -> int:
    """Select the ICAP for partial reconfiguration: clear devcfg CTRL bit 27 (PCAP_PR, UG585).

    The Linux zynq FPGA manager (used by ``fpgamgr`` and by PYNQ) sets PCAP_PR = 1 (PCAP) on every
    load; while it is set, AXI HWICAP writes do not reach the configuration memory. ``devcfg``: bus
    with ``read(offset)``/``write(offset, value)`` at :data:`DEVCFG_BASE`. Returns the old CTRL value.
    """
    ctrl = devcfg.read(0)
    if ctrl & DEVCFG_CTRL_PCAP_PR:
        devcfg.write(0, ctrl & ~DEVCFG_CTRL_PCAP_PR & 0xFFFFFFFF)
    return ctrl


class FpgaManager:
    """PCAP transport through the Linux FPGA manager, as PYNQ loads partial bitstreams.

    ``load_partial(name, data)`` writes ``data`` (a raw ``.bin`` with little-endian words: the
    zynq FPGA manager looks for the sync word as bytes 66 55 99 AA) to ``firmware_dir/name`` (mode
    0600: it holds key material), writes ``1`` (FPGA_MGR_PARTIAL_RECONFIG) to ``sysfs/flags``, then
    ``name`` to ``sysfs/firmware``, which loads it; the file is removed afterwards unless ``keep``.
    No logic in the PL is needed. The driver leaves devcfg PCAP_PR set: a later AXI HWICAP rekey
    (``devmem:``) clears it first (:func:`clear_pcap_pr`).

    Args:
        sysfs: the FPGA manager's sysfs folder; firmware_dir: the kernel's firmware search folder.
    Raises (from load_partial):
        RekeyError: the folders are missing or not writable (code ``write``).
    """

    def __init__(self, sysfs: str = "/sys/class/fpga_manager/fpga0", firmware_dir: str = "/lib/firmware",
                 keep: bool = False):
        self.sysfs = Path(sysfs)
        self.firmware_dir = Path(firmware_dir)
        self.keep = keep

    def load_partial(self, name: str, data: bytes) -> None:
        """Load a partial bitstream (see the class docstring).

        Raises:
            RekeyError: ``name`` is not a plain file name or names a file that already exists in
                the firmware folder (never overwritten or removed: it is not ours), the FPGA
                manager is missing (code ``arg``), a write failed (code ``write``). The firmware
                file written here is removed in every case (also on SIGTERM through the CLI).
        """
        if "/" in name or "\0" in name or name in ("", ".", ".."):
            raise RekeyError(f"fpgamgr: firmware name {name!r} must be a plain file name", "arg")
        if not (self.sysfs / "firmware").exists():
            raise RekeyError(f"fpgamgr: {self.sysfs}/firmware missing (no Linux FPGA manager?)", "arg")
        fw = self.firmware_dir / name
        if os.path.lexists(fw):
            raise RekeyError(f"fpgamgr: {fw} exists; refusing to overwrite (and then remove) a file "
                             "that is not ours: name another with fpgamgr:NAME.bin", "arg")
        try:                     # fw did not exist: whatever is there afterwards is ours to remove
            write_bytes_atomic(fw, data, private=True)
            (self.sysfs / "flags").write_text("1\n")
            (self.sysfs / "firmware").write_text(name + "\n")
        except OSError as e:
            what = str(e) if isinstance(e, OutputError) else f"{e.strerror or e} ({e.filename})"
            raise RekeyError(f"fpgamgr: {what}", "write") from None
        finally:
            if not self.keep:
                try:
                    fw.unlink()
                except FileNotFoundError:
                    pass


def make_emulator(build, device: str | None = None):
    """An :class:`dcsflow.scg.hwicap.AxiHwicap` whose configuration memory holds ``build``'s template (a copy);
    with ``device`` another part's model holding an empty configuration (tests of the IDCODE check)."""
    from .emulator import ConfigEmulator
    from .hwicap import AxiHwicap

    dev = get_device(device) if device else build.device
    mem = build.template if dev.name == build.device.name else FrameMemory(dev)
    return AxiHwicap(ConfigEmulator(dev, mem.copy()))

