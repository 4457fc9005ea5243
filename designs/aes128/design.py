"""The AES-128 cores' :class:`~dcsflow.flow.design.Design` descriptions.

Registered in ``setup.py`` (entry-point group ``dcsflow.designs``), one line each. The key is the
parameter input (``(* PARAM *)`` in the RTL): ``aes128_pipe`` (10 unrolled rounds, one block per
clock) and ``aes128_iter`` (one round per clock). The iterative core's TLUT build takes the round
keys as a parameter-only cone (``KEY_TABLE=1``) that disappears into the PPC; its conventional
baseline steps one round-key register on the fly (``KEY_TABLE=0``): each build gets the key
schedule that suits it.
"""

from __future__ import annotations

from dcsflow.flow.design import Demo, Design, Handshake

from .check import aes_check
from .commands import sim_command
from .sim import rtl_files
from .vectors import kat_dir

#: the cores' handshake (a block: one s_valid/s_ready beat in, one m_valid/m_ready beat out), which a
#: cfglut5 build's loader holds while it shifts a new key in
HANDSHAKE = Handshake("s_valid", "s_ready", out_valid="m_valid", out_ready="m_ready")

AES128_PIPE = Design(
    name="aes128_pipe", top="aes128_pipe", sources=tuple(rtl_files()),
    check=aes_check, handshake=HANDSHAKE,
    # not in the default main job: its conventional build (Yosys/ABC on the 10 unrolled rounds with the
    # on-the-fly key schedule) alone takes ~10 min, the whole build ~19 min on 2 cores (README.md here)
    demo=Demo(order=40, vectors=lambda: kat_dir() / "ECBGFSbox128.rsp", default=False,
              note="~20 more minutes on 2 cores (mostly its conventional build)"),
    sims={"aes128_pipe": sim_command("aes128_pipe")},
    description="AES-128, 10 unrolled rounds; key as parameter")

AES128_ITER = Design(
    name="aes128_iter", top="aes128_iter", sources=tuple(rtl_files()),
    chparams={"KEY_TABLE": 1}, conventional_chparams={"KEY_TABLE": 0},
    check=aes_check, handshake=HANDSHAKE,
    # checked on one CAVP KAT file in the main job (the tests run all 284 vectors)
    demo=Demo(order=30, vectors=lambda: kat_dir() / "ECBKeySbox128.rsp"),
    sims={"aes128_iter": sim_command("aes128_iter"), "aes128_iter_onthefly": sim_command("aes128_iter_onthefly")},
    description="AES-128, one round per clock; key as parameter")
