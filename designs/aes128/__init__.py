"""AES-128 (FIPS-197): golden model, NIST CAVP known-answer vectors, RTL and simulation driver.

Golden model (:mod:`dcsflow.designs.aes128.model`): encrypt, decrypt (library ``cryptography``), and the
FIPS-197 pieces the RTL is built from (sbox_table, key_expansion, encrypt_rounds).
Vectors: :mod:`dcsflow.designs.aes128.vectors`; simulation: :mod:`dcsflow.designs.aes128.sim`;
RTL: ``designs/aes128/rtl/*.v`` (tops ``aes128_pipe``, ``aes128_iter``).
"""

from .errors import AesError, InputError, SimulationError, VectorFileError
from .model import (BLOCK_BYTES, KEY_BYTES, RCON, decrypt, encrypt, encrypt_rounds, gmul, key_expansion,
                    parse_hex, sbox_table, xtime)

__all__ = ["AesError", "InputError", "SimulationError", "VectorFileError", "BLOCK_BYTES", "KEY_BYTES",
           "RCON", "decrypt", "encrypt", "encrypt_rounds", "gmul", "key_expansion", "parse_hex",
           "sbox_table", "xtime"]
