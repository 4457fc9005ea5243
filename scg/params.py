"""The one parser of parameter values given on a command line (``--param NAME=HEX``).

Values are hexadecimal, most significant digit first (bit i of the value = parameter bit
``NAME[i]``), with an optional ``0x`` prefix and ``_`` separators, and exactly ``ceil(bits/4)``
digits for a ``bits``-bit parameter (a leading digit may not exceed the width either). Used by
``rekey`` (both command lines) and ``dcsflow specialize``/``check``.
"""

from __future__ import annotations

import re
from typing import Iterable

from .errors import ScgError

_HEX = re.compile(r"[0-9a-f]+")


class ParamValueError(ScgError):
    """A ``--param`` argument is malformed, names no parameter or one twice, misses a parameter, or
    its value is not hex or of the wrong width. ``code`` = ``key`` (the firmware's ``SCG_ERR_KEY``)."""

    code = "key"


def _widths(ports: dict[str, int]) -> str:
    return ", ".join(f"{p} ({w} bits)" for p, w in ports.items())


def parse_hex_value(text: str, name: str, bits: int) -> int:
    """Parse the value of the ``bits``-bit parameter ``name``: ``ceil(bits/4)`` hex digits, optional
    ``0x`` and ``_``, not larger than ``bits`` bits.

    Raises:
        ParamValueError: not hex, or the wrong number of digits / too large; the message names the
            parameter and the expected number of bits.
    """
    t = text.strip().lower()
    if t.startswith("0x"):
        t = t[2:]
    t = t.replace("_", "")
    digits = (bits + 3) // 4
    if not t or not _HEX.fullmatch(t):
        raise ParamValueError(f"parameter {name}: value {text!r} is not hex; expected {bits} bits ({digits} hex digits)")
    if len(t) != digits or int(t, 16) >> bits:
        raise ParamValueError(f"parameter {name}: expected {bits} bits ({digits} hex digits), got {len(t)} hex digits"
                              + (f" with value above {bits} bits" if len(t) == digits else ""))
    return int(t, 16)


def parse_param_args(items: Iterable[str | tuple[str, int]], ports: dict[str, int]) -> dict[str, int]:
    """Parse ``NAME=HEX`` arguments against ``ports`` (parameter name -> width in bits).

    An item may also be a ``(NAME, value)`` pair whose value is already an int (bit i = parameter
    bit ``NAME[i]``), e.g. converted by the flow from a design's named value: it is checked like a
    ``NAME=HEX`` item (name, once) and must fit the port's width. Every port needs exactly one value.

    Returns:
        name -> value (int; bit i = parameter bit ``NAME[i]``), in the order of ``ports``.
    Raises:
        ParamValueError: an item is not ``NAME=HEX``; an unknown name (the message lists the names
            with their widths); a name given twice; a port without a value; a value not hex or of
            the wrong width (:func:`parse_hex_value`), a pair's value negative or wider than its port.
    """
    vals: dict[str, int] = {}
    for it in items:
        if isinstance(it, tuple):
            name, value = it
        else:
            name, eq, text = str(it).partition("=")
            name = name.strip()
            if not eq or not name:
                raise ParamValueError(f"--param {it!r}: expected NAME=HEX")
        if name not in ports:
            raise ParamValueError(f"--param {name}: not a parameter of this build; parameters: {_widths(ports)}")
        if name in vals:
            raise ParamValueError(f"--param {name}: given twice")
        if not isinstance(it, tuple):
            vals[name] = parse_hex_value(text, name, ports[name])
        elif not isinstance(value, int) or value < 0 or value >> ports[name]:
            raise ParamValueError(f"parameter {name}: value does not fit its {ports[name]} bits")
        else:
            vals[name] = value
    missing = {p: w for p, w in ports.items() if p not in vals}
    if missing:
        raise ParamValueError(f"missing --param for {_widths(missing)}")
    return {p: vals[p] for p in ports}
