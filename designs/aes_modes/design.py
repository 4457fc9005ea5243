"""The AES-128 modes core's :class:`~dcsflow.flow.design.Design` description (``aes_modes``).

Registered in ``setup.py`` (entry-point group ``dcsflow.designs``). Top ``aes_modes``: AES-128-CMAC
and AES-128-GCM on the iterative AES-128 core (README.md here). The user gives the key
(``--param key=HEX``); the parameter transform adds the hash subkey H = E_K(0^128) as the circuit
parameter ``hkey``: its program (:func:`~dcsflow.designs.aes_modes.transform.hash_key_program`, bitsliced AES)
is what every SCG runs — also the firmware on the board —, :func:`hash_key_transform` its golden
model. The TLUT build sets ``KEY_TABLE=1``: the round keys and the CMAC subkeys K1, K2 (from H) are
a parameter-only cone (they leave the circuit for the PPC) and GHASH's multiplier by H maps onto
TLUTs. The conventional build sets ``KEY_TABLE=0``: it encrypts 0^128 after reset to get H into a
register, forms K1/K2 from it, has the generic GF(2^128) multiplier and steps the round keys on the
fly.
"""

from __future__ import annotations

from dcsflow.flow.design import Design, ParamTransform

from .check import aes_modes_check
from .commands import sim_command
from .errors import InputError
from .model import gcm_hash_key
from .sim import rtl_files
from .transform import hash_key_program

#: the user parameter (``--param key=HEX``): the AES key, byte 0 in the MSBs
USER_PARAMS = {"key": 128}


def hash_key_transform(user: dict[str, int]) -> dict[str, int]:
    """User parameters (:data:`USER_PARAMS`) -> circuit parameters: ``key`` and ``hkey`` = the GCM
    hash subkey H = E_K(0^128) (NIST SP 800-38D §6.4; also CMAC's L, SP 800-38B §6.1) as a
    128-bit integer, byte 0 in the MSBs (:func:`~dcsflow.designs.aes_modes.model.gcm_hash_key`).

    Raises:
        InputError: a key outside 0 .. 2^128 - 1 (one line; never the key's value).
    """
    key = user["key"]
    if not 0 <= key < 1 << 128:
        raise InputError("the key must be 128 bits (0 .. 2^128 - 1)")
    return {"key": key, "hkey": int.from_bytes(gcm_hash_key(key.to_bytes(16, "big")), "big")}


AES_MODES = Design(
    name="aes_modes", top="aes_modes", sources=tuple(rtl_files()),
    chparams={"KEY_TABLE": 1}, conventional_chparams={"KEY_TABLE": 0},
    transform=ParamTransform(USER_PARAMS, hash_key_transform, program=hash_key_program),
    check=aes_modes_check,
    sims={"aes_modes": sim_command()},
    description="AES-128-CMAC / AES-128-GCM on the iterative AES-128 core; key as parameter")
