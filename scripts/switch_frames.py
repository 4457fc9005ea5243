#!/usr/bin/env python3
"""Frames a switch between two parameter values must write, at least: the distinct frames holding a
TLUT bit whose value differs between the two (the lower bound of a rekey from A to B; a rekey
writes every TLUT frame, report.json ``backend.rekey.frames_per_rekey``).

    python scripts/switch_frames.py BUILD --a program=pi16 --b program=pi32

Values as ``dcsflow specialize`` takes them (``NAME=HEX`` per parameter port, or a named value of the
build's design, e.g. ``program=``); repeat ``--a``/``--b`` for several ports. Prints one line (the
parameters' names, not their values: a value may be a key). Bad input: one line on stderr, exit 1.
"""

from __future__ import annotations

import argparse
import json
import sys


def switch_frames(build: str, a: list[str], b: list[str]) -> dict:
    """{changed_bits, frames, tlut_frames} of a switch from values ``a`` to ``b`` of ``build``.

    Raises the flow's and runtime's user errors (BuildFolderError, ParamValueError, NamedParamError)."""
    from dcsflow.flow.design import expand_named_params
    from dcsflow.flow.registry import design_of
    from dcsflow.scg.buildfolder import load_build
    from dcsflow.scg.params import parse_param_args, ppc_values

    bf = load_build(build)
    design = design_of(bf.manifest, bf.path)
    fm = json.loads((bf.path / "tlut" / "framemap.json").read_text())

    def bits(items):
        vals = parse_param_args(expand_named_params(design, items, bf.user_params), bf.user_params)
        vals = design.circuit_values(vals) if design is not None else vals
        return bf.ppc.evaluate(ppc_values(vals, bf.ports, bf.param_widths))

    x, y = bits(a), bits(b)
    changed = [e for e in fm["entries"] if x[e[3]] != y[e[3]]]
    return {"changed_bits": len(changed), "frames": len({e[0] for e in changed}),
            "tlut_frames": len({e[0] for e in fm["entries"]})}


def main(argv=None) -> int:
    """Command line (module docstring); returns the exit status."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("build")
    p.add_argument("--a", action="append", required=True, metavar="NAME=VALUE")
    p.add_argument("--b", action="append", required=True, metavar="NAME=VALUE")
    args = p.parse_args(argv)
    try:
        r = switch_frames(args.build, args.a, args.b)
    except Exception as e:  # noqa: BLE001 - user errors are one line
        if getattr(type(e), "user_error", False):
            print(f"error: {e}", file=sys.stderr)
            return 1
        raise
    # the values may be keys: the line names the parameters, not their values
    names = lambda items: ",".join(x.partition("=")[0].strip() for x in items)   # noqa: E731
    print(f"A ({names(args.a)}) -> B ({names(args.b)}): {r['changed_bits']} TLUT bits change in {r['frames']} "
          f"frames (lower bound); the build's TLUTs lie in {r['tlut_frames']} frames")
    return 0


if __name__ == "__main__":
    sys.exit(main())
