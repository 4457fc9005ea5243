"""Error classes of the AES-128 modes design package (CMAC, GCM); all are user errors: one line in
the CLI."""


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
