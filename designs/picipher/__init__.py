"""π16-Cipher v2 message processor: golden model, official-vector reader, RTL and simulation driver.

Public API (golden model, :mod:`dcsflow.designs.picipher.model`):
    star, pi, initialize, empty_ad_step, process_ad, cis_parameters, CisParameters,
    encrypt, decrypt, parse_hex; errors InputError, AuthenticationError (both ``user_error``).
Vectors: :mod:`dcsflow.designs.picipher.vectors`; simulation: :mod:`dcsflow.designs.picipher.sim`;
RTL: ``designs/picipher/rtl/*.v`` (top ``picipher_mp``).
"""

from .errors import (AuthenticationError, ChecksumError, InputError, PicipherError, SimulationError,
                     VectorFileError)
from .model import (KEY_BYTES, PMN_BYTES, RC, SMN_BYTES, TAG_BYTES, CisParameters, cis_parameters,
                    decrypt, empty_ad_step, encrypt, initial_state, initialize, inject_counter, mu,
                    nu, parse_hex, pi, process_ad, star, triplex)

__all__ = [
    "AuthenticationError", "ChecksumError", "InputError", "PicipherError", "SimulationError",
    "VectorFileError", "KEY_BYTES", "PMN_BYTES", "RC", "SMN_BYTES", "TAG_BYTES", "CisParameters",
    "cis_parameters", "decrypt", "empty_ad_step", "encrypt", "initial_state", "initialize",
    "inject_counter", "mu", "nu", "parse_hex", "pi", "process_ad", "star", "triplex",
]
