"""What :func:`dcsflow.tmap.mapper.map_tluts` returns: the TLUT netlist, the PPC and the figures of
the mapping (:class:`MapResult`, :class:`MapStats`), and the files they are written to
(``netlist.json``, ``netlist.blif``, ``ppc.aig``, ``ppc.json``: docs/formats.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from dcsflow.aig import Aig

from .netlist import TlutNetlist

__all__ = ["PPC_FORMAT", "FORMAT_VERSION", "MapStats", "MapResult"]

PPC_FORMAT = "dcsflow-ppc"
#: Version of the PPC manifest (``ppc.json``).
FORMAT_VERSION = 1


@dataclass
class MapStats:
    """Figures of one mapping: LUT count (static + TLUTs), TLUTs, LUT depth, PPC AND nodes and
    outputs, proof result (None when not run), mapping seconds (wall, including the PPC optimization,
    whose share is ``ppc_seconds``; the proof is not included), AIG AND nodes, parameter count,
    MUXF7 and MUXF8 cells of wide functions, parameter bits (``MapOptions.param_bits``: TLUTs without
    inputs that static LUTs read; ``luts`` and ``tluts`` count them too)."""

    luts: int
    tluts: int
    depth: int
    ppc_ands: int
    ppc_outputs: int
    verified: bool | None
    seconds: float
    aig_ands: int
    params: int
    ppc_seconds: float = 0.0
    proof: str = ""
    muxf7: int = 0
    muxf8: int = 0
    param_bits: int = 0

    def as_dict(self) -> dict:
        """Plain dict of the figures."""
        return dict(self.__dict__)


@dataclass
class MapResult:
    """Result of :func:`dcsflow.tmap.mapper.map_tluts`: the TLUT netlist, the PPC (an AIG whose
    inputs are ``netlist.params`` and whose output j drives every TLUT entry that names j) and the
    stats."""

    netlist: TlutNetlist
    ppc: Aig
    stats: MapStats
    notes: list = field(default_factory=list)
    #: LUT name -> literal of the mapped AIG that the LUT computes (cut points of the proof)
    claims: dict | None = None
    #: the ABC-optimized AIG variant the cover was taken from (None: the input AIG itself)
    variant: Aig | None = None
    #: TLUT name -> :class:`dcsflow.tmap.affine.AffineTlut` (TLUTs found affine in their frontier)
    affine: dict = field(default_factory=dict)

    def manifest(self) -> dict:
        """PPC manifest (format ``dcsflow-ppc`` version 1)."""
        return {"format": PPC_FORMAT, "version": FORMAT_VERSION, "K": self.netlist.K,
                "params": list(self.netlist.params), "outputs": self.ppc.num_outputs,
                "ands": self.ppc.num_ands, "aiger": "ppc.aig",
                "tluts": {lut.name: list(lut.ppc) for lut in self.netlist.luts if lut.is_tlut},
                "affine": {n: a.as_json() for n, a in sorted(self.affine.items())},
                "source_hash": self.netlist.source_hash, "verified": self.stats.verified}

    def write(self, out_dir) -> list[Path]:
        """Write ``netlist.json``, ``netlist.blif``, ``ppc.aig`` and ``ppc.json`` into ``out_dir``
        (created if needed) as one group (:func:`dcsflow.fileio.write_files_atomic`): all four or
        none. When one cannot be written (a full disk, an interrupt), every file of an earlier run
        stays as it was and no folder is left created; should the renames at the end fail half-way,
        all four are removed (never a new netlist beside an old PPC). Returns the paths.

        Raises:
            OSError: the folder or a file cannot be written (``filename`` names it;
                :class:`dcsflow.fileio.OutputError`).
        """
        from dcsflow.fileio import write_files_atomic  # flow is installed with tmap

        d = Path(out_dir)
        files = {d / "netlist.json": json.dumps(self.netlist.to_json_obj()) + "\n", d / "netlist.blif": self.netlist.to_blif(),
                 d / "ppc.aig": self.ppc.to_bytes(), d / "ppc.json": json.dumps(self.manifest(), indent=1) + "\n"}
        before = {p: _identity(p) for p in files}
        try:
            return write_files_atomic(files)
        except BaseException:
            if any(_identity(p) != before[p] for p in files):     # some replaced, some not: none
                for p in files:
                    try:
                        p.unlink()
                    except OSError:
                        pass
            raise


def _identity(path: Path) -> tuple | None:
    """(inode, modification time) of ``path``, None when there is none: a file replaced has another."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns
