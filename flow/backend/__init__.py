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

from .base import Backend, BackendError, BackendRequest, BuiltinBackend, ExportJob, Implementation

__all__ = ["BACKENDS", "Backend", "BackendError", "BackendRequest", "BuiltinBackend", "ExportJob",
           "Implementation", "get_backend"]


def _vivado_backend() -> Backend:
    from .vivado import VivadoBackend

    return VivadoBackend()


#: Registered back ends by ``--backend`` name (:func:`get_backend` makes one).
BACKENDS = {"builtin": BuiltinBackend, "vivado": _vivado_backend}


def get_backend(name: str = "builtin") -> Backend:
    """Instantiate a registered back end. Raises BackendError for an unknown name."""
    try:
        return BACKENDS[name]()
    except KeyError:
        raise BackendError(f"unknown back end {name!r}; available: {', '.join(BACKENDS)}") from None
