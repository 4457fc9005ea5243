"""Error classes of the π16-Cipher design package (all are user errors: one line in the CLI)."""

from dcsflow.tools import ToolMissing


class PicipherError(Exception):
    """Base class; ``user_error = True`` makes the dcsflow CLI print it as one line, exit status 1."""

    user_error = True


class InputError(PicipherError, ValueError):
    """Bad input: wrong key/nonce/SMN size, non-hex text. The message names the expected size."""


class AuthenticationError(PicipherError):
    """Decryption: the tag does not match; no plaintext is released."""


class VectorFileError(PicipherError):
    """A malformed vector file; the message gives the file name and line number."""


class ChecksumError(PicipherError):
    """A vector file's SHA-256 differs from the one listed in SHA256SUMS (or it is not listed)."""


class SimulationError(PicipherError):
    """The HDL simulator is missing, failed to compile the design, or produced unreadable output."""


class SimulatorMissing(SimulationError, ToolMissing):
    """A simulator (Icarus, Verilator) or Yosys is not installed, or its environment override names no
    executable: both a :class:`SimulationError` and a :class:`dcsflow.tools.ToolMissing`, with the
    locator's one-line message (tool, environment variable, Debian package)."""
