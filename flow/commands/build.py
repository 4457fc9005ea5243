"""``dcsflow build``: TLUT implementation and conventional baseline of a design, with a comparison."""

from __future__ import annotations

from pathlib import Path

import click

from dcsflow.scg.device import DEFAULT_PART

from ..clitypes import ASCII_INT, int_range
from ..backend import BackendError
from ..backend.vivado import board_names, load_board
from ..baselines import CANDIDATES
from ..build import STAGES, BuildOptions, build
from dcsflow import interrupts

from ..frontcheck import summary_line
from ..jobs import check_jobs
from ..report import final_line, print_slowest, print_table
from ._limits import timeout_option


@click.command("build")
@click.argument("design", nargs=-1)
@click.option("-p", "--project", type=click.Path(dir_okay=False, path_type=Path),
              help="Build the design described by this dcsflow.toml (docs/formats.md) instead of DESIGN.")
@click.option("--top", help="Top module (installed designs know theirs).")
@click.option("--param", "params", multiple=True, metavar="PORT",
              help="Treat input PORT as a parameter input (in addition to (* PARAM *) ports). Repeatable.")
@click.option("--device", default=None, help=f"Target device [{DEFAULT_PART}, or the --board's].")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Build folder [build/<design>].")
@click.option("--from", "start", type=click.Choice(STAGES), default="frontend", show_default=True,
              help="First stage to run (earlier stages' results must exist).")
@click.option("--to", "stop", type=click.Choice(STAGES), default="outputs", show_default=True,
              help="Last stage to run.")
@click.option("--area", is_flag=True, help="TMAP: recover area without keeping the depth (fewer LUTs, deeper).")
@click.option("--seed", type=ASCII_INT, default=1, show_default=True, help="Placer seed (back end; deterministic per seed).")
@click.option("--lut-size", type=int_range(4, 6), default=None, metavar="K",
              help="LUT size K: 4, 5 or 6 [the project's [build] lut_size, else 6]. TMAP, every conventional "
                   "candidate and the rest of synth_xilinx map to K-input LUTs; below 6 each LUT takes a LUT site "
                   "of its own (no LUT6_2 pairs; abc-wide, whose wide LUTs need LUT6 + MUXF7/F8, is skipped).")
@click.option("--tlut-pairs", is_flag=True,
              help="Back end: let two TLUTs of <= 5 inputs share one LUT6_2 site (default: one TLUT per LUT6 site; "
                   "LUT size 6 only).")
@click.option("--tlut", type=click.Choice(["frames", "cfglut5"]), default=None,
              help="TLUT realization [the project's [build] tlut, else frames]: frames = LUTs rewritten through "
                   "the configuration port (HWICAP); cfglut5 = CFGLUT5s (SLICEM only, at most 5 regular inputs) "
                   "shifted from the fabric by a generated loader. cfglut5 pays off where TLUTs read many "
                   "parameter bits (a CFGLUT5 replaces logic); a TLUT that reads one parameter function becomes a "
                   "static LUT on a flip-flop of the chain, and when every TLUT does, the build is the conventional "
                   "circuit with a shift-loaded key register: larger, and slower to load than a key register "
                   "written over AXI4-Lite.")
@click.option("--chain-luts", type=int_range(1, 0xFFFF), default=None, metavar="N",
              help="--tlut cfglut5: elements per shift chain (a CFGLUT5, or a register of 32 parameter bits); "
                   "the shift takes 32*N + 2 cycles [the fewest chain words with N <= 4: a shift of at most "
                   "130 cycles].")
@click.option("--param-in-loader", is_flag=True,
              help="--tlut cfglut5: generate logic that computes the chain words from the raw parameter words "
                   "(a few AXI4-Lite writes per rekey instead of one per chain word; the PPC must have no AND "
                   "nodes) and report its LUT cost.")
@click.option("--mul-chunk", type=int_range(min=0), default=None,
              help="Front end: split a multiplier with a parameter operand into chunk products of this many "
                   "regular-operand bits (one TLUT per product bit); 0: leave it to synth_xilinx (DSP48E1) "
                   "[the LUT size K].")
