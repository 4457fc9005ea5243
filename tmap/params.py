"""Parameter lists: reading them, matching them against an AIG's inputs, and the parameter inputs
of a mapping (with the latches that hold parameters, e.g. key registers).

:func:`read_param_file` reads a list, :func:`check_params` checks exact names, :func:`resolve_params`
matches a list written for another TLUT tool (bit-blasted port names), and
:func:`mapping_params` gives :func:`dcsflow.tmap.mapper.map_tluts` its parameters in the AIG's input
order. Standard library only.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from dcsflow.aig import Aig
from dcsflow.fileio import TEXT_LIMIT, read_input_bytes

from .errors import ParamError

__all__ = ["read_param_file", "check_params", "ParamSelection", "resolve_params", "mapping_params"]


def read_param_file(path) -> list[str]:
    """Read parameter input names, one per line (blank lines and ``#`` comments ignored).

    Raises:
        ParamError: the file cannot be read (also: not a regular file, larger than
            :data:`dcsflow.fileio.TEXT_LIMIT`), or is not UTF-8 text (the message names the line and
            the byte).
    """
    try:
        data = read_input_bytes(path, TEXT_LIMIT, "parameter file")
    except OSError as e:
        raise ParamError(f"{path}: cannot read parameter file: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ParamError(f"{path}: line {line}: not UTF-8 text (byte 0x{data[e.start]:02x}); a parameter "
                         "file holds AIGER input names, one per line") from None
    names = []
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith("#"):
            names.append(s)
    return names


def _close_hint(name: str, known: list) -> str:
    """``"; did you mean 'a', 'b'?"`` with up to three close matches (difflib), or ``""``."""
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    return f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""


def check_params(aig: Aig, params: list[str], param_latches: bool = False) -> list[str]:
    """Validate parameter names against the AIG's inputs (and latch names); returns them without
    duplicates, in the given order.

    Raises:
        ParamError: a name is not an input; the message gives close matches (difflib).
    """
    known = list(aig.input_names) + list(aig.latch_names)
    kset = set(known)
    seen, res = set(), []
    for p in params:
        if p not in kset:
            raise ParamError(f"parameter {p!r} is not an input of the AIG{_close_hint(p, known)}")
        if p not in seen:
            seen.add(p)
            res.append(p)
    return res


@dataclass
class ParamSelection:
    """Result of :func:`resolve_params`: which names of a parameter list select AIG inputs.

    Attributes:
        used: AIG input/latch names selected, without duplicates, in the order of the list (a port
            name expands to its bits in AIG order).
        missing: names of the list that select nothing, in the order of the list, without duplicates.
        given: number of distinct names in the list.
    """

    used: list
    missing: list
    given: int

    def warning(self, shown: int = 6) -> str:
        """One warning line about ``missing`` (empty when nothing is missing), e.g.
        ``24 of 192 parameter names are not inputs of the AIG and were skipped: a[7], ... (+18 more)``."""
        if not self.missing:
            return ""
        names = ", ".join(self.missing[:shown])
        more = f", ... (+{len(self.missing) - shown} more)" if len(self.missing) > shown else ""
        return (f"{len(self.missing)} of {self.given} parameter names are not inputs of the AIG and were "
                f"skipped: {names}{more}")


_BIT_RE = re.compile(r"^(.+?)\s*[\[<(]\s*(\d+)\s*[\]>)]$")


def resolve_params(aig: Aig, names: list[str], strict: bool = False) -> ParamSelection:
    """Match a parameter list written for this or another TLUT tool against the AIG's inputs and
    latch names (as the published TMAP flow writes them: bit-blasted names, one per bit of a port).

    A name selects the input of the same name; ``port<7>`` and ``port(7)`` select ``port[7]``; a name
    without index that is no input itself selects every bit ``name[i]`` present in the AIG. Names that
    select nothing (e.g. the parity bits of a DES key, which synthesis removes) are returned in
    ``missing``.

    Raises:
        ParamError: no name selects an input (and the list is not empty), or ``strict`` and some name
            selects nothing; the message names the first such name and gives close matches.
    """
    known = list(aig.input_names) + list(aig.latch_names)
    kset = set(known)
    ports: dict = {}
    for n in known:
        m = _BIT_RE.match(n)
        if m:
            ports.setdefault(m.group(1), []).append(n)
    used, missing, seen_used, seen = [], [], set(), set()
    for name in names:
        if name in seen:
            continue
        seen.add(name)
        if name in kset:
            sel = [name]
        else:
            m = _BIT_RE.match(name)
            alt = f"{m.group(1)}[{m.group(2)}]" if m else None
            sel = [alt] if alt in kset else list(ports.get(name, []))
        if not sel:
            missing.append(name)
        for n in sel:
            if n not in seen_used:
                seen_used.add(n)
                used.append(n)
    if missing and (strict or not used):
        p = missing[0]
        what = "none of the parameter names is an input of the AIG" if not used else \
            f"{len(missing)} of {len(seen)} parameter names are not inputs of the AIG (--strict)"
        raise ParamError(f"{what}: {p!r}{_close_hint(p, known)}")
    return ParamSelection(used, missing, len(seen))


def _hold_mux_data(aig: Aig, lit: int, own: int) -> int:
    """For a next-state literal ``lit = s ? d : own`` (or ``s ? own : d``; ``own`` the latch's
    positive literal, the multiplexer as :meth:`Aig.add_mux` and Yosys ``aigmap`` build it) return
    ``d`` (repeatedly, for nested load enables); otherwise ``lit`` itself."""
    base = aig.first_and
    while lit & 1 and (lit >> 1) >= base:
        a, b = aig.ands[(lit >> 1) - base]
        if not (a & 1 and b & 1 and (a >> 1) >= base and (b >> 1) >= base):
            break
        (a0, a1), (b0, b1) = aig.ands[(a >> 1) - base], aig.ands[(b >> 1) - base]
        d = None
        for s, x in ((a0, a1), (a1, a0)):
            for t, y in ((b0, b1), (b1, b0)):
                if s ^ t == 1 and own in (x, y):
                    d = y if x == own else x
        if d is None:
            break
        lit = d
    return lit


def _param_latches(aig: Aig, pvars: set) -> set:
    """Latch variables whose next state depends only on parameters and on such latches (greatest
    fixpoint); a load-enabled register ``q' = load ? d : q`` counts when ``d`` does (a parameter
    register, as the front end folds them: its value is a parameter once loaded)."""
    I, L = aig.num_inputs, aig.num_latches
    base = aig.first_and
    cand = set(range(1 + I, 1 + I + L))
    supp_cache = {}

    def support(lit):
        v = lit >> 1
        if v in supp_cache:
            return supp_cache[v]
        stack, seen, sup = [v], set(), set()
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            if x >= base:
                a, b = aig.ands[x - base]
                stack += [a >> 1, b >> 1]
            elif x:
                sup.add(x)
        supp_cache[v] = sup
        return sup

    changed = True
    while changed:
        changed = False
        for lv in sorted(cand):
            sup = support(_hold_mux_data(aig, aig.latch_next[lv - 1 - I], 2 * lv))
            if not sup <= (pvars | cand):
                cand.discard(lv)
                changed = True
    return cand


def mapping_params(aig: Aig, comb: Aig, names: list[str], latches: bool = False) -> tuple[list[str], set, list[str]]:
    """The parameter inputs of a mapping of ``aig`` (its combinational view ``comb``, whose inputs
    are the AIG's inputs and then its latch outputs).

    ``names`` are checked with :func:`check_params`; ``latches``: latches whose next state depends
    only on parameters and on such latches are parameters too (:func:`_param_latches`).
    Returns (parameter names in the order of ``comb``'s inputs, their variables in ``comb``, notes
    for the result: latches taken as parameters, or no parameter at all).

    Raises:
        ParamError: a name is not an input or latch of the AIG.
    """
    params = check_params(aig, names)
    notes = []
    name_to_var = {n: 1 + j for j, n in enumerate(comb.input_names)}
    pvars = {name_to_var[p] for p in params}
    if latches and aig.num_latches:
        extra = _param_latches(aig, pvars)
        for v in sorted(extra):
            if v not in pvars:
                pvars.add(v)
                params.append(comb.input_names[v - 1])
        if extra:
            notes.append(f"{len(extra)} latch(es) treated as parameters")
    if not params:
        notes.append("no parameter inputs: conventional LUT mapping")
    # parameter order = order of the AIG's inputs
    return [n for n in comb.input_names if name_to_var[n] in pvars], pvars, notes
