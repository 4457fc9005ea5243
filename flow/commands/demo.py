"""``dcsflow demo``: the main job (for now): simulate the message processor on the official vectors."""

from __future__ import annotations

import click
from rich.console import Console

from designs.picipher.sim import SIMULATORS

from ._picipher import print_report, run_check


@click.command("demo")
@click.option("--simulator", type=click.Choice(SIMULATORS), default="icarus", show_default=True)
def COMMAND(simulator):
    """Simulate picipher_mp for both key sizes on the official π16-Cipher vectors (no AD, no SMN:
    25 per key size, each encrypted, decrypted and decrypted with a corrupted tag) and print the
    result table. Exit status 0 only if all passed."""
    out, err = Console(), Console(stderr=True)
    passed = total = 0
    for design in ("picipher", "picipher128"):
        rep, path = run_check(design, None, 0, simulator, None, err)
        print_report(out, f"{design} (picipher_mp) on {path.name}", rep)
        passed += rep.passed
        total += rep.total
    out.print(f"passed {passed}/{total}")
    if not (total and passed == total):
        raise click.exceptions.Exit(1)