@click.option("--adders", type=click.Choice(["auto", "carry", "logic"]), default="auto", show_default=True,
              help="Adders fed by a parameter input: auto sends one to the LUT mapper as logic when each output bit "
                   "depends on at most K regular inputs (one TLUT per bit), else keeps its CARRY4 chain; carry keeps "
                   "every chain; logic sends every such adder to the LUT mapper.")
@click.option("--backend", type=click.Choice(["builtin", "vivado"]), default="builtin", show_default=True,
              help="vivado: also write vivado/ (netlist with placed TLUTs, XDC, build.tcl, dump_tluts.tcl).")
@click.option("--board", type=click.Choice(board_names()), default=None,
              help="Board file for --backend vivado (flow/boards/<name>.json: device, part, clock, reset pins, "
                   "block design).")
@click.option("--transport", type=click.Choice(["hwicap", "icap-dma"]), default=None,
              help="--backend vivado: the configuration port the rekey writes through [the project's [build] "
                   "transport, else hwicap]: hwicap = the AXI HWICAP; icap-dma = the generated ICAP stream "
                   "controller (vivado/dcs_icap_dma*.v; in the block design in place of the AXI HWICAP, reading "
                   "the rekey's words from DDR through S_AXI_HP0, one word per cycle).")
@click.option("--force", is_flag=True,
              help="Build into an --out folder that is not empty and not a build folder (only the build's own "
                   "files are written; names it needs that are taken are still refused); or re-target a build "
                   "folder made for another device (its back-end results for that device are replaced).")
@click.option("--allow-no-params", is_flag=True,
              help="Build even when no parameter input is found (e.g. a conventional baseline); else that is an error.")
@click.option("--ghdl-opt", "ghdl_opts", multiple=True, metavar="OPT",
              help="Pass OPT to every GHDL run (e.g. --ghdl-opt=-frelaxed, --ghdl-opt=--std=93). Repeatable; "
                   "report.json records them.")
@click.option("--no-frontend-check", "no_frontend_check", is_flag=True,
              help="Verify stage: skip the front-end check (the source simulated with random stimulus by GHDL "
                   "(VHDL) or Icarus (Verilog) against the front end's netlist, every output compared every "
                   "cycle; on by default).")
@click.option("--frontend-cycles", type=int_range(min=1), default=2000, show_default=True,
              help="Cycles the front-end check simulates.")
@click.option("--baselines", default="all", show_default=True, metavar="LIST",
              help="Conventional candidates to make, comma-separated: a mapper (" + ", ".join(CANDIDATES) + ") on "
                   "the design's conventional variant; MAPPER@FORM on a register form of the TLUT build's RTL "
                   "(register: the parameters in a register the host loads; precomputed: the values of its "
                   "parameter-only logic in that register); @FORM for every mapper on it; all. yosys-abc is "
                   "always made: it bounds the LUT depth. The one with the fewest slices at no greater LUT depth "
                   "is the conventional implementation.")
@click.option("--no-static-remap", "no_static_remap", is_flag=True,
              help="TLUT build: keep TMAP's mapping of the static logic (by default ABC re-maps it where that "
                   "saves LUTs within the shallowest conventional candidate's LUT depth, never below TMAP's own).")
@click.option("-j", "--jobs", default=None, metavar="N",
              help="Run independent steps (conventional candidates, static re-mapping candidates, proofs, the "
                   "front-end check, packing and placement) on up to N cores [$DCSFLOW_JOBS, else the "
                   "machine's cores]; -j 1 runs them in turn. The results are the same.")
@click.option("--no-cache", "no_cache", is_flag=True,
              help="Run every job, reading and writing nothing of the job cache (by default a job whose inputs, "
                   "options and tools are those of one run before takes its results from the cache: "
                   "$DCSFLOW_CACHE, else $XDG_CACHE_HOME/dcsflow or ~/.cache/dcsflow; `dcsflow cache` shows it).")
