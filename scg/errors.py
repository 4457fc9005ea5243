"""Error types of the runtime package :mod:`scg`.

Every error meant for the user derives from :class:`ScgError` and has ``user_error = True``, so the
``dcsflow`` CLI prints it as one line ``error: ...`` (exit status 1) instead of a traceback.
``scg`` does not import ``flow``; the CLI recognises these errors by the ``user_error`` attribute.
"""


class ScgError(Exception):
    """Base class of the user-facing errors of :mod:`scg`."""

    user_error = True


class DataMissing(ScgError):
    """A device data file was not found; the message lists every place that was searched."""


class DeviceError(ScgError):
    """Unknown part, site, BEL or frame address (FAR) for the device model."""


class BitstreamError(ScgError):
    """Malformed, truncated or corrupted bitstream (bad header, bad packet, CRC mismatch, ...).

    This is the only exception type that :func:`scg.bitstream.parse` raises for bad input bytes.
    """


class HwicapError(ScgError):
    """Invalid access to the AXI HWICAP register model (unmapped or misaligned offset, bad value)."""
