"""Error classes of the Keccak design package (all are user errors: one line in the CLI)."""


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
