"""π-Cipher v2 message processor: golden model (π16, π32, π64), official-vector reader, RTL and
simulation driver.

Public API (golden model, :mod:`dcsflow.designs.picipher.model`):
    π16 functions star, pi, initialize, empty_ad_step, process_ad, cis_parameters, CisParameters,
    encrypt, decrypt, parse_hex; every word size: :class:`PiCipher` (``cipher(32)``, ``PI64`` ...)
    with the same methods; errors InputError, AuthenticationError (both ``user_error``).
Vectors: :mod:`dcsflow.designs.picipher.vectors`; simulation: :mod:`dcsflow.designs.picipher.sim`;
RTL: ``designs/picipher/rtl/*.v`` (top ``picipher_mp``).
"""

from .errors import (AuthenticationError, ChecksumError, InputError, PicipherError, SimulationError,
                     VectorFileError)
from .model import (KEY_BYTES, PI16, PI32, PI64, PMN_BYTES, RC, SMN_BYTES, TAG_BYTES, WORD_BITS,
                    CisParameters, PiCipher, cipher, cis_parameters, decrypt, empty_ad_step, encrypt,
                    initial_state, initialize, inject_counter, mu, nu, parse_hex, pi, process_ad, star,
                    triplex)

__all__ = [
    "AuthenticationError", "ChecksumError", "InputError", "PicipherError", "SimulationError",
    "VectorFileError", "KEY_BYTES", "PI16", "PI32", "PI64", "PMN_BYTES", "RC", "SMN_BYTES", "TAG_BYTES",
    "WORD_BITS", "CisParameters", "PiCipher", "cipher", "cis_parameters", "decrypt", "empty_ad_step",
    "encrypt", "initial_state", "initialize", "inject_counter", "mu", "nu", "parse_hex", "pi",
    "process_ad", "star", "triplex",
]
