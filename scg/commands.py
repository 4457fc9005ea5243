"""The runtime's commands ``rekey``, ``bit``, ``import`` and ``codegen``: their arguments and what each
does with them (standard library only).

Both command lines use this module, so every option is defined once and a command does the same
in both: the runtime's (``python -m dcsflow.scg``, :mod:`dcsflow.scg.cli`) and the flow's
(``dcsflow rekey|bit|import|codegen``, :mod:`dcsflow.flow.commands`). Each parses its argument list
once with :func:`parse_args` (an argparse parser: ``--help``, usage errors with exit status 2) and
runs the command with :func:`run_command` (``rekey``: :func:`run_rekey`), which calls the library
(:mod:`dcsflow.scg.buildfolder`, :mod:`dcsflow.scg.rekey`, :mod:`dcsflow.scg.bitstream`,
:mod:`dcsflow.scg.vivado_import`, :mod:`dcsflow.scg.codegen`) and prints the result on stdout.

Errors are raised, never printed here: a user error has a true ``user_error`` attribute and a
one-line message (an OS error on a named file: :func:`os_error_message`); each command line turns
them, and interruptions, into its exit status (1, 130 on Ctrl-C, 143 on SIGTERM).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .rekey import DEFAULT_TARGET, target_help

_REKEY_HELP = """Evaluate the PPC of BUILD for new parameter values and write each touched frame once.

Refuses when the build folder fails its integrity check (build.json hashes, PPC hash) or when the
design hash or the device IDCODE differs from the template's; on a write or read-back failure the
previous frames are written back (exit 1).

A build whose design derives its circuit parameters (build.json user_params) takes either the user
parameters — its parameter transform (transform.json) computes the circuit parameters; a value the
transform refuses (e.g. a key length out of range) is one error line and nothing is written — or
every circuit parameter.

A --tlut cfglut5 build is rekeyed through its CFGLUT5 loader instead: --to cfglut-words:PATH writes
the chain words (mode 0600), --to cfglut:devmem:BASE[@/dev/uioN] writes them into the loader's word
window, STARTs the shift and waits for DONE (refused when the loader is of another build or busy)."""

_IMPORT_HELP = """Check that every TLUT of BUILD sits in the routed bitstream at its planned site and BEL with
its planned pin order and template INIT; then make that bitstream the template configuration
(tlut/imported/). Any difference is an error naming the cell; the build folder is then unchanged."""

_CODEGEN_HELP = """Generate the bit-sliced, constant-time PPC evaluation, the frame patch and the CRC-protected
data blob of BUILD (scg_gen.h, scg_gen.c, scg_devtab.c); for a --tlut cfglut5 build the chain words
of its CFGLUT5 loader in place of the frame patch (make -C firmware then builds the loader driver). With --synthetic, of the synthetic build
the firmware's own tests use (make -C firmware host-test without GEN=)."""

_UNCHECKED_HELP = ("Read the bitstream even if it is not a complete, checked stream (no CRC check over its frame "
                   "data, no START in a full stream, or no DESYNC; see bit info).")


# ------------------------------------------------------------------------------------ rekey
def _open_build(path: str, items: list):
    """``(build, assignment)`` for ``rekey``: the checked build folder
    (:func:`dcsflow.scg.buildfolder.load_build`) and the values of ``items`` (``NAME=HEX``,
    :func:`dcsflow.scg.params.parse_param_args`) for the ports of its PPC: parsed at the declared
    widths (:attr:`~dcsflow.scg.buildfolder.BuildFolder.param_widths`, as ``dcsflow specialize``
    does), then cut to the bits the PPC reads (:func:`dcsflow.scg.params.ppc_values`). A build with a
    parameter transform program takes its user parameters instead: the program computes the
    circuit parameters (:func:`dcsflow.scg.transform.circuit_items`)."""
    from .buildfolder import load_build
    from .params import parse_param_args, ppc_values
    from .transform import circuit_items

    b = load_build(path)
    return b, ppc_values(parse_param_args(circuit_items(b, items), b.param_widths), b.ports)


