"""The AES-128 modes core's ``dcsflow sim aes_modes``: the RTL on the NIST CMAC and GCM known answers.

Registered through the design's :class:`~dcsflow.flow.design.Design` description (``sims``).
"""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from dcsflow.flow.termout import table_console
from dcsflow.flow.clitypes import ASCII_INT

from . import sim
from . import vectors as V
from .check import read_vectors
from .sim import MODE_CMAC, MODE_NAMES

#: what ``--mode`` selects from the default files
_FILES = {"cmac": (V.load_cmac,), "gcm-encrypt": (V.load_gcm_encrypt,), "gcm-decrypt": (V.load_gcm_decrypt,)}


def default_sets(mode: str) -> list[tuple[str, list]]:
    """[(file name, kept records)] of the default known answers for ``mode`` (``all`` or a
    :data:`~dcsflow.designs.aes_modes.sim.MODE_NAMES` key); GCM encryption adds every record's
    ciphertext with a tampered tag (as decryptions the core must refuse).

    Raises:
        VectorFileError: cryptography_vectors missing, a file unreadable.
    """
    out = []
    for name, loaders in _FILES.items():
        if mode not in ("all", name):
            continue
        for load in loaders:
            vs = load()
            out.append((vs.name, vs.records))
            if name == "gcm-encrypt":
                out.append((vs.name + " (tampered tags)", [sim.tampered(v) for v in vs.records]))
    return out


def run_sim(mode: str, vectors: str | None, conventional: bool, stall_seed: int | None,
            out: Console, err: Console) -> bool:
    """Simulate the RTL (``KEY_TABLE=1``, or 0 with ``conventional``) on the default known answers
    for ``mode`` or on one file, one table row per file. Returns True when every record passed.

    Raises:
        VectorFileError: unreadable file, cryptography_vectors missing. CheckError: a file without
            records the core takes. SimulationError: Icarus failed.
    """
    sets = [(vectors, read_vectors(vectors))] if vectors else default_sets(mode)
    kt = 0 if conventional else 1
    tab = Table(title=f"aes_modes RTL (KEY_TABLE={kt}) on the NIST CMAC / GCM known answers (icarus)",
                title_justify="left")
    for col in ("file", "records", "keys", "passed", "cycles per 16-byte block"):
        tab.add_column(col, justify="right" if col != "file" else "left")
    passed = total = 0
    fails = []
    for name, vs in sets:
        with err.status(f"simulating aes_modes on {name}: {len(vs)} records in one run"):
            rep = sim.check_rtl(vs, key_table=kt, stall_seed=stall_seed)
        passed += rep.passed
        total += rep.total
        fails += rep.failures
        tab.add_row(str(name), str(rep.total), str(len(sim.group_vectors(vs))), f"{rep.passed}/{rep.total}",
                    _per_block(rep.latencies) if stall_seed is None else "-")
    table_console(out.file).print(tab)
    for src, why in fails:
        out.print(f"FAIL {src}: {why}")
    out.print(f"passed {passed}/{total}")
    return total > 0 and passed == total


def _per_block(latencies) -> str:
    """Cycles each further 16-byte block adds: the latency's slope between the records with the
    fewest and the most blocks among those of one mode and one additional-data length (CMAC's
    empty message is one block); "-" when no two records differ in blocks."""
    by: dict[tuple, dict[int, int]] = {}
    for _, mode, n, n_aad, cyc in latencies:
        blocks = max(1, -(-n // 16)) if mode == MODE_CMAC else -(-n // 16)
        if cyc >= 0:
            by.setdefault((mode, n_aad), {}).setdefault(blocks, cyc)
    for key in sorted(by, key=lambda k: -len(by[k])):
        pts = sorted(by[key].items())
        if len(pts) >= 2:
            (b0, c0), (b1, c1) = pts[0], pts[-1]
            return f"{(c1 - c0) / (b1 - b0):g}"
    return "-"


def sim_command() -> click.Command:
    """``dcsflow sim aes_modes``."""

    @click.command("aes_modes")
    @click.option("--mode", type=click.Choice(["all", *MODE_NAMES]), default="all", show_default=True,
                  help="Which default known answers: CMAC (SP 800-38B examples), GCM encryption or decryption "
                       "(CAVS 14.0, 96-bit IV, 128-bit tag; encryption adds each record with a tampered tag).")
    @click.option("--vectors", type=click.Path(dir_okay=False), default=None,
                  help="One file instead: CMAC (nist-800-38b-aes128.txt or CMACGenAES128.rsp format) or a CAVS "
                       "GCM .rsp file (encryption or decryption).")
    @click.option("--conventional", is_flag=True, help="Simulate the conventional build's RTL (KEY_TABLE=0).")
    @click.option("--stall", "stall_seed", type=ASCII_INT, default=None, metavar="SEED",
                  help="Random gaps on s_valid and m_ready (seeded), to exercise the handshake.")
    def cmd(mode, vectors, conventional, stall_seed):
        """Simulate the RTL on the NIST CMAC and GCM known answers with Icarus; prints a table and
        'passed N/M'; exit status 0 only if every record passed."""
        if not run_sim(mode, vectors, conventional, stall_seed, Console(), Console(stderr=True)):
            raise click.exceptions.Exit(1)

    return cmd
