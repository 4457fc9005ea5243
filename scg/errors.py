"""Error types of the runtime package :mod:`scg`.

Every error meant for the user derives from :class:`ScgError` and has ``user_error = True``, so the
runtime's command line (``python -m dcsflow.scg``) and the ``dcsflow`` CLI print it as one line
``error: ...`` (exit status 1) instead of a traceback. ``scg`` does not import ``flow``; both CLIs
recognise these errors by the ``user_error`` attribute.
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

    This is the only exception type that :func:`dcsflow.scg.bitstream.parse` raises for bad input bytes.
    """


class HwicapError(ScgError):
    """Invalid access to the AXI HWICAP register model (unmapped or misaligned offset, bad value)."""


class BuildFolderError(ScgError):
    """A build folder is missing, incomplete, changed since the build or inconsistent (refused).

    ``code``: the firmware error name it corresponds to (a key of :data:`dcsflow.scg.rekey.ERROR_CODES`):
    ``design`` (files of another build, a hash or count mismatch), ``device`` (another part) or
    ``blob`` (an unreadable PPC).
    """

    def __init__(self, message: str, code: str = "design"):
        super().__init__(message)
        self.code = code


class RekeyError(ScgError):
    """A rekey could not be done.

    ``code``: a key of :data:`dcsflow.scg.rekey.ERROR_CODES` (the firmware's ``SCG_ERR_*`` names);
    ``rolled_back``: whether the previous frames were written back after a failed write or read-back.
    """

    def __init__(self, message: str, code: str = "arg", rolled_back: bool = False):
        super().__init__(message)
        self.code = code
        self.rolled_back = rolled_back


class CfglutError(ScgError, ValueError):
    """Bad CFGLUT5 chain data (:mod:`dcsflow.scg.cfglut`): an INIT out of 32-bit range, a chain name
    without INIT or in two chains, a words list of the wrong length, a chain layout the loader cannot
    hold, or a words file with a wrong header, line, length or build id. A ``ValueError`` too, so
    that callers treating bad values alike catch it."""