def rekey_report(res, *, as_json: bool = False, frames_hash: bool = False, verify: bool = False) -> str:
    """The text ``rekey`` prints for ``res`` (:class:`dcsflow.scg.rekey.RekeyResult`): one JSON object
    (``as_json``; :meth:`~dcsflow.scg.rekey.RekeyResult.as_dict`, with the key-dependent
    ``frames_hash`` only when asked) or one line of counts (``verify``: the read-back was asked for)."""
    d = res.as_dict(frames_hash=frames_hash)
    if "chain_words" in d:       # a cfglut5 build: the hash is of the chain words
        if "frames_hash" in d:
            d["words_hash"] = d.pop("frames_hash")
        for k in ("frames", "runs", "icap_words", "readback_words", "frame_words"):
            d.pop(k, None)
    if as_json:
        return json.dumps(d)
    if "chain_words" in d:
        where = f"written to {d['file']}" if "file" in d else f"loaded ({d['polls']} STATUS polls)"
        return (f"rekey via {d['target']}: {d['chain_words']} chain words for {d['chains']} chains of up to "
                f"{d['chain_luts']} CFGLUT5s {where}, {d['register_accesses']} register accesses, "
                f"{d['seconds'] * 1e3:.1f} ms")
    words = f"{d['icap_words']} ICAP words ({d['frame_words']} of frame data with pad frames, " \
            f"{d['icap_words'] - d['frame_words']} of configuration packets)"
    if "bitstream_words" in d:
        words += f"; the {d.get('bitstream', 'partial')} bitstream holds {d['bitstream_words']} words"
    if "verify_words" in d:
        words += f"; read-back: {d['verify_words']} words to request it, {d['readback_words']} words read"
    return (f"rekey via {d['target']}: {d['frames']} frames in {d['runs']} runs, {words}, "
            f"{d['register_accesses']} register accesses, {d['seconds'] * 1e3:.1f} ms"
            + (", read-back verified" if verify else ""))


def run_rekey(a: argparse.Namespace, open_build=None) -> int:
    """``rekey`` with the parsed arguments ``a``: open the build folder once, rekey
    (:func:`dcsflow.scg.rekey.rekey`), print :func:`rekey_report`; returns 0.

    ``open_build(path, items) -> (BuildFolder, assignment)`` replaces the runtime's own step (load
    the folder, parse ``NAME=HEX`` values): the flow's adds the named values of the build's design.

    Raises:
        BuildFolderError, ParamValueError, RekeyError (one-line user errors), or what ``open_build``
        raises.
    """
    from dcsflow import interrupts

    from .rekey import rekey

    build, assignment = (open_build or _open_build)(a.build, a.params)
    res = rekey(build, assignment, a.target, verify=a.verify)
    # the frames are written or loaded (a file target committed itself at its rename): a signal now
    # changes nothing
    interrupts.committed()
    print(rekey_report(res, as_json=a.as_json, frames_hash=a.frames_hash, verify=a.verify))
    return 0


# ------------------------------------------------------------------------------------ bit
def _load(path: str, strict: bool = True, need_frames: bool = True, allow_unchecked: bool = True):
    """Parse the bitstream file ``path`` (.bit or .bin); BitstreamError names the file.

    ``allow_unchecked=False`` refuses a stream that is not complete and checked
    (:attr:`dcsflow.scg.bitstream.Bitstream.unchecked_reasons`: no CRC check over the frame data,
    no START in a full stream, no DESYNC).
    """
    from .bitstream import parse
    from .errors import BitstreamError

    from dcsflow.fileio import BITSTREAM_LIMIT, read_input_bytes

    try:
        data = read_input_bytes(path, BITSTREAM_LIMIT, "bitstream")
    except OSError as e:
        raise BitstreamError(f"cannot read {path}: {e.strerror or e}") from None
    try:
        bs = parse(data, strict=strict)
    except BitstreamError as e:
        raise BitstreamError(f"{path}: {e}") from None
    del data
    if not allow_unchecked:
        try:
            bs.require_checked("stream")
        except BitstreamError as e:
            raise BitstreamError(f"{path}: {e}; --allow-unchecked reads it anyway") from None
    if need_frames and bs.frames is None:
        raise BitstreamError(f"{path}: no IDCODE and no part in the header: cannot place frames")
    return bs


