"""The Keccak core's :class:`~dcsflow.flow.design.Design` description (``keccak``).

Registered in ``setup.py`` (entry-point group ``dcsflow.designs``). Top ``keccak_core``: SHA3-256,
SHAKE128, KMAC128 and Lake Keyak on one Keccak-p[1600] datapath, one round per clock (README.md
here). The parameter inputs are the key (KMAC128's and Lake Keyak's) and KMAC128's customization
string. The TLUT build sets ``KEY_STATE=1``: the core starts a KMAC128 message from the circuit
parameter ``key_state``, the state after the customization block and the key block, and a Lake Keyak
session from ``keyak_pack``, the key pack; the parameter transform computes both from the user's key
and customization string, so KMAC's two prefix permutations leave the core: its program
(:func:`~dcsflow.designs.keccak.transform.key_state_program`) is what every SCG runs — also the
firmware on the board —, :func:`key_state_transform` its golden model. The conventional build sets
``KEY_STATE=0``: it absorbs both KMAC blocks from the key and customization ports for every message
and forms the key pack from the key port, as a core without specialization does.
"""

from __future__ import annotations

import re

from dcsflow.flow.design import Demo, Design, NamedParam, NamedParamError, ParamTransform

from .check import keccak_check
from .commands import sim_command
from .errors import InputError
from .model import KEYAK_KEY_MAX, KEYAK_KEY_MIN, kmac128_key_state
from .sim import MAX_CUSTOM, MAX_KEY, keyak_pack, rtl_files
from .transform import USER_PARAMS, key_state_program



def key_state_transform(user: dict[str, int]) -> dict[str, int]:
    """User parameters (:data:`USER_PARAMS`) -> circuit parameters: the same four, ``key_state``
    (1600 bits, state byte i in bits [8i +: 8]) = the KMAC128 state after the customization block
    and the key block (:func:`~dcsflow.designs.keccak.model.kmac128_key_state`), and ``keyak_pack``
    (240 bits) = the Lake Keyak key pack of the key's first 28 bytes
    (:func:`~dcsflow.designs.keccak.sim.keyak_pack`; Lake Keyak takes keys of 16..28 bytes).

    Raises:
        InputError: a key longer than 32 bytes, a customization string longer than 157, bits set
            above the given length (one line; never the key's value).
    """
    klen, clen = user["key_len"], user["custom_len"]
    if not 0 <= klen <= MAX_KEY:
        raise InputError(f"key_len must be 0..{MAX_KEY} bytes, got {klen}")
    if not 0 <= clen <= MAX_CUSTOM:
        raise InputError(f"custom_len must be 0..{MAX_CUSTOM} bytes, got {clen}")
    if user["key"] >> (8 * klen):
        raise InputError(f"the key has bits set above its key_len of {klen} bytes")
    if user["custom"] >> (8 * clen):
        raise InputError(f"the customization string has bits set above its custom_len of {clen} bytes")
    key = user["key"].to_bytes(MAX_KEY, "little")[:klen]
    custom = user["custom"].to_bytes(MAX_CUSTOM + 1, "little")[:clen]
    state = kmac128_key_state(key, custom)
    return {"key": user["key"], "key_len": klen, "custom": user["custom"], "custom_len": clen,
            "key_state": int.from_bytes(state, "little"),
            "keyak_pack": int.from_bytes(keyak_pack(key), "little")}


_HEXBYTES = re.compile(r"^(?:[0-9A-Fa-f]{2})*$")


def kmac_values(text: str, ports) -> dict[str, int]:
    """Converter of the named value ``kmac`` (:class:`dcsflow.flow.design.NamedParam`):
    ``KEY`` or ``KEY,S`` (hex bytes in their natural order, as SP 800-185 writes them: key 0..32
    bytes, customization string 0..157 bytes) -> the six circuit parameters (:func:`key_state_transform`).
    The same key serves Lake Keyak (keys of 16..28 bytes).

    Raises:
        NamedParamError: not hex bytes, lengths out of range, a build without the core's parameters
            (one line; never the key's value).
    """
    if not {"key_state", "key", "custom"} <= set(ports):
        raise NamedParamError(f"--param kmac: the build has no KMAC128 parameters (key, custom, key_state); "
                              f"its parameters: {', '.join(ports)}")
    key_hex, _, custom_hex = text.strip().partition(",")
    key_hex, custom_hex = key_hex.strip().removeprefix("0x"), custom_hex.strip().removeprefix("0x")
    if not _HEXBYTES.match(key_hex) or not _HEXBYTES.match(custom_hex):
        raise NamedParamError(f"--param kmac: expected KEY or KEY,S as hex bytes (an even number of hex digits); "
                              f"got {len(text)} characters (not shown)")
    key, custom = bytes.fromhex(key_hex), bytes.fromhex(custom_hex)
    if len(key) > MAX_KEY or len(custom) > MAX_CUSTOM:
        raise NamedParamError(f"--param kmac: a key of 0..{MAX_KEY} bytes and a customization string of "
                              f"0..{MAX_CUSTOM} bytes; got {len(key)} and {len(custom)}")
    return key_state_transform({"key": int.from_bytes(key, "little"), "key_len": len(key),
                                "custom": int.from_bytes(custom, "little"), "custom_len": len(custom)})


def keyak_values(text: str, ports) -> dict[str, int]:
    """Converter of the named value ``keyak``: a Lake Keyak key as hex bytes (16..28 bytes, Keyak
    v1's key lengths; no customization string) -> the six circuit parameters.

    Raises:
        NamedParamError: not hex bytes, a key length outside 16..28, a build without the core's
            parameters (one line; never the key's value).
    """
    key_hex = text.strip().removeprefix("0x")
    if "," in key_hex or not _HEXBYTES.match(key_hex):
        raise NamedParamError(f"--param keyak: expected the key as hex bytes (an even number of hex digits); "
                              f"got {len(text)} characters (not shown)")
    n = len(key_hex) // 2
    if not KEYAK_KEY_MIN <= n <= KEYAK_KEY_MAX:
        raise NamedParamError(f"--param keyak: a Lake Keyak key of {KEYAK_KEY_MIN}..{KEYAK_KEY_MAX} bytes; got {n}")
    return kmac_values(key_hex, ports)


KMAC = NamedParam("kmac", ("key", "key_len", "custom", "custom_len", "key_state", "keyak_pack"), kmac_values,
                  "KMAC128 / Lake Keyak key[,KMAC customization string] as hex bytes: sets key, key_len, "
                  "custom, custom_len, key_state, keyak_pack")
KEYAK = NamedParam("keyak", KMAC.sets, keyak_values,
                   "Lake Keyak key as hex bytes (16..28 bytes): sets the same six parameters (no "
                   "customization string)")


KECCAK = Design(
    name="keccak", top="keccak_core", sources=tuple(rtl_files()),
    chparams={"KEY_STATE": 1}, conventional_chparams={"KEY_STATE": 0},
    transform=ParamTransform(USER_PARAMS, key_state_transform, program=key_state_program),
    check=keccak_check,
    demo=Demo(order=50, default=False, note="not in the default main job yet"),
    sims={"keccak": sim_command()},
    named_params=(KMAC, KEYAK),
    description="SHA3-256 / SHAKE128 / KMAC128 / Lake Keyak core, one round per clock; key as parameter")
