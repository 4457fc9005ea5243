"""The π-Cipher message processor's :class:`~dcsflow.flow.design.Design` descriptions.

Registered in ``setup.py`` (entry-point group ``dcsflow.designs``), one line each:

- ``picipher``: top ``picipher_mp``, 96-bit key, ``BUFFER_KEY=1`` (the seed-style Key‖PMN register
  buffer, folded into the parameter by the front end); parameter input ``key_mn`` = Key‖PMN.
- ``picipher128``: the same with a 128-bit key.
- ``picipher_cis``: top ``picipher_cis_mp`` (no initialization path); its circuit parameter
  ``cis_param`` (CIS, counter and tag accumulator after initialization and the empty-AD step, 448
  bits) is derived from the user's ``key_mn`` by the parameter transform: its program
  (:func:`~dcsflow.designs.picipher.transform.cis_program`) in every SCG, :func:`cis_transform` its
  golden model.
- ``picipher32`` / ``picipher64``: top ``picipher_mp`` with ``W`` = 32 / 64 (π32/π64-Cipher), 128-bit
  key, 128-bit PMN, ``BUFFER_KEY=1``; parameter input ``key_mn`` = Key‖PMN (256 bits). Their
  ``dcsflow sim`` commands also run the 256-bit key RTL (``picipher32_256``, ``picipher64_256``).
- ``picipher32_cis`` / ``picipher64_cis``: top ``picipher_cis_mp`` with ``W`` = 32 / 64; ``cis_param``
  (24ω + 64 bits: 832 / 1600) derived from the user's ``key_mn`` (Key‖PMN, 256 bits, 128-bit key).
"""

from __future__ import annotations

from functools import partial

from dcsflow.flow.design import Demo, Design, Handshake, ParamTransform

from .board import BOARD_PORTS
from .check import pi16_check
from .commands import golden_model, rtl_sim, sim_command
from .model import cipher, cis_parameters
from .sim import rtl_files
from .transform import cis_program

#: the message processor's input handshake (a message: s_valid/s_ready beats up to s_last; it has
#: left at the done pulse), which a cfglut5 build's loader holds while it shifts a new key in
HANDSHAKE = Handshake("s_valid", "s_ready", last="s_last", done="done")


def cis_transform(user: dict[str, int]) -> dict[str, int]:
    """``key_mn`` (Key‖PMN, 128 bits, key byte 0 in the MSBs; 96-bit key) -> ``cis_param`` (448 bits).

    cis_param = CIS after initialization and the empty-AD step, the counter and the tag accumulator,
    computed by the golden model (:func:`~dcsflow.designs.picipher.model.cis_parameters`; layout in
    ``rtl_cis/picipher_cis_mp.v``).
    """
    raw = user["key_mn"].to_bytes(16, "big")
    return {"cis_param": cis_parameters(raw[:12], raw[12:]).as_int()}


def wide_cis_transform(user: dict[str, int], *, word_bits: int) -> dict[str, int]:
    """π32/π64: ``key_mn`` (Key‖PMN, 256 bits: 128-bit key, 128-bit PMN, key byte 0 in the MSBs) ->
    ``cis_param`` (24ω + 64 bits), by the golden model (:meth:`PiCipher.cis_parameters`)."""
    raw = user["key_mn"].to_bytes(32, "big")
    return {"cis_param": cipher(word_bits).cis_parameters(raw[:16], raw[16:]).as_int()}


def _wide(word_bits: int) -> tuple[Design, Design]:
    """The ``picipher<ω>`` and ``picipher<ω>_cis`` designs of π32 or π64 (module docstring)."""
    n = f"picipher{word_bits}"
    mp = Design(
        name=n, top="picipher_mp", sources=tuple(rtl_files()),
        chparams={"W": word_bits, "KEY_BITS": 128, "BUFFER_KEY": 1},
        check=partial(pi16_check, key_bits=128, cis=False, word_bits=word_bits),
        sims={n: sim_command(n, 128, False, word_bits), f"{n}_256": sim_command(f"{n}_256", 256, False, word_bits)},
        board_ports=BOARD_PORTS, handshake=HANDSHAKE,
        description=f"π{word_bits}-Cipher message processor, 128-bit key; key_mn")
    cis = Design(
        name=f"{n}_cis", top="picipher_cis_mp", sources=tuple(rtl_files(cis=True)),
        chparams={"W": word_bits},
        transform=ParamTransform({"key_mn": 256}, partial(wide_cis_transform, word_bits=word_bits),
                                 program=partial(cis_program, word_bits)),
        check=partial(pi16_check, key_bits=128, cis=True, word_bits=word_bits),
        board_ports=BOARD_PORTS, handshake=HANDSHAKE,
        sims={f"{n}_cis": sim_command(f"{n}_cis", 128, True, word_bits),
              f"{n}_256_cis": sim_command(f"{n}_256_cis", 256, True, word_bits)},
        description=f"π{word_bits}-Cipher, no init path; cis_param from key_mn")
    return mp, cis


PICIPHER = Design(
    name="picipher", top="picipher_mp", sources=tuple(rtl_files()),
    chparams={"KEY_BITS": 96, "BUFFER_KEY": 1},
    check=partial(pi16_check, key_bits=96, cis=False),
    demo=Demo(order=10, cycles=16, cycles_label="16 B", rtl_sim=rtl_sim, note="checked on the 25 official no-AD/no-SMN vectors"),
    board_ports=BOARD_PORTS, handshake=HANDSHAKE, commands=(golden_model,),
    sims={"picipher": sim_command("picipher", 96, False)},
    description="π16-Cipher message processor, 96-bit key; key_mn")

PICIPHER128 = Design(
    name="picipher128", top="picipher_mp", sources=tuple(rtl_files()),
    chparams={"KEY_BITS": 128, "BUFFER_KEY": 1},
    check=partial(pi16_check, key_bits=128, cis=False),
    board_ports=BOARD_PORTS, handshake=HANDSHAKE,
    sims={"picipher128": sim_command("picipher128", 128, False)},
    description="π16-Cipher message processor, 128-bit key; key_mn")

PICIPHER_CIS = Design(
    name="picipher_cis", top="picipher_cis_mp", sources=tuple(rtl_files(cis=True)),
    transform=ParamTransform({"key_mn": 128}, cis_transform, program=partial(cis_program, 16)),
    check=partial(pi16_check, key_bits=96, cis=True),
    demo=Demo(order=20, cycles=16, cycles_label="16 B", note="checked on the 25 official no-AD/no-SMN vectors"),
    board_ports=BOARD_PORTS, handshake=HANDSHAKE,
    sims={"picipher_cis": sim_command("picipher_cis", 96, True),
          "picipher128_cis": sim_command("picipher128_cis", 128, True)},
    description="π16-Cipher, no init path; cis_param from key_mn")

PICIPHER32, PICIPHER32_CIS = _wide(32)
PICIPHER64, PICIPHER64_CIS = _wide(64)