def info_rows(s: dict) -> list[tuple[str, str]]:
    """(field, value) rows of ``bit info`` for a bitstream summary ``s``
    (:meth:`dcsflow.scg.bitstream.Bitstream.summary` plus ``nonzero_frames``/``ecc_mismatch_frames``)."""
    rows = []
    for key in ("part", "idcode", "stream_words", "fdri_frames", "frames_written",
                "distinct_frames_written", "pad_frames", "device_frames", "partial",
                "nonzero_frames", "ecc_mismatch_frames", "crc", "checked", "desync"):
        if key == "checked" and key in s:
            rows.append((key, "yes" if s["checked"] else f"no ({', '.join(s.get('unchecked') or [])})"))
        elif key in s:
            rows.append((key, str(s[key])))
    for c in s["crc_checks"]:
        rows.append((f"CRC @word {c['word']}",
                     f"{c['expected']} {'ok' if c['ok'] else 'MISMATCH, computed ' + c['computed']}"))
    if "crc_checks_total" in s:
        rows.append(("CRC checks", f"{s['crc_checks_total']} (the first {len(s['crc_checks'])} listed)"))
    for k, name in (("a", "design"), ("b", "header part"), ("c", "date"), ("d", "time")):
        if k in s["header"]:
            rows.append((name, s["header"][k]))
    more = s.get("commands_total", 0) - len(s["commands"])
    rows.append(("commands", " ".join(s["commands"]) + (f" ... ({more} more)" if more > 0 else "")))
    return rows


def _cmd_bit_info(a) -> int:
    bs = _load(a.file, strict=False, need_frames=False)
    s = bs.summary()
    s["file"] = a.file
    if a.ecc and bs.frames is not None:
        s["nonzero_frames"] = len(bs.frames.nonzero_fars())
        s["ecc_mismatch_frames"] = len(bs.frames.ecc_mismatches())
    if a.as_json:
        print(json.dumps(s, indent=1))
        return 0
    rows = info_rows(s)
    width = max(len(k) for k, _ in rows)
    print(f"bitstream {a.file}")
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")
    return 0


def _cmd_bit_lut(a) -> int:
    from .device import parse_site_bel

    site, bel = parse_site_bel(a.site_bel)
    bs = _load(a.file, allow_unchecked=a.allow_unchecked)
    print(f"{bs.frames.get_lut(site, bel):016X}")
    return 0


def _cmd_bit_diff(a) -> int:
    from .errors import BitstreamError

    ba, bb = _load(a.a, allow_unchecked=a.allow_unchecked), _load(a.b, allow_unchecked=a.allow_unchecked)
    if ba.device.name != bb.device.name:
        raise BitstreamError(f"{a.a} is for {ba.device.name}, {a.b} for {bb.device.name}: not comparable")
    partial = ba.is_partial or bb.is_partial
    fars = ba.frames.diff(bb.frames, only_written=partial)
    luts = ba.frames.lut_diff(bb.frames, only_written=partial)
    if a.as_json:
        print(json.dumps({"compared": "frames written by both" if partial else "all frames",
                          "frames": [f"0x{f:08X}" for f in fars],
                          "luts": [{"site": s, "bel": e, "a": f"{x:016X}", "b": f"{y:016X}"}
                                   for s, e, x, y in luts]}, indent=1))
        return 0
    if partial:
        print("partial bitstream: comparing only the frames written by both")
    if not fars:
        print("identical frames")
        return 0
    print(f"{len(fars)} frame(s) differ:")
    for f in fars:
        fa, fb = ba.frames.frame(f), bb.frames.frame(f)
        words = [i for i in range(len(fa)) if fa[i] != fb[i]]
        print(f"  FAR 0x{f:08X}  words {','.join(map(str, words))}")
    print(f"{len(luts)} LUT(s) differ:")
    for s, e, x, y in luts:
        print(f"  {s}/{e}  {x:016X} -> {y:016X}")
    return 0