@click.option("--quiet", is_flag=True,
              help="No progress display and no tables: stdout gets two lines, the front-end check's and the verdict; stderr keeps the "
                   "lines on the parameter inputs found and what the front end did with them, notes and errors.")
@timeout_option
def COMMAND(design, project, top, params, device, out, start, stop, area, seed, lut_size, tlut_pairs, tlut, chain_luts,
            param_in_loader, mul_chunk,
            adders, backend, board, transport, force, allow_no_params, ghdl_opts, no_frontend_check, frontend_cycles,
            baselines, no_static_remap, no_cache, jobs, quiet):
    """Build DESIGN with TLUTs (TMAP, parameters in the PPC) and conventionally (the best of several
    candidates with the parameters as ordinary inputs: --baselines).

    DESIGN is an installed design (`dcsflow designs` lists them), or HDL files and folders in any
    order (Verilog .v/.sv, VHDL .vhd/.vhdl through GHDL, or both; a folder gives the HDL files in
    it); or give -p dcsflow.toml. Parameter inputs: a line holding only --PARAM (VHDL) or //PARAM
    (Verilog) before their port declarations and another after them, --PARAM after a VHDL port,
    (* PARAM *) on a Verilog port, attribute PARAM, or --param PORT; the build prints them. The
    top: --top, else the entity of a file starting with a --TMAP line, else the one unit no other
    instantiates. Stages: frontend, tmap, verify, backend, outputs. Writes OUT/report.json and
    prints the comparison table; the last line says whether specialization pays (when the TLUT
    implementation uses more slices or is deeper than the conventional one: why not) and, for a
    multiplier with a parameter operand, the baseline (LUT-only; with DSP48E1: N LUTs + 1 DSP).
    """
    from ..errors import FlowError
    from ..registry import resolve

    if not design and project is None:
        raise click.UsageError("give a DESIGN or -p dcsflow.toml")
    if design and project is not None:
        raise FlowError("give either a DESIGN or -p dcsflow.toml, not both")
    first, more = (design[0], list(design[1:])) if design else (None, [])
    if out is None:
        out = Path("build") / resolve(first, top, more, project).name
    if board is not None:
        board_device = load_board(board).device
        if device is None:
            device = board_device
        elif device != board_device:
            raise BackendError(f"board {board} carries {board_device}, --device is {device} "
                               f"(leave --device out or use --device {board_device})")
    if device is None:
        device = DEFAULT_PART
    res = build(BuildOptions(design=first, more=more, out=out, top=top, params=tuple(params), device=device,
                             start=start, stop=stop, progress=not quiet, area=area, seed=seed,
                             tlut_pairs=tlut_pairs, mul_chunk=mul_chunk, adders=adders, backend=backend, board=board,
                             project=project, force=force, allow_no_params=allow_no_params,
                             ghdl_options=tuple(ghdl_opts), frontend_check=not no_frontend_check,
                             frontend_cycles=frontend_cycles, static_remap=not no_static_remap,
                             baselines=tuple(b.strip() for b in baselines.split(",") if b.strip()),
                             jobs=check_jobs(jobs), lut_size=lut_size, tlut=tlut, chain_luts=chain_luts,
                             param_in_loader=param_in_loader, transport=transport, cache=not no_cache))
    interrupts.committed()          # the build's records are written: a signal now changes nothing
    if quiet:
        if res.report:
            click.echo(summary_line(res.report))
            click.echo(final_line(res.report))
        return
    if res.report:
        print_table(res.report)
        click.echo(summary_line(res.report))
        click.echo(f"report: {out / 'report.json'}")
        if backend == "vivado" and res.report.get("cfglut"):
            from ..backend.vivado import CFGLUT_NOTE

            click.echo(f"vivado (cfglut5): {out / 'vivado'}: {CFGLUT_NOTE}")
        if (out / "report.html").exists():
            click.echo(f"page: {out / 'report.html'}")
    else:
        click.echo(f"stages {start}..{stop} done in {out}")
    print_slowest(res.steps)
    # last, where it cannot be missed: whether specialization pays, against which baseline
    if res.report:
        click.echo(final_line(res.report))
