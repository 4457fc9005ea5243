"""Error classes of the Keccak design package (all are user errors: one line in the CLI)."""

from dcsflow.tools import ToolMissing


class KeccakError(Exception):
    """Base class; ``user_error = True`` makes the dcsflow CLI print it as one line, exit status 1."""

    user_error = True


class InputError(KeccakError, ValueError):
    """Bad input: a key, nonce, tag or output length out of range, a value that is not bytes. The
    message names the expected size and never contains the key's value."""


class AuthenticationError(KeccakError):
    """Lake Keyak decryption: the tag does not match; no plaintext is released."""


class VectorFileError(KeccakError):
    """A missing or malformed vector file; the message gives the file name and line number."""


class SimulationError(KeccakError):
    """The HDL simulator failed to compile or run the Keccak RTL, timed out, or produced unreadable
    output (the message names the message record or the tool's output tail)."""


class SimulatorMissing(SimulationError, ToolMissing):
    """Icarus Verilog (iverilog / vvp) is not installed, or its environment override names no
    executable: both a :class:`SimulationError` and a :class:`dcsflow.tools.ToolMissing`, with the
    locator's one-line message."""