def _cmd_bit_frames(a) -> int:
    import errno

    from dcsflow.fileio import OutputError, check_output_file, write_text_atomic

    from .buildfolder import build_folder_of

    check_output_file(a.output, inputs=[a.file])        # before the (slow) parse: never the input
    inside = build_folder_of(a.output)
    if inside is not None:     # never over a file of a build, and the frames may hold key material
        raise OutputError(a.output, f"it is inside the build folder {inside}; write it elsewhere", errno.EINVAL)
    bs = _load(a.file, allow_unchecked=a.allow_unchecked)
    fars = list(bs.device.frame_addresses) if a.all_frames else None
    try:                 # the frames of a specialized bitstream hold key material: keep them private
        private = not os.stat(a.file).st_mode & 0o044
    except OSError:
        private = True
    write_text_atomic(a.output, bs.frames.to_frm(fars), private=private, inputs=[a.file])
    print(f"wrote {a.output}")
    return 0


# ------------------------------------------------------------------------------------ import
def _cmd_import(a) -> int:
    from .vivado_import import IMPORT_DIR, import_vivado

    res = import_vivado(a.build, a.bit, a.cells)
    d = {"tluts": res.tluts, "frames": res.frames, "seconds": round(res.seconds, 3), "files": res.files}
    if a.as_json:
        print(json.dumps(d))
    else:
        print(f"imported: {res.tluts} TLUTs at their planned sites, {res.frames} frames "
              f"({res.seconds:.2f} s); template configuration: {a.build}/{IMPORT_DIR}/template.bit")
    return 0


# ------------------------------------------------------------------------------------ codegen
def _cmd_codegen(a) -> int:
    import tempfile

    from dcsflow.fileio import check_output_dir

    from .codegen import codegen, firmware_dir

    # both output folders are checked before anything is written, and written as one group: every
    # file of both as a temporary first, the renames last (a full disk leaves the old files of both)
    check_output_dir(a.out)
    if a.fw_dir:
        check_output_dir(a.fw_dir, inputs=[firmware_dir()])
    if a.synthetic:
        from ._synthetic import make_build

        with tempfile.TemporaryDirectory() as d:
            make_build(d)
            r = codegen(d, a.out, style=a.style, firmware=a.fw_dir or None)
    else:
        r = codegen(a.build, a.out, style=a.style, firmware=a.fw_dir or None)
    if r.chain_words:
        print(f"wrote {len(r.files)} files to {a.out} ({r.style} code): {r.live_ands} of {r.ands} AND nodes "
              f"evaluated, {r.chain_words} chain words of {r.entries} terms for the CFGLUT5 loader, "
              f"blob {r.blob_words * 4} bytes")
    else:
        print(f"wrote {len(r.files)} files to {a.out} ({r.style} code): {r.live_ands} of {r.ands} AND nodes "
              f"evaluated, {r.frames} frames, {r.entries} frame-map entries ({r.affine} affine TLUTs patched "
              f"from their frontier), blob {r.blob_words * 4} bytes")
    if a.fw_dir:
        print(f"copied {len(r.firmware)} firmware files to {a.fw_dir}")
    return 0


