"""Error classes of the AES-128 design package (all are user errors: one line in the CLI)."""


class AesError(Exception):
    """Base class; ``user_error = True`` makes the dcsflow CLI print it as one line, exit status 1."""

    user_error = True


class InputError(AesError, ValueError):
    """Bad input: a key or block of the wrong length or not hex. The message names the expected size."""


class VectorFileError(AesError):
    """The NIST CAVP response files are missing (package not installed) or malformed (file, line)."""


class SimulationError(AesError):
    """The HDL simulator is missing, failed to compile the design, or produced unreadable output."""
