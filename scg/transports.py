"""Transports of the host SCG: where the specialized frames go.

- :class:`DevMemBus`: the AXI HWICAP registers through ``/dev/mem`` or a UIO device (mmap), for the
  register-level driver :class:`dcsflow.scg.driver.HwicapSession` (target ``devmem:BASE[@/dev/uioN]``),
  the CFGLUT5 loader's for :class:`dcsflow.scg.cfglut_loader.LoaderSession` (target
  ``cfglut:devmem:BASE[@/dev/uioN]``) and the ICAP stream controller's for
  :class:`dcsflow.scg.icapdma.IcapDmaSession` (target ``icap-dma:BASE[@/dev/uioN][:BUFFER]``);
- :class:`DmaBuffer`: a physically contiguous buffer the stream controller reads (a reserved region
  through ``/dev/mem``, or a u-dma-buf device), :func:`open_dma_buffer`;
- :class:`HwicapDevice`: the character device of Linux's own ``xilinx_hwicap`` driver (target
  ``hwicap-dev:/dev/icap0``);
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


#: the DMA buffer of ``icap-dma:`` when none is named: u-dma-buf's first device
DEFAULT_DMA_BUFFER = "/dev/udmabuf0"
#: sysfs folders of the u-dma-buf driver (module u-dma-buf; its older name udmabuf)
UDMABUF_SYSFS = ("/sys/class/u-dma-buf", "/sys/class/udmabuf")


class DmaBuffer:
    """A physically contiguous buffer mapped into this process: ``size`` bytes at bus address
    ``phys``, the ICAP stream controller's input (its AXI4 master reads it through a Zynq HP port).

    Args:
        path: ``/dev/mem`` (then ``phys`` is the map offset: a reserved region, page aligned) or a
            u-dma-buf device (map offset 0). Opened with ``O_SYNC``: the mapping is uncached, so
            the words are in DDR when the controller reads them (u-dma-buf: "CPU cache is disabled
            by setting the O_SYNC flag"; /dev/mem maps with O_SYNC uncached on ARM).
        phys, size: the buffer's bus address and bytes; offset: where the buffer starts in
            ``path`` (``phys`` for ``/dev/mem``, 0 for a u-dma-buf device).
    Raises:
        RekeyError: code ``arg``: the device cannot be opened or mapped.
    """

    def __init__(self, path: str, phys: int, size: int, offset: int = 0):
        self.path, self.phys, self.size = path, phys, size
        try:
            fd = os.open(path, os.O_RDWR | os.O_SYNC)
        except OSError as e:
            raise RekeyError(f"DMA buffer: cannot open {path}: {e.strerror}", "arg") from None
        try:
            self._mm = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, offset=offset)
        except (OSError, ValueError) as e:
            raise RekeyError(f"DMA buffer: cannot map {size} bytes of {path} at 0x{offset:X}: {e}", "arg") from None
        finally:
            os.close(fd)

    def write_words(self, words) -> None:
        """Store 32-bit ``words`` from the buffer's start, little endian (the AXI bus's order)."""
        a = array.array("I", words)
        if sys.byteorder == "big":
            a.byteswap()
        data = a.tobytes()
        if len(data) > self.size:
            raise RekeyError(f"DMA buffer {self.path}: {len(data)} bytes do not fit its {self.size}", "arg")
        self._mm[:len(data)] = data


def open_dma_buffer(spec: str, need: int, sysfs_roots=UDMABUF_SYSFS) -> DmaBuffer:
    """The DMA buffer named by ``spec`` (the part of ``icap-dma:`` after the registers):
    ``0xPHYS[+SIZE]`` (a reserved, physically contiguous region through ``/dev/mem``; SIZE in bytes,
    default ``need`` rounded up to a page) or a u-dma-buf device ``/dev/udmabufN`` (its bus address
    and size from ``<sysfs>/udmabufN/phys_addr`` and ``size``).

    Raises:
        RekeyError: code ``arg``: a malformed spec, no such u-dma-buf, a region not page aligned.
    """
    if spec.startswith("/"):
        name = os.path.basename(spec)
        for root in sysfs_roots:
            d = Path(root) / name
            if (d / "phys_addr").is_file():
                try:
                    phys = int((d / "phys_addr").read_text().strip(), 16)
                    size = int((d / "size").read_text().strip(), 0)
                except (OSError, ValueError) as e:
                    raise RekeyError(f"DMA buffer {spec}: cannot read {d}/phys_addr and size ({e})", "arg") from None
                return DmaBuffer(spec, phys, size)
        raise RekeyError(f"DMA buffer {spec}: no u-dma-buf device of that name ({' or '.join(sysfs_roots)}/{name}/"
                         "phys_addr missing); load u-dma-buf, or name a reserved region: icap-dma:BASE:0xPHYS+SIZE",
                         "arg")
    base_s, _, size_s = spec.partition("+")
    try:
        phys = int(base_s, 0)
        size = int(size_s, 0) if size_s else -(-need // mmap.PAGESIZE) * mmap.PAGESIZE
    except ValueError:
        raise RekeyError(f"DMA buffer {spec!r}: expected 0xPHYS[+SIZE] or /dev/udmabufN", "arg") from None
    if phys % mmap.PAGESIZE:
        raise RekeyError(f"DMA buffer at 0x{phys:X}: a reserved region must start on a page ({mmap.PAGESIZE} bytes)",
                         "arg")
    return DmaBuffer("/dev/mem", phys, size, offset=phys)


class HwicapDevice:
    """The character device of Linux's ``xilinx_hwicap`` driver (``/dev/icap0``;
    drivers/char/xilinx_hwicap/xilinx_hwicap.c). What the driver does with it: ``open`` resets the
    AXI HWICAP, sends DESYNC, reads IDCODE and sends DESYNC again (one opener at a time, else
    EBUSY); every ``write`` hands its whole 32-bit words to the HWICAP write FIFO as the CPU's
    words (each 4 bytes in native byte order; a remainder under 4 bytes waits for the next write)
    and returns the bytes taken, or fails (-EFAULT, -EIO) after an unknown part of that call; a
    failed or interrupted call leaves the port where it stopped; ``close`` sends the remainder
    padded with zeros and then DESYNC.

    :meth:`send` writes the words of one stream in calls of ``chunk_words`` words (one frame by
    default), so that after a failure the words confirmed are those of the calls that returned.

    Raises (from :meth:`send`):
        OSError: the device cannot be opened or a write fails; ``words_done`` on the exception (when
            the open succeeded) is the words confirmed written before the failure.
    """

    #: the system call that writes (a test replaces it)
    _write = staticmethod(os.write)

    def __init__(self, path: str, chunk_words: int = 101):
        self.path, self.chunk_words = path, chunk_words
        self.writes = 0

    def send(self, words) -> int:
        """Open, write ``words`` (native byte order) in chunks, close; returns the words written."""
        data = array.array("I", words).tobytes()
        fd = os.open(self.path, os.O_WRONLY)
        done = 0
        try:
            step = 4 * self.chunk_words
            while done < len(data):
                try:
                    n = self._write(fd, data[done:done + step])
                except OSError as e:
                    e.words_done = done // 4
                    raise
                self.writes += 1
                done += n
        finally:
            try:
                os.close(fd)
            except OSError as e:          # the driver's flush and DESYNC on close failed
                e.words_done = done // 4
                raise
        return done // 4




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

