"""scg.params: the one ``--param NAME=HEX`` parser (rekey, specialize, check)."""

from __future__ import annotations

import pytest

from dcsflow.scg.params import ParamValueError, parse_hex_value, parse_param_args

PORTS = {"key": 96, "iv": 8, "b": 1, "w5": 5}
GOOD = ["key=0123456789abcdef01234567", "iv=a5", "b=1", "w5=1f"]


def test_values_in_port_order():
    vals = parse_param_args(list(reversed(GOOD)), PORTS)
    assert list(vals) == list(PORTS)
    assert vals == {"key": 0x0123456789ABCDEF01234567, "iv": 0xA5, "b": 1, "w5": 0x1F}


@pytest.mark.parametrize("text,value", [("0xA5", 0xA5), ("a_5", 0xA5), ("0X_a5", 0xA5), (" A5 ", 0xA5), ("00", 0)])
def test_hex_forms(text, value):
    assert parse_hex_value(text, "iv", 8) == value


@pytest.mark.parametrize("items,msg", [
    (["key"], "--param #1: expected NAME=HEX, the item has no '='"),
    (["=a5"], "--param #1: expected NAME=HEX, the name before '=' is empty"),
    (["nokey=a5"], "--param nokey: not a parameter of this build; parameters: key (96 bits), iv (8 bits), b (1 bits), "
                   "w5 (5 bits)"),
    (["iv=a5", "iv=5a"], "--param iv: given twice"),
    (["iv=a5", "b=1", "w5=1f"], "missing --param for key (96 bits)"),
    (["iv=a5"], "missing --param for key (96 bits), b (1 bits), w5 (5 bits)"),
    (["iv=zz"], "parameter iv: value not hex at character 1 "),
    (["iv=0xa_z"], "parameter iv: value not hex at character 5 "),
    (["iv= 0a-"], "parameter iv: value not hex at character 4 "),
    (["iv="], "parameter iv: value not hex: it has no hex digit; expected 8 bits (2 hex digits)"),
    (["iv=0x_"], "parameter iv: value not hex: it has no hex digit"),
    (["iv=a"], "parameter iv: expected 8 bits (2 hex digits), got 1 hex digits"),
    (["iv=0a5"], "expected 8 bits (2 hex digits), got 3 hex digits"),
    (["w5=20"], "parameter w5: expected 5 bits (2 hex digits), got 2 hex digits with value above 5 bits"),
    (["b=2"], "expected 1 bits (1 hex digits)"),
])
def test_errors_are_one_line_naming_the_problem(items, msg):
    with pytest.raises(ParamValueError) as ei:
        parse_param_args(items + [g for g in GOOD if g.split("=")[0] not in {i.split("=")[0] for i in items}
                                  and not msg.startswith("missing")], PORTS)
    text = str(ei.value)
    assert msg in text and "\n" not in text
    assert ParamValueError.user_error and ei.value.code == "key"
