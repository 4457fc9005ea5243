"""Back ends: packing, placement and configuration generation behind one interface.

The built-in back end runs three typed stages, each its own module:
:mod:`.pack` (netlist -> :class:`~.pack.Packing`), :mod:`.place` (-> :class:`~.place.Placement`),
:mod:`.config` (-> :class:`~.config.Configuration`: template frames + frame map). :mod:`.stage` writes
the build-folder artifacts, :mod:`.report` the ICAP model, tables and the HTML page, :mod:`.verify`
the configuration-level check (``dcsflow check --frames``).

External back ends (Vivado, openXC7) implement :class:`Backend` (as nextpnr's architectures share
one API): given a :class:`BackendRequest` they return an :class:`Implementation` whose placement and
configuration the rest of the flow (frame map, report, SCG) uses unchanged.
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
    device: target :class:`scg.device.Device`; seed: placer seed (results are deterministic per seed);
    ppc_zero: PPC output bits for the all-zero parameter (None for a design without TLUTs);
    net_name: net id -> printable name; effort: placer effort (1.0 default); tlut_pairs: let two
    small TLUTs share a LUT6_2 site (opt-in; default one TLUT per LUT6 site as the issue asks).
    """

    module: dict
    device: Device
    seed: int = 1
    ppc_zero: list | None = None
    net_name: object = str
    effort: float = 1.0
    tlut_pairs: bool = False


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


class Backend(ABC):
    """Interface of a back end (built-in, Vivado in :mod:`.vivado`; later openXC7 / RapidWright)."""

    name: str = "abstract"

    @abstractmethod
    def implement(self, request: BackendRequest) -> Implementation:
        """Pack, place and configure ``request.module``. Raises BackendError (or a FlowError subclass)."""


class BuiltinBackend(Backend):
    """Python packer + TLUT-aware annealing placer + LUT-content configuration (logic-only)."""

    name = "builtin"

    def implement(self, request: BackendRequest) -> Implementation:
        """See :class:`Backend`; raises PackError / PlaceError (FlowError subclasses)."""
        from .config import configure
        from .pack import pack
        from .place import place

        t0 = time.perf_counter()
        packing = pack(request.module, tlut_pairs=request.tlut_pairs)
        t1 = time.perf_counter()
        placement = place(packing, request.module, request.device, seed=request.seed, effort=request.effort)
        t2 = time.perf_counter()
        conf = configure(packing, placement, request.device, request.ppc_zero, request.net_name)
        t3 = time.perf_counter()
        return Implementation(packing, placement, conf, packing.utilization(),
                              {"pack": t1 - t0, "place": t2 - t1, "config": t3 - t2})


def _vivado_backend() -> Backend:
    from .vivado import VivadoBackend

    return VivadoBackend()


BACKENDS = {"builtin": BuiltinBackend, "vivado": _vivado_backend}


def get_backend(name: str = "builtin") -> Backend:
    """Instantiate a registered back end. Raises BackendError for an unknown name."""
    try:
        return BACKENDS[name]()
    except KeyError:
        raise BackendError(f"unknown back end {name!r}; available: {', '.join(BACKENDS)}") from None
