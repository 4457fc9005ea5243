"""``dcsflow picipher``: the π16-Cipher v2 golden model on the command line (hex in, hex out)."""

from __future__ import annotations

import click

from dcsflow.designs.picipher import model


def _key_pmn(key, pmn):
    return model.parse_hex(key, "key", model.KEY_BYTES), model.parse_hex(pmn, "PMN (nonce)", model.PMN_BYTES)


@click.group("picipher")
def COMMAND():
    """π16-Cipher v2 golden model (96/128-bit keys): encrypt, decrypt, parameter values.

    All values are hex strings (KEY 24 or 32 hex digits, PMN 8, SMN 32).
    """


@COMMAND.command("encrypt")
@click.option("--key", required=True, help="Key, 12 or 16 bytes in hex.")
@click.option("--pmn", required=True, help="Public message number (NPUB), 4 bytes in hex.")
@click.option("--msg", default="", help="Plaintext in hex (default: empty).")
@click.option("--ad", default="", help="Associated data in hex (default: empty).")
@click.option("--smn", default=None, help="Secret message number (NSEC), 16 bytes in hex.")
def encrypt_cmd(key, pmn, msg, ad, smn):
    """Print CIPHER = [C0] || C || tag in hex (the official vector field)."""
    k, p = _key_pmn(key, pmn)
    s = model.parse_hex(smn, "SMN", model.SMN_BYTES) if smn is not None else None
    click.echo(model.encrypt(k, p, model.parse_hex(msg, "message"), model.parse_hex(ad, "AD"), s).hex().upper())


@COMMAND.command("decrypt")
@click.option("--key", required=True, help="Key, 12 or 16 bytes in hex.")
@click.option("--pmn", required=True, help="Public message number (NPUB), 4 bytes in hex.")
@click.option("--cipher", required=True, help="CIPHER = [C0] || C || tag in hex.")
@click.option("--ad", default="", help="Associated data in hex (default: empty).")
@click.option("--with-smn", is_flag=True, help="CIPHER starts with the encrypted SMN (C0).")
def decrypt_cmd(key, pmn, cipher, ad, with_smn):
    """Print the plaintext in hex (and the SMN first, with --with-smn); a wrong tag is an error and
    prints nothing else."""
    k, p = _key_pmn(key, pmn)
    r = model.decrypt(k, p, model.parse_hex(cipher, "ciphertext"), model.parse_hex(ad, "AD"), with_smn)
    if with_smn:
        click.echo(f"SMN {r[0].hex().upper()}")
        r = r[1]
    click.echo(r.hex().upper())


@COMMAND.command("params")
@click.option("--key", required=True, help="Key, 12 or 16 bytes in hex.")
@click.option("--pmn", required=True, help="Public message number (NPUB), 4 bytes in hex.")
def params_cmd(key, pmn):
    """Print the parameter values of both tops for Key || PMN: key_mn of picipher_mp and the 448-bit
    cis_param of picipher_cis_mp (CIS, counter and tag after init + empty-AD step)."""
    k, p = _key_pmn(key, pmn)
    cp = model.cis_parameters(k, p)
    click.echo(f"key_mn    {len(k) * 8 + 32}'h{(k + p).hex().upper()}")
    click.echo(f"cis_param 448'h{cp.as_int():0112X}")
    click.echo(f"  CIS W0..W15 {' '.join(f'{w:04X}' for w in cp.cis)}")
    click.echo(f"  ctr         {cp.ctr:016X}")
    click.echo(f"  T[0..7]     {' '.join(f'{w:04X}' for w in cp.tag)}")
