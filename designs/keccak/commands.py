"""The Keccak core's ``dcsflow sim keccak``: the RTL on the known-answer files of each mode.

Registered through the design's :class:`~dcsflow.flow.design.Design` description (``sims``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from dcsflow.flow.termout import table_console
from dcsflow.flow.clitypes import ASCII_INT

from . import hashvec
from . import vectors as keyak_vectors
from .check import KeyakCase, keyak_cases, kmac_cycles, per_record, read_vectors, request_of, session_cases
from .errors import InputError
from .model import kmac128_key_state
from .sim import keyak_pack, run_hash

#: ``--mode`` names: the hash modes and Lake Keyak
MODE_NAMES = (*hashvec.MODES, "lake-keyak")


def _keyak_sets() -> list[tuple[str, list]]:
    """The bundled Lake Keyak file: every session wrapped, every session unwrapped, and the
    tampered-tag and tampered-ciphertext cases of the check (flag must be set)."""
    sessions = keyak_vectors.load_lake_keyak().sessions
    name = keyak_vectors.LAKE_KEYAK_FILE.name
    return [(f"{name} (wrap)", session_cases(sessions)), (f"{name} (unwrap)", session_cases(sessions, True)),
            ("tampered records", keyak_cases()[2:])]


def _requests(vs: list) -> list:
    """Simulation requests with every parameter port driven (the RTL reads the ones its
    KEY_STATE selects)."""
    reqs = []
    for v in vs:
        if isinstance(v, KeyakCase):
            reqs += [dataclasses.replace(r, pack=keyak_pack(v.key)) for r, _ in v.pairs]
        else:
            reqs.append(request_of(v, kmac128_key_state(v.key, v.custom) if v.mode == "kmac128" else None))
    return reqs


def _sources(mode: str | None, vectors: str | None) -> list[tuple[str, list]]:
    """[(label, vectors)] to simulate: one file, or the default sets of ``mode`` (all modes: None)."""
    if vectors:
        vs = read_vectors(vectors)
        if mode is not None and any(v.mode != mode for v in vs):
            other = next(v for v in vs if v.mode != mode)
            raise InputError(f"{other.source}: a {other.mode} record, but --mode is {mode}")
        return [(Path(vectors).name, vs)]
    out = []
    for m in ([mode] if mode else list(MODE_NAMES)):
        if m == "lake-keyak":
            out += _keyak_sets()
        elif m == "kmac128":
            out.append(("KMAC128 (SP 800-185 samples)", hashvec.sp800_185_kmac128()))
            out.append(("KMAC128 (pycryptodome)", hashvec.kmac_vectors()))
        else:
            base = hashvec.cavp_dir()
            out += [(Path(f).name, hashvec.read_rsp(base / f)) for f in hashvec.CAVP_FILES[m]]
    return out


def run_sim(mode: str | None, vectors: str | None, key_state: int, stall_seed: int | None,
            out: Console, err: Console) -> bool:
    """Simulate the RTL (``KEY_STATE`` = ``key_state``) on the vectors, one table row per file.
    Returns True when every vector passed.

    Raises:
        VectorFileError: unreadable file, package missing. InputError: a record of another mode
            than ``mode``. SimulationError: Icarus failed.
    """
    variant = "KEY_STATE=1, the TLUT build's" if key_state else "KEY_STATE=0, the conventional build's"
    tab = Table(title=f"keccak_core RTL ({variant}) on known-answer files (icarus)", title_justify="left")
    for col in ("file", "mode", "records", "passed", "KMAC cycles (1 word)"):
        tab.add_column(col, justify="left" if col in ("file", "mode") else "right")
    passed = total = 0
    fails = []
    for label, vs in _sources(mode, vectors):
        reqs = _requests(vs)
        with err.status(f"simulating keccak_core on {label}: {len(reqs)} messages in one run"):
            res = run_hash(reqs, stall_seed=stall_seed, key_state=key_state)
        recs = per_record(vs, res)
        ok = sum(1 for _, o, _ in recs if o)
        passed += ok
        total += len(recs)
        fails += [(src, why) for src, o, why in recs if not o]
        one = [c for n, c in kmac_cycles(reqs, res) if n <= 8]
        tab.add_row(label, ", ".join(sorted({v.mode for v in vs})), str(len(recs)), f"{ok}/{len(recs)}",
                    str(min(one)) if one and stall_seed is None else "-")
    table_console(out.file).print(tab)
    for src, why in fails:
        out.print(f"FAIL {src}: {why}")
    out.print(f"passed {passed}/{total}")
    return total > 0 and passed == total


def sim_command() -> click.Command:
    """``dcsflow sim keccak``."""

    @click.command("keccak")
    @click.option("--mode", type=click.Choice(list(MODE_NAMES)), default=None,
                  help="Mode to simulate (default: all four; with --vectors: the file's).")
    @click.option("--vectors", type=click.Path(dir_okay=False), default=None,
                  help="One .rsp file (NIST CAVP SHA3-256 / SHAKE128, or KMAC128 records: Key, S, Msg, "
                       "Outputlen, Output) or one Lake Keyak file in LakeKeyak.txt's format.")
    @click.option("--conventional", is_flag=True,
                  help="Simulate KEY_STATE=0 (KMAC128 absorbs its key block, the key pack is formed from "
                       "the key port; the conventional build) instead of KEY_STATE=1 (the TLUT build's).")
    @click.option("--stall", "stall_seed", type=ASCII_INT, default=None, metavar="SEED",
                  help="Random gaps on s_valid and m_ready (seeded), to exercise the handshake.")
    def cmd(mode, vectors, conventional, stall_seed):
        """Simulate keccak_core's RTL with Icarus on the NIST CAVP SHA3-256 / SHAKE128 files,
        pycryptodome's KMAC128 answers and the Lake Keyak known-answer file (wrapped, unwrapped,
        tampered), or on one vector file; prints a table and 'passed N/M'; exit status 0 only if
        every vector passed."""
        if not run_sim(mode, vectors, 0 if conventional else 1, stall_seed, Console(), Console(stderr=True)):
            raise click.exceptions.Exit(1)

    return cmd
