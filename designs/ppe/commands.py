"""The PPE's command ``dcsflow ppe``: assemble a program, run it on the ISS.

Registered through the ``ppe`` :class:`~dcsflow.flow.design.Design` (``commands``). Every input
error is one line (``file:line: reason``; the flow's CLI prints user errors without a traceback).
"""

from __future__ import annotations

from pathlib import Path

import click

from . import isa, iss
from .asm import AsmError, assemble_file, read_object, write_object


class PpeInputError(ValueError):
    """Bad command-line input (a word that is not hex); one line."""

    user_error = True


def _load(path: str, depth: int):
    """An assembly source, or a ``ppe-object`` file (first line ``# ppe-object``)."""
    p = Path(path)
    try:
        with p.open("rb") as f:
            head = f.read(12)
    except OSError as e:
        raise AsmError(f"{path}: {e.strerror or 'cannot read'}") from None
    return read_object(p) if head.startswith(b"# ppe-object") else assemble_file(p, imem_depth=depth)


@click.group("ppe")
def ppe_command():
    """The ARX programmable processing element: assembler and instruction-set simulator."""


@ppe_command.command("asm")
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("-o", "--out", type=click.Path(dir_okay=False), help="Object file (ppe-object 1) to write.")
@click.option("--imem-depth", type=click.IntRange(1, isa.MAX_IMEM), default=isa.DEFAULT_IMEM, show_default=True,
              help="Instruction-memory size in words; a longer program is an error.")
def asm_cmd(source, out, imem_depth):
    """Assemble SOURCE; print its size, and write the object file with -o."""
    prog = assemble_file(source, imem_depth=imem_depth)
    ncoef = sum(1 for v in prog.coef if v)
    click.echo(f"{source}: {len(prog.words)} instruction words (of {imem_depth}), {ncoef} coefficient words")
    if out:
        write_object(prog, out)


@ppe_command.command("run")
@click.argument("program", type=click.Path(dir_okay=False))
@click.option("--in", "inputs", default="", help="Input words in hex, separated by spaces or commas.")
@click.option("--max-cycles", type=click.IntRange(1), default=1_000_000, show_default=True)
@click.option("--imem-depth", type=click.IntRange(1, isa.MAX_IMEM), default=isa.DEFAULT_IMEM, show_default=True)
def run_cmd(program, inputs, max_cycles, imem_depth):
    """Run PROGRAM (assembly source or object file) on the ISS from address 0; print the output
    words (hex) and the cycle count."""
    prog = _load(program, imem_depth)
    words = []
    for tok in inputs.replace(",", " ").split():
        try:
            v = int(tok, 16)
        except ValueError:
            raise PpeInputError(f"--in: '{tok}' is not a hex word") from None
        if not 0 <= v <= isa.WORD_MASK:
            raise PpeInputError(f"--in: '{tok}' does not fit 64 bits")
        words.append(v)
    r = iss.Machine(prog.words, prog.coef, max(imem_depth, prog.imem_depth)).run(words, 0, max_cycles)
    for w in r.outputs:
        click.echo(f"{w:016x}")
    click.echo(f"cycles {r.cycles} {'halted' if r.halted else 'stopped at --max-cycles'}, "
               f"{r.inputs_used} of {len(words)} input words used", err=True)
