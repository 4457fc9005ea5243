"""Error classes of the AES-128 modes design package (CMAC, GCM); all are user errors: one line in
the CLI."""

from dcsflow.tools import ToolMissing


class AesModesError(Exception):
    """Base class; ``user_error = True`` makes the dcsflow CLI print it as one line, exit status 1."""

    user_error = True


class InputError(AesModesError, ValueError):
    """Bad input: a key or IV of the wrong length, a value that is not bytes. The message names the
    expected size and never contains the key's value."""


class AuthenticationError(AesModesError):
    """GCM decryption: the tag does not match (NIST SP 800-38D §7.2 step 8, FAIL); no plaintext is
    released."""


class VectorFileError(AesModesError):
    """A missing or malformed vector file; the message is one line ``file:line: reason``."""


class SimulationError(AesModesError):
    """The HDL simulator failed to compile or run the RTL, or produced unreadable output."""


class SimulatorMissing(SimulationError, ToolMissing):
    """Icarus Verilog (iverilog / vvp) is not installed, or its environment override names no
    executable: both a :class:`SimulationError` and a :class:`dcsflow.tools.ToolMissing`, with the
    locator's one-line message."""