# ------------------------------------------------------------------------------------ parser
class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the paragraphs of the descriptions as written."""


def _add_rekey(sub) -> None:
    r = sub.add_parser("rekey", help="evaluate the PPC for new parameter values and write the touched frames",
                       description=_REKEY_HELP, formatter_class=_Formatter)
    r.add_argument("build", metavar="BUILD", help="build folder written by dcsflow build")
    r.add_argument("--param", dest="params", action="append", default=[], metavar="NAME=HEX",
                   help="Parameter value in hex (all parameter ports of the build, each once; or the user "
                        "parameters of a build with a parameter transform). "
                        "Through `dcsflow rekey` also NAME=TEXT for a named value of the build's design "
                        "(`dcsflow designs` lists them; e.g. a program that sets several ports).")
    r.add_argument("--to", dest="target", default=DEFAULT_TARGET, metavar="TARGET", help=target_help())
    r.add_argument("--verify", action="store_true", help="Read the frames back and compare (rollback on mismatch).")
    r.add_argument("--json", dest="as_json", action="store_true", help="Print one JSON object.")
    r.add_argument("--frames-hash", dest="frames_hash", action="store_true",
                   help="Add frames_hash (FNV-1a 64 of the new frames, as the firmware prints it; of a cfglut5 "
                        "build words_hash, of the chain words) to --json. "
                        "It depends on the key: for a short key it identifies the key (off by default).")
    r.set_defaults(func=run_rekey, parser=r)


def _add_bit(sub) -> None:
    b = sub.add_parser("bit", help="inspect and compare 7-series bitstreams (.bit or raw .bin)",
                       description="Inspect and compare 7-series bitstreams (.bit with header, or raw .bin).\n"
                                   "Every bad input is a one-line error (exit 1).", formatter_class=_Formatter)
    bsub = b.add_subparsers(dest="bit_command", metavar="COMMAND", required=True)
    bi = bsub.add_parser("info", help="part, IDCODE, frame counts, CRC status and header fields",
                         description="Part, IDCODE, frame counts, CRC status and header fields of FILE.\n\n"
                                     "A CRC mismatch is reported (crc: mismatch), not raised; structural damage "
                                     "is an error.\nchecked: yes for a complete stream (a CRC check over its "
                                     "frame data, START if full, DESYNC),\nelse no (the reasons).",
                         formatter_class=_Formatter)
    bi.add_argument("file", metavar="FILE")
    bi.add_argument("--json", dest="as_json", action="store_true", help="Print one JSON object instead of a table.")
    bi.add_argument("--ecc", dest="ecc", action="store_true", default=True,
                    help="Count nonzero frames whose word-50 ECC differs from the computed one (default).")
    bi.add_argument("--no-ecc", dest="ecc", action="store_false", help="Do not count them.")
    bi.set_defaults(func=_cmd_bit_info, parser=bi)
    bl = bsub.add_parser("lut", help="the INIT of the LUT at SITE/BEL",
                         description="Print the INIT of the LUT at SITE/BEL (e.g. SLICE_X54Y10/A6LUT) as 16 hex digits.",
                         formatter_class=_Formatter)
    bl.add_argument("file", metavar="FILE")
    bl.add_argument("site_bel", metavar="SITE/BEL")
    bl.add_argument("--allow-unchecked", action="store_true", help=_UNCHECKED_HELP)
    bl.set_defaults(func=_cmd_bit_lut, parser=bl)
    bd = bsub.add_parser("diff", help="frames and LUT INITs that differ between two bitstreams",
                         description="Frames and LUT INITs that differ between bitstreams A and B (same part).\n\n"
                                     "If either is a partial bitstream, only the frames written by both are compared.",
                         formatter_class=_Formatter)
    bd.add_argument("a", metavar="A")
    bd.add_argument("b", metavar="B")
    bd.add_argument("--json", dest="as_json", action="store_true", help="Print one JSON object.")
    bd.add_argument("--allow-unchecked", action="store_true", help=_UNCHECKED_HELP)
    bd.set_defaults(func=_cmd_bit_diff, parser=bd)
    bf = bsub.add_parser("frames", help="dump the frames as a text frame file",
                         description="Dump the frames of FILE as a text frame file (Project X-Ray .frm compatible).\n\n"
                                     "OUT may not be FILE; it is written with mode 0600 when FILE is not readable "
                                     "by others\n(a specialized bitstream holds key material).",
                         formatter_class=_Formatter)
    bf.add_argument("file", metavar="FILE")
    bf.add_argument("-o", "--output", required=True, metavar="OUT",
                    help="Frame file to write (docs/formats.md, 'frame file').")
    bf.add_argument("--all", dest="all_frames", action="store_true",
                    help="Dump every frame, not only written/nonzero ones.")
    bf.add_argument("--allow-unchecked", action="store_true", help=_UNCHECKED_HELP)
    bf.set_defaults(func=_cmd_bit_frames, parser=bf)


def _add_import(sub) -> None:
    i = sub.add_parser("import", help="link a routed Vivado bitstream as the build's template configuration",
                       description=_IMPORT_HELP, formatter_class=_Formatter)
    i.add_argument("build", metavar="BUILD", help="build folder built with --backend vivado")
    i.add_argument("--bit", required=True, metavar="FILE",
                   help="Vivado's routed bitstream (.bit or .bin) of BUILD/vivado/build.tcl.")
    i.add_argument("--cells", required=True, metavar="FILE",
                   help="tlut_cells.json written by BUILD/vivado/dump_tluts.tcl.")
    i.add_argument("--json", dest="as_json", action="store_true", help="Print one JSON object.")
    i.set_defaults(func=_cmd_import, parser=i)


def _add_codegen(sub) -> None:
    c = sub.add_parser("codegen", help="C99 sources of the firmware SCG for a build folder",
                       description=_CODEGEN_HELP, formatter_class=_Formatter)
    c.add_argument("build", metavar="BUILD", nargs="?", help="build folder written by dcsflow build")
    c.add_argument("--synthetic", action="store_true",
                   help="Generate for the synthetic build (scg._synthetic) instead of BUILD.")
    c.add_argument("--out", required=True, metavar="DIR",
                   help="Folder for scg_gen.h, scg_gen.c, scg_devtab.c (use as GEN= for make -C firmware).")
    c.add_argument("--firmware", dest="fw_dir", metavar="DIR",
                   help="Also copy the C firmware sources (Makefile, HWICAP driver, SCG runtime) into this folder, "
                        "e.g. for a wheel install without the repository: make -C DIR host-test GEN=$PWD/OUT.")
    c.add_argument("--style", choices=["auto", "straight", "table"], default="auto",
                   help="straight: one C statement per PPC AND node and patched word (fastest); table: loops over "
                        "constant tables (small code for large PPCs); auto: table above 100,000 AND nodes or "
                        "entries (default: auto).")
    c.set_defaults(func=_cmd_codegen, parser=c)


def build_parser(prog: str) -> argparse.ArgumentParser:
    """The argparse parser of the runtime's commands (``prog``: the command name its usage lines
    show, ``python -m dcsflow.scg`` or ``dcsflow``)."""
    p = argparse.ArgumentParser(
        prog=prog, formatter_class=_Formatter,
        description="dcsflow runtime (SCG): rekey a build folder, inspect bitstreams, import a Vivado result,\n"
                    "generate the firmware SCG. Standard library only; COMMAND --help for its options.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in (_add_rekey, _add_bit, _add_import, _add_codegen):
        add(sub)
    return p


def parse_args(argv: list[str], prog: str) -> argparse.Namespace:
    """Parse ``argv`` (``COMMAND ARGS...``) with :func:`build_parser`. The namespace holds the
    command's options, ``func`` (what runs it, see :func:`run_command`) and ``parser`` (its own
    parser).

    Raises:
        SystemExit: ``--help`` (status 0, help printed on stdout) or a usage error — unknown or
            missing arguments, a bad choice, ``codegen`` with neither or both of BUILD and
            ``--synthetic`` (status 2, usage and one error line on stderr).
    """
    args, extra = build_parser(prog).parse_known_args(argv)
    if extra:   # reported by the (sub)command's own parser, with its usage line
        args.parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command == "codegen" and args.synthetic == (args.build is not None):
        args.parser.error("give either BUILD or --synthetic")
    return args


def run_command(args: argparse.Namespace) -> int:
    """Run the command :func:`parse_args` parsed; returns its exit status (0). Raises its errors."""
    return int(args.func(args) or 0)


def os_error_message(e: OSError) -> str:
    """One line for an OS error on a named file or device that no command turned into its own
    error: the reason and, when known, the file (``Permission denied (/dev/mem)``)."""
    if getattr(type(e), "user_error", False):   # e.g. dcsflow.fileio.OutputError: names path and reason
        return str(e)
    names = [os.fsdecode(n) if isinstance(n, bytes) else str(n)
             for n in (e.filename, e.filename2) if n is not None and n != ""]
    where = f" ({' -> '.join(names)})" if names else ""
    return f"{e.strerror or e}{where}"


def last_resort_message(exc: BaseException) -> str | None:
    """The one line (without the ``error:`` prefix) for an error no command turned into its own message,
    or None for an error that is a bug (re-raised with its traceback).

    An OS error names its file or program and the reason (:func:`os_error_message`: a file that
    cannot be read or written, a name too long, a full or read-only device, a program that cannot
    be started); input nested too deeply to read (``RecursionError``), running out of memory and
    text that cannot be encoded are each one line saying so."""
    if isinstance(exc, OSError):
        if exc.filename is None and not getattr(type(exc), "user_error", False) and _on_stdout(exc):
            return f"standard output: {exc.strerror or exc}"
        return os_error_message(exc)
    if isinstance(exc, RecursionError):
        where = _path_being_read(exc)
        return (f"{where + ': ' if where else ''}input nested too deeply to read (more levels than "
                f"Python's recursion limit, {sys.getrecursionlimit()}): {exc}")
    if isinstance(exc, MemoryError):
        return "out of memory" + (f": {exc}" if str(exc) else "")
    if isinstance(exc, UnicodeEncodeError):
        bad = exc.object[exc.start:exc.end]
        return (f"cannot encode {ascii(bad)} as {exc.encoding} ({exc.reason}) "
                f"in {ascii(exc.object[max(0, exc.start - 40):exc.end + 40])}")
    return None


def _path_being_read(exc: BaseException) -> str | None:
    """The file a reader was reading when ``exc`` was raised: the local ``path`` (a str or path) of
    the innermost frame that has one, or None."""
    tb, found = exc.__traceback__, None
    while tb is not None:
        v = tb.tb_frame.f_locals.get("path")
        if isinstance(v, (str, os.PathLike)):
            found = os.fspath(v)
        tb = tb.tb_next
    return found if isinstance(found, str) else None


def _on_stdout(exc: BaseException) -> bool:
    """True if ``exc`` came from writing standard output (a stream on file descriptor 1 among the
    locals of the frames where it was raised, e.g. output redirected to a full device)."""
    tb, frames = exc.__traceback__, []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames[-4:]):
        for v in list(frame.f_locals.values()):
            try:
                if any(callable(getattr(s, "fileno", None)) and s.fileno() == 1
                       for s in (v, getattr(v, "file", None))):
                    return True
            except Exception:  # noqa: BLE001 - any object may be a local; only streams matter
                pass
    return False


def lenient_output() -> None:
    """Reconfigure stdout and stderr so that paths that are not valid UTF-8 (surrogate escapes) are
    printed escaped instead of raising (a traceback)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass
