"""Error classes of the AES-128 design package (all are user errors: one line in the CLI)."""

from dcsflow.tools import ToolMissing


class AesError(Exception):
    """Base class; ``user_error = True`` makes the dcsflow CLI print it as one line, exit status 1."""

    user_error = True


class InputError(AesError, ValueError):
    """Bad input: a key or block of the wrong length or not hex. The message names the expected size."""


class VectorFileError(AesError):
    """The NIST CAVP response files are missing (package not installed) or malformed (file, line)."""


class SimulationError(AesError):
    """The HDL simulator is missing, failed to compile the design, or produced unreadable output."""


class SimulatorMissing(SimulationError, ToolMissing):
    """A simulator (Icarus, Verilator) or Yosys is not installed, or its environment override names no
    executable: both a :class:`SimulationError` and a :class:`dcsflow.tools.ToolMissing`, with the
    locator's one-line message (tool, environment variable, Debian package)."""
