"""The back-end interface (:class:`Backend`) and the built-in back end (:class:`BuiltinBackend`).

A back end turns a request (:class:`BackendRequest`: a netlist of Xilinx primitives with TLUTs
marked, a device, a seed) into an :class:`Implementation` (packing, placement, configuration) and
may write files of its own for the TLUT implementation (:meth:`Backend.export`). Registered back
ends: :data:`dcsflow.flow.backend.BACKENDS`.
"""


from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from dcsflow.scg.device import Device

from ..errors import FlowError


class BackendError(FlowError):
    """A back end cannot implement the design (unknown back end, unsupported cells, no fit)."""


@dataclass
class BackendRequest:
    """Input of :meth:`Backend.implement`.

    module: flat Yosys JSON module of Xilinx primitives (TLUTs marked ``dcs_tlut``/``dcs_ppc``);
    device: target :class:`dcsflow.scg.device.Device`; seed: placer seed (results are deterministic per seed);
    ppc_zero: PPC output bits for the all-zero parameter (None for a design without TLUTs);
    net_name: net id -> printable name; effort: placer effort (1.0 default); tlut_pairs: let two
    small TLUTs share a LUT6_2 site (opt-in; default one TLUT per LUT6 site, whose 64 INIT bits it owns);
    lut_size: the build's LUT size K (below 6 one LUT per LUT site, :func:`dcsflow.flow.backend.pack.pack`);
    tlut: the TLUT realization (``frames``; ``cfglut5``: every TLUT a CFGLUT5, SLICEM only).
    """

    module: dict
    device: Device
    seed: int = 1
    ppc_zero: list | None = None
    net_name: object = str
    effort: float = 1.0
    tlut_pairs: bool = False
    lut_size: int = 6
    tlut: str = "frames"


@dataclass
class Implementation:
    """Output of :meth:`Backend.implement`: ``packing`` (built-in only, else None), ``placement``
    (:class:`~.place.Placement`: site per packed slice), ``configuration`` (template frames + frame
    map), ``utilization`` dict, ``seconds`` per step (pack, place, config)."""

    packing: object
    placement: object
    configuration: object
    utilization: dict
    seconds: dict = field(default_factory=dict)


@dataclass
class ExportJob:
    """Input of :meth:`Backend.export`: what a back end may write beside the built-in artifacts.

    out: build folder; module: the TLUT netlist module (Yosys JSON); top: top module; tluts: the
    configuration's TLUT list (name, site, bel, pins); device: :class:`dcsflow.scg.device.Device`;
    design_hash: the build's; board: the back end's board object (:meth:`Backend.load_board`) or
    None; params: parameter port names; board_ports: ports a board wrapper drives (from the design
    description; empty: no board wrapper); tlut: the TLUT realization (``frames`` or ``cfglut5``);
    chain_luts: CFGLUT5s per chain and handshake: the design's input handshake
    (:class:`dcsflow.flow.design.Handshake` or None) of a ``cfglut5`` build; transport: the
    configuration port of the export (``hwicap`` or ``icap-dma``, :data:`dcsflow.flow.design.TRANSPORTS`).
    """

    out: object
    module: dict
    top: str
    tluts: list
    device: Device
    design_hash: str
    board: object = None
    params: list = field(default_factory=list)
    board_ports: frozenset = frozenset()
    tlut: str = "frames"
    chain_luts: int | None = None
    handshake: object = None
    transport: str = "hwicap"


class Backend(ABC):
    """Interface of a back end (built-in, Vivado in :mod:`.vivado`; later openXC7 / RapidWright).

    The ``backend`` build stage (:mod:`.stage`) calls, in order: :meth:`load_board` (the ``--board``
    option), :meth:`implement` for each implementation, :meth:`export` for the TLUT implementation.
    """

    name: str = "abstract"
    #: the TLUT realizations (``dcsflow build --tlut``) the back end can place
    tlut_kinds: tuple = ("frames",)

    def load_board(self, board: str | None):
        """The board object for ``--board`` (None: no board). A back end without board support
        refuses one. Raises BackendError."""
        if board is not None:
            raise BackendError(f"--board needs a back end that uses boards (--backend vivado); {self.name} does not")
        return None

    @abstractmethod
    def implement(self, request: BackendRequest) -> Implementation:
        """Pack, place and configure ``request.module``. Raises BackendError (or a FlowError subclass)."""

    def export(self, job: ExportJob) -> list[str]:
        """Write the back end's own files for the TLUT implementation (e.g. a vendor tool's project);
        returns their paths relative to ``job.out``. Default: nothing."""
        return []


class BuiltinBackend(Backend):
    """Python packer + TLUT-aware annealing placer + LUT-content configuration (logic-only)."""

    name = "builtin"
    tlut_kinds = ("frames", "cfglut5")

    def implement(self, request: BackendRequest, packing=None, placement=None, seconds: dict | None = None
                  ) -> Implementation:
        """See :class:`Backend`; ``packing`` / ``placement``: made already (:meth:`pack`,
        :meth:`place`; ``seconds`` their ``pack`` / ``place`` times). Raises PackError / PlaceError
        (FlowError subclasses)."""
        from .config import configure

        secs = dict(seconds or {})
        t0 = time.perf_counter()
        if packing is None:
            packing = self.pack(request)
            secs["pack"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        if placement is None:
            placement = self.place(request, packing)
            secs["place"] = time.perf_counter() - t1
        t2 = time.perf_counter()
        conf = configure(packing, placement, request.device, request.ppc_zero, request.net_name)
        secs["config"] = time.perf_counter() - t2
        return Implementation(packing, placement, conf, packing.utilization(),
                              {k: secs[k] for k in ("pack", "place", "config") if k in secs})

    def pack(self, request: BackendRequest):
        """The packing of ``request.module`` (:func:`dcsflow.flow.backend.pack.pack`); its
        ``utilization()`` gives the slice counts the conventional candidates are chosen by."""
        from .pack import pack

        return pack(request.module, tlut_pairs=request.tlut_pairs, lut_size=request.lut_size, tlut=request.tlut)

    def place(self, request: BackendRequest, packing):
        """The placement of ``packing`` (:func:`dcsflow.flow.backend.place.place`)."""
        from .place import place

        return place(packing, request.module, request.device, seed=request.seed, effort=request.effort)


