"""The one parser of parameter values given on a command line (``--param NAME=HEX``).

Values are hexadecimal, most significant digit first (bit i of the value = parameter bit
``NAME[i]``), with an optional ``0x`` prefix and ``_`` separators, and exactly ``ceil(bits/4)``
digits for a ``bits``-bit parameter (a leading digit may not exceed the width either). ``bits`` is
the parameter port's declared width (``build.json`` ``params``, or ``user_params`` where a design
transforms its parameters), the same for every command: ``rekey`` (both command lines) and
``dcsflow specialize``/``check`` accept the same forms of one parameter's value. ``rekey`` then
hands the PPC only the bits it reads (:func:`ppc_values`).

A value may be a key: no message echoes it, nor any part of it. A malformed value is reported by
the parameter's name, the position of the first bad character and the reason; an item without a
name is reported by its position among the ``--param`` items.
"""

from __future__ import annotations

import re
from typing import Iterable

from .errors import ScgError

_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
#: a NAME shown in messages: a port-like name (one that is not may be a mistyped value)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]{0,63}")


class ParamValueError(ScgError):
    """A ``--param`` argument is malformed, names no parameter or one twice, misses a parameter, or
    its value is not hex or of the wrong width. ``code`` = ``key`` (the firmware's ``SCG_ERR_KEY``)."""

    code = "key"


def _widths(ports: dict[str, int]) -> str:
    return ", ".join(f"{p} ({w} bits)" for p, w in ports.items())


def parse_hex_value(text: str, name: str, bits: int) -> int:
    """Parse the value of the ``bits``-bit parameter ``name``: ``ceil(bits/4)`` hex digits, optional
    ``0x`` and ``_``, not larger than ``bits`` bits; blanks around the value are ignored.

    Raises:
        ParamValueError: not hex (the message gives the 1-based position of the first character that
            is not a hex digit, counted in ``text`` as given), or the wrong number of digits / too
            large; the message names the parameter and the expected number of bits, never the value.
    """
    digits = (bits + 3) // 4
    expected = f"expected {bits} bits ({digits} hex digits)"
    lead = len(text) - len(text.lstrip())
    t = text.strip()
    start = 2 if t[:2] in ("0x", "0X") else 0
    for i, c in enumerate(t[start:], start=lead + start + 1):
        if c not in _HEX_DIGITS and c != "_":
            raise ParamValueError(f"parameter {name}: value not hex at character {i} (hex digits 0-9, a-f; "
                                  f"optional 0x prefix, _ separators); {expected}")
    t = t[start:].replace("_", "")
    if not t:
        raise ParamValueError(f"parameter {name}: value not hex: it has no hex digit; {expected}")
    if len(t) != digits or int(t, 16) >> bits:
        raise ParamValueError(f"parameter {name}: expected {bits} bits ({digits} hex digits), got {len(t)} hex digits"
                              + (f" with value above {bits} bits" if len(t) == digits else ""))
    return int(t, 16)


def _shown(name: str, k: int) -> str:
    """How a ``--param`` item's NAME is shown: itself when it looks like a port name, else by the
    item's position (it may be a value typed without its name)."""
    return name if _NAME.fullmatch(name) else f"#{k} (its name is not a port name)"


def parse_param_args(items: Iterable[str | tuple[str, int]], ports: dict[str, int]) -> dict[str, int]:
    """Parse ``NAME=HEX`` arguments against ``ports`` (parameter name -> declared width in bits).

    An item may also be a ``(NAME, value)`` pair whose value is already an int (bit i = parameter
    bit ``NAME[i]``), e.g. converted by the flow from a design's named value: it is checked like a
    ``NAME=HEX`` item (name, once) and must fit the port's width. Every port needs exactly one value.

    Returns:
        name -> value (int; bit i = parameter bit ``NAME[i]``), in the order of ``ports``.
    Raises:
        ParamValueError: an item is not ``NAME=HEX`` (named by its 1-based position among the
            items, not echoed); an unknown name (the message lists the names with their widths); a
            name given twice; a port without a value; a value not hex or of the wrong width
            (:func:`parse_hex_value`), a pair's value negative or wider than its port. No message
            contains a value.
    """
    vals: dict[str, int] = {}
    for k, it in enumerate(items, start=1):
        if isinstance(it, tuple):
            name, value = it
        else:
            name, eq, text = str(it).partition("=")
            name = name.strip()
            if not eq:
                raise ParamValueError(f"--param #{k}: expected NAME=HEX, the item has no '='")
            if not name:
                raise ParamValueError(f"--param #{k}: expected NAME=HEX, the name before '=' is empty")
        if name not in ports:
            raise ParamValueError(f"--param {_shown(name, k)}: not a parameter of this build; "
                                  f"parameters: {_widths(ports)}")
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


def ppc_values(values: dict[str, int], ppc_ports: dict[str, int],
               declared: dict[str, int] | None = None) -> dict[str, int]:
    """The values of the PPC's ports (``ppc_ports``: port -> width, :attr:`Ppc.ports
    <dcsflow.scg.ppc.Ppc.ports>`) from values parsed at the declared widths
    (:func:`parse_param_args`): each cut to its PPC port's width, ports the PPC does not read left
    out. The PPC's port ends at the highest bit it reads; the bits above have no PPC input, so they
    cannot change the configuration. ``declared`` (port -> declared width, e.g. ``build.json``
    ``params``): each value of a port named there must fit that width (values computed by a
    design's parameter transform are checked here; parsed ones fit already).

    Raises:
        ParamValueError: a PPC port has no value (the build's declared parameters do not name it),
            or a value is negative or wider than its declared width.
    """
    for p, w in (declared or {}).items():
        v = values.get(p)
        if v is not None and (v < 0 or v >> w):
            raise ParamValueError(f"parameter {p}: value does not fit its {w} bits")
    missing = [p for p in ppc_ports if p not in values]
    if missing:
        raise ParamValueError(f"the PPC reads {', '.join(missing)}, which the build's parameters do not declare")
    return {p: values[p] & ((1 << w) - 1) for p, w in ppc_ports.items()}
