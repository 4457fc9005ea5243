"""The PPE's command ``dcsflow ppe``: assemble a program, run it on the ISS.

Registered through the ``ppe`` :class:`~dcsflow.flow.design.Design` (``commands``). Every input
error is one line (``file:line: reason``; the flow's CLI prints user errors without a traceback).
A program is a parameter value, secret like a key: an assembler message shows no piece of its text
(:attr:`.asm.AsmError.redacted`) unless ``--show-text`` asks for it.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import click
from dcsflow.flow.clitypes import ASCII_INT, int_range

from . import isa, iss
from .asm import AsmError, assemble_file, load, write_object


class PpeInputError(ValueError):
    """Bad command-line input (a word that is not hex); one line."""

    user_error = True


@contextlib.contextmanager
def _program_text_hidden(show_text: bool):
    """Assembler errors inside with every piece of the program's text replaced by ``…`` (file, line
    and reason stay), unless ``show_text``."""
    try:
        yield
    except AsmError as e:
        if show_text:
            raise
        raise AsmError(e.redacted) from None


_SHOW_TEXT = click.option("--show-text", is_flag=True,
                          help="Quote the program's text (operands, names, values) in assembler errors; "
                               "without it they give file, line and reason only (a program may be secret).")


def _load(path: str, depth: int):
    """An assembly source, or a ``ppe-object`` file (first line ``# ppe-object``); read once, only
    if it is a regular file (:func:`.asm.load`)."""
    return load(path, imem_depth=depth)


@click.group("ppe")
def ppe_command():
    """The ARX programmable processing element: assembler and instruction-set simulator."""


@ppe_command.command("asm")
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("-o", "--out", type=click.Path(dir_okay=False), help="Object file (ppe-object 1) to write.")
@click.option("--imem-depth", type=int_range(1, isa.MAX_IMEM), default=isa.DEFAULT_IMEM, show_default=True,
              help="Instruction-memory size in words; a longer program is an error.")
@_SHOW_TEXT
def asm_cmd(source, out, imem_depth, show_text):
    """Assemble SOURCE; print its size, and write the object file with -o."""
    with _program_text_hidden(show_text):
        prog = assemble_file(source, imem_depth=imem_depth)
    ncoef = sum(1 for v in prog.coef if v)
    click.echo(f"{source}: {len(prog.words)} instruction words (of {imem_depth}), {ncoef} coefficient words")
    if out:
        write_object(prog, out)


@ppe_command.command("run")
@click.argument("program", type=click.Path(dir_okay=False))
@click.option("--in", "inputs", default="", help="Input words in hex, separated by spaces or commas.")
@click.option("--max-cycles", type=int_range(1), default=1_000_000, show_default=True,
              help="Stop after this many cycles if the program has not reached a halt.")
@click.option("--imem-depth", type=int_range(1, isa.MAX_IMEM), default=isa.DEFAULT_IMEM, show_default=True,
              help="Instruction-memory size in words of the machine the program runs on.")
@_SHOW_TEXT
def run_cmd(program, inputs, max_cycles, imem_depth, show_text):
    """Run PROGRAM (assembly source or object file) on the ISS from address 0; print the output
    words (hex) and the cycle count."""
    with _program_text_hidden(show_text):
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


# ------------------------------------------------------------------------------ dcsflow sim ppe
#: programs ``dcsflow sim ppe`` knows: name -> what it is checked against
SIM_PROGRAMS = {"pi16": "π16", "pi32": "π32", "pi64": "π64", "bmw512": "BMW-512"}


def _sim_pi(bits: int, src: Path, calls: int, seed: int, stall: int, out) -> tuple[int, int]:
    """π``bits`` program on the RTL: ``calls`` π calls back to back (64/bits random states each, in
    the lanes) against PiCipher's π; RTL cycles against the ISS. Returns (passed, total)."""
    import random

    from rich.table import Table

    from dcsflow.designs.picipher import model
    from dcsflow.flow.termout import table_console

    from . import sim
    prog = assemble_file(src)
    pi = model.cipher(bits).pi
    n, mask = 64 // bits, (1 << bits) - 1
    rng = random.Random(seed)
    states = [[[rng.getrandbits(bits) for _ in range(16)] for _ in range(n)] for _ in range(calls)]
    inputs = [sum(st[k][i] << (bits * k) for k in range(n)) for st in states for i in range(16)]
    m = iss.Machine(prog.words, prog.coef)
    iss_cycles = [m.run(inputs[16 * c:16 * c + 16], 0).cycles for c in range(calls)]
    r = sim.simulate(prog.words, prog.coef, inputs, starts=[0] * calls, seed=stall)
    t = Table(title=f"pi{bits} ({src.name}) on the ppe RTL (Icarus) against PiCipher π{bits}", title_justify="left")
    for col in ("call", "states", "RTL cycles", "ISS cycles", "result"):
        t.add_column(col, justify="right")
    passed = 0
    for c in range(calls):
        words = r.outputs[16 * c:16 * c + 16]
        ok = len(words) == 16 and c < len(r.halted) and r.halted[c] and all(
            tuple((w >> (bits * k)) & mask for w in words) == pi(tuple(states[c][k])) for k in range(n))
        cyc = r.cycles[c] if c < len(r.cycles) else None
        # with --stall the RTL waits for the handshakes; the ISS's count is the stall-free one
        cyc_ok = cyc is not None and (cyc == iss_cycles[c] if not stall else cyc >= iss_cycles[c])
        ok = ok and cyc_ok
        passed += ok
        t.add_row(str(c), str(n), str(cyc), str(iss_cycles[c]), "pass" if ok else "FAIL")
    table_console(out.file).print(t)
    return passed, calls


def _sim_bmw(src: Path, vectors: str | None, limit: int | None, stall: int, out) -> tuple[int, int]:
    """``bmw512`` on the RTL on the KAT records (all, or the first ``limit``): digests against the
    file, and against bmw512.py, cycles per run against the ISS. Returns (passed, total)."""
    from collections import defaultdict

    from rich.table import Table

    from dcsflow.flow.termout import table_console

    from . import bmw512, bmw512_kat, bmw512_prog
    try:
        recs = bmw512_kat.load_kat(vectors)
    except OSError as e:
        raise PpeInputError(f"--vectors: {e.strerror or e}: {e.filename or vectors}") from None
    except (UnicodeDecodeError, bmw512_kat.KatFormatError, bmw512_kat.ChecksumError) as e:
        raise PpeInputError(f"--vectors: {e}") from None
    if limit is not None:
        recs = recs[:limit]
    prog = bmw512_prog.load(src)
    try:
        bmw512_prog.entries(prog)
    except ValueError as e:
        raise PpeInputError(f"{src}: {e}") from None
    m = iss.Machine(prog.words, prog.coef, bmw512_prog.IMEM_DEPTH)
    iss_runs = []
    for rec in recs:
        try:
            iss_runs.append(bmw512_prog.hash_iss(rec.msg, prog, m))
        except (iss.IssError, RuntimeError):
            iss_runs.append(None)
    try:
        rtl = bmw512_prog.hash_rtl([rec.msg for rec in recs], prog, seed=stall)
    except RuntimeError as e:          # runs that did not halt, a wrong number of output words
        out.print(f"FAIL {src.name} on the RTL: {e}", markup=False, highlight=False)
        return 0, len(recs)
    groups = defaultdict(lambda: [0, 0, set(), set()])      # blocks -> records, passed, block cycles, final cycles
    fails = []
    for rec, a, b in zip(recs, iss_runs, rtl):
        blocks = len(b.cycles) - 2
        cyc_ok = a is not None and (b.cycles == a.cycles if not stall else
                                    all(x >= y for x, y in zip(b.cycles, a.cycles)))
        ok = b.digest == rec.md == bmw512.bmw512(rec.msg) and cyc_ok
        g = groups[blocks]
        g[0] += 1
        g[1] += ok
        g[2].update(b.cycles[1:-1])
        g[3].add(b.cycles[-1])
        if not ok:
            fails.append(f"FAIL Len = {rec.bits} (line {rec.line}): RTL digest "
                         f"{'matches' if b.digest == rec.md else 'differs from'} the KAT, "
                         f"RTL cycles {b.cycles}, ISS cycles {a.cycles if a else 'error'}")
    name = Path(vectors).name if vectors else bmw512_kat.KAT_FILE
    t = Table(title=f"bmw512 ({src.name}) on the ppe RTL (Icarus) against {name}", title_justify="left")
    for col in ("blocks", "records", "passed", "cycles per block", "final cycles"):
        t.add_column(col, justify="right")
    rng = lambda s: "-".join(map(str, (min(s), max(s)))) if len(s) > 1 else str(next(iter(s), ""))  # noqa: E731
    for k in sorted(groups):
        g = groups[k]
        t.add_row(str(k), str(g[0]), str(g[1]), rng(g[2]), rng(g[3]))
    table_console(out.file).print(t)
    for f in fails:
        out.print(f, markup=False, highlight=False)
    return sum(g[1] for g in groups.values()), len(recs)


@click.command("ppe")
@click.option("--program", "program", required=True, metavar="NAME",
              help=f"Program to check: {', '.join(SIM_PROGRAMS)}.")
@click.option("--source", type=click.Path(dir_okay=False), default=None,
              help="Assembly source to use instead of programs/NAME.s (checked as NAME).")
@click.option("--vectors", type=click.Path(dir_okay=False), default=None,
              help="bmw512 only: KAT file (default: the packaged ShortMsgKAT_BMW512.txt, SHA-256 checked).")
@click.option("--limit", type=int_range(1), default=None,
              help="bmw512 only: the first N records (default: all).")
@click.option("--calls", type=int_range(1, 1000), default=4, show_default=True,
              help="π programs: π calls on random states (seeded), back to back on one PE.")
@click.option("--seed", type=ASCII_INT, default=1, show_default=True, help="π programs: seed of the states.")
@click.option("--stall", type=int_range(0), default=0, metavar="SEED",
              help="Nonzero: random gaps on in_valid/out_ready (seeded); RTL cycles then only need to be "
                   ">= the ISS's.")
@_SHOW_TEXT
def sim_command(program, source, vectors, limit, calls, seed, stall, show_text):
    """Simulate the ppe RTL (Icarus) running a program against its golden model: pi16/pi32/pi64
    against PiCipher's π (random states), bmw512 against the BMW-512 KAT file and bmw512.py; cycle
    counts against the ISS. Prints a table and 'passed N/M'; exit status 0 only if all passed."""
    from rich.console import Console

    from . import bmw512_prog
    if program not in SIM_PROGRAMS:
        raise PpeInputError(f"--program: unknown program '{program}' (known: {', '.join(SIM_PROGRAMS)})")
    if program != "bmw512" and (vectors is not None or limit is not None):
        raise PpeInputError(f"--vectors and --limit apply to bmw512 only, not {program}")
    src = Path(source) if source else bmw512_prog.HERE / "programs" / f"{program}.s"
    out = Console()
    with _program_text_hidden(show_text):
        if program == "bmw512":
            passed, total = _sim_bmw(src, vectors, limit, stall, out)
        else:
            passed, total = _sim_pi(int(program[2:]), src, calls, seed, stall, out)
    out.print(f"passed {passed}/{total}", markup=False, highlight=False)
    if passed != total or not total:
        raise click.exceptions.Exit(1)
