"""The π-Cipher designs' commands: ``dcsflow sim picipher...`` (RTL on vectors, every word size),
``dcsflow picipher`` (the golden model, hex in, hex out) and the RTL simulation of
``dcsflow demo --rtl-sim``.

Registered through the designs' :class:`~dcsflow.flow.design.Design` descriptions (``sims``,
``commands``, ``demo``), not known to the flow by name.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from dcsflow.flow.termout import table_console
from dcsflow.flow.clitypes import ASCII_INT

from . import model, sim
from .vectors import official_file, read_vectors


def run_check(key_bits: int, cis: bool, vectors: Path | None, buffer_key: int, simulator: str,
              stall_seed: int | None, err: Console, name: str, word_bits: int = 16) -> tuple[sim.CheckReport, Path]:
    """Read the vector file (default: the official one of the word and key size, SHA-256 checked)
    and simulate its records without AD/SMN. Returns (report, vector file).

    Raises:
        VectorFileError, ChecksumError: unreadable file; InputError: records of another word or key
        size than the design's.
    """
    path = Path(vectors) if vectors else official_file(key_bits, word_bits)
    with err.status(f"reading {path.name}"):
        vs = read_vectors(path, check=True if vectors is None else None)
    cases, _ = sim.cases_from_vectors(vs)
    with err.status(f"simulating {name} ({simulator}): {3 * len(cases)} messages in one run"):
        rep = sim.check_vectors(vs, key_bits, buffer_key=buffer_key, cis=cis, stall_seed=stall_seed,
                                simulator=simulator, word_bits=word_bits)
    return rep, path


def print_report(out: Console, title: str, rep: sim.CheckReport) -> None:
    """Table per message length: cases, encrypt / decrypt passed, tampered tags rejected, cycles."""
    groups = defaultdict(list)
    for r in rep.rows:
        groups[r.msg_len].append(r)
    t = Table(title=title, title_justify="left")
    for col in ("msg bytes", "vectors", "encrypt ok", "decrypt ok", "bad tag rejected", "cycles"):
        t.add_column(col, justify="right")
    for ln in sorted(groups):
        rows = groups[ln]
        by = {k: [r for r in rows if r.direction == k] for k in ("enc", "dec", "dec-tampered")}
        cyc = sorted({r.cycles for r in by["enc"]})
        t.add_row(str(ln), str(len(by["enc"])),
                  *(f"{sum(r.passed for r in by[k])}/{len(by[k])}" for k in ("enc", "dec", "dec-tampered")),
                  "-".join(map(str, (cyc[0], cyc[-1]))) if len(cyc) > 1 else (str(cyc[0]) if cyc else ""))
    table_console(out.file).print(t)
    for r in rep.rows:
        if not r.passed:
            out.print(f"FAIL {r.name} ({r.msg_len} bytes, {r.direction}): {r.detail}")


def sim_command(name: str, key_bits: int, cis: bool, word_bits: int = 16) -> click.Command:
    """``dcsflow sim NAME``: the message processor's RTL (``picipher_mp``, or ``picipher_cis_mp`` with
    its parameter from the golden model; Verilog parameter ``W`` = ``word_bits``) on a vector file."""

    @click.command(name)
    @click.option("--vectors", type=click.Path(dir_okay=False), default=None,
                  help="Vector file in the official record format (default: the official file of the "
                       "design's word and key size, SHA-256 checked).")
    @click.option("--buffer-key", is_flag=True, help="Simulate with BUFFER_KEY=1 (Key||PMN register buffer).")
    @click.option("--simulator", type=click.Choice(sim.SIMULATORS), default="icarus", show_default=True,
                  help="RTL simulator: Icarus Verilog or Verilator.")
    @click.option("--stall", "stall_seed", type=ASCII_INT, default=None, metavar="SEED",
                  help="Random gaps on s_valid and m_ready (seeded), to exercise the handshake.")
    def cmd(vectors, buffer_key, simulator, stall_seed):
        out, err = Console(), Console(stderr=True)
        rep, path = run_check(key_bits, cis, vectors, int(buffer_key), simulator, stall_seed, err, name, word_bits)
        print_report(out, f"{name} on {path.name} ({simulator}{', BUFFER_KEY=1' if buffer_key else ''})", rep)
        out.print(f"skipped {rep.skipped} record(s) with AD or SMN")
        out.print(f"passed {rep.passed}/{rep.total}")
        if not rep.ok:
            raise click.exceptions.Exit(1)

    top = "picipher_cis_mp, parameter from the golden model" if cis else "picipher_mp"
    wtxt = "" if word_bits == 16 else f" W={word_bits} (π{word_bits}-Cipher),"
    cmd.help = (f"Simulate the RTL ({top},{wtxt} {key_bits}-bit key) on every record of a vector file without "
                "AD and SMN: each record encrypting, decrypting, and decrypting with a corrupted tag (which "
                "must be rejected); records with AD or SMN are skipped and counted. Prints a table and "
                "'passed N/M'; exit status 0 only if every case ran and passed.")
    return cmd


def rtl_sim(simulator: str = "icarus") -> bool:
    """``dcsflow demo --rtl-sim``: the RTL of both key sizes on the official vectors; True when all pass."""
    out, err = Console(), Console(stderr=True)
    passed = total = 0
    for name, bits in (("picipher", 96), ("picipher128", 128)):
        rep, path = run_check(bits, False, None, 0, simulator, None, err, name)
        print_report(out, f"{name} (picipher_mp RTL) on {path.name}", rep)
        passed += rep.passed
        total += rep.total
    out.print(f"RTL simulation: passed {passed}/{total}")
    return bool(total) and passed == total


# ------------------------------------------------------------------------------ golden model CLI
def _key_pmn(c: model.PiCipher, key, pmn):
    return (model.parse_hex(key, f"{c.name} key", c.key_bytes),
            model.parse_hex(pmn, f"{c.name} PMN (nonce)", c.pmn_bytes))


_WORD = click.option("--word", "word", type=click.Choice(["16", "32", "64"]), default="16", show_default=True,
                     help="Word size ω: π16-, π32- or π64-Cipher.")


@click.group("picipher")
def golden_model():
    """π-Cipher v2 golden model (π16: 96/128-bit keys; π32, π64: 128/256-bit keys, --word):
    encrypt, decrypt, parameter values.

    All values are hex strings: π16 KEY 24 or 32 hex digits, PMN 8, SMN 32; π32/π64 KEY 32 or 64,
    PMN 32, SMN 64 (π32) or 128 (π64).
    """


@golden_model.command("encrypt")
@click.option("--key", required=True, help="Key in hex: π16 12 or 16 bytes, π32/π64 16 or 32 bytes.")
@click.option("--pmn", required=True, help="Public message number (NPUB) in hex: π16 4 bytes, π32/π64 16.")
@click.option("--msg", default="", help="Plaintext in hex (default: empty).")
@click.option("--ad", default="", help="Associated data in hex (default: empty).")
@click.option("--smn", default=None, help="Secret message number (NSEC) in hex, one block: 16/32/64 bytes.")
@_WORD
def encrypt_cmd(key, pmn, msg, ad, smn, word):
    """Print CIPHER = [C0] || C || tag in hex (the official vector field)."""
    c = model.cipher(int(word))
    k, p = _key_pmn(c, key, pmn)
    s = model.parse_hex(smn, f"{c.name} SMN", c.smn_bytes) if smn is not None else None
    click.echo(c.encrypt(k, p, model.parse_hex(msg, "message"), model.parse_hex(ad, "AD"), s).hex().upper())


@golden_model.command("decrypt")
@click.option("--key", required=True, help="Key in hex: π16 12 or 16 bytes, π32/π64 16 or 32 bytes.")
@click.option("--pmn", required=True, help="Public message number (NPUB) in hex: π16 4 bytes, π32/π64 16.")
@click.option("--cipher", required=True, help="CIPHER = [C0] || C || tag in hex.")
@click.option("--ad", default="", help="Associated data in hex (default: empty).")
@click.option("--with-smn", is_flag=True, help="CIPHER starts with the encrypted SMN (C0).")
@_WORD
def decrypt_cmd(key, pmn, cipher, ad, with_smn, word):
    """Print the plaintext in hex (and the SMN first, with --with-smn); a wrong tag is an error and
    prints nothing else."""
    c = model.cipher(int(word))
    k, p = _key_pmn(c, key, pmn)
    r = c.decrypt(k, p, model.parse_hex(cipher, "ciphertext"), model.parse_hex(ad, "AD"), with_smn)
    if with_smn:
        click.echo(f"SMN {r[0].hex().upper()}")
        r = r[1]
    click.echo(r.hex().upper())


@golden_model.command("params")
@click.option("--key", required=True, help="Key in hex: π16 12 or 16 bytes, π32/π64 16 or 32 bytes.")
@click.option("--pmn", required=True, help="Public message number (NPUB) in hex: π16 4 bytes, π32/π64 16.")
@_WORD
def params_cmd(key, pmn, word):
    """Print the parameter values of both tops for Key || PMN: key_mn of picipher_mp and cis_param
    of picipher_cis_mp (CIS, counter and tag after init + empty-AD step; 448 bits for π16, 24ω+64
    in general)."""
    c = model.cipher(int(word))
    k, p = _key_pmn(c, key, pmn)
    cp = c.cis_parameters(k, p)
    digits = c.word_bits // 4
    click.echo(f"key_mn    {len(k + p) * 8}'h{(k + p).hex().upper()}")
    click.echo(f"cis_param {cp.bits}'h{cp.as_int():0{cp.bits // 4}X}")
    click.echo(f"  CIS W0..W15 {' '.join(f'{w:0{digits}X}' for w in cp.cis)}")
    click.echo(f"  ctr         {cp.ctr:016X}")
    click.echo(f"  T[0..7]     {' '.join(f'{w:0{digits}X}' for w in cp.tag)}")
