"""Parameter values on the command line: one parser for every command, and no value in a message.

A value of a parameter input may be a key, and a program given as a parameter is that parameter's
value: a malformed one is reported by the parameter's name, the position and the reason, never by
echoing it (nor any part of it). ``dcsflow rekey``, ``dcsflow specialize`` and the runtime's
``python -m dcsflow.scg rekey`` read one parameter's hex value in the same forms: the digits of the
parameter's declared width, also where the PPC reads fewer of its bits (tests/data/flow/narrow.v:
an 8-bit key of which only the low 4 bits reach the logic).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from _buildcache import FLOW_DATA, KEYXOR

NARROW = {"design": str(FLOW_DATA / "narrow.v"), "baselines": ("yosys-abc",), "static_remap": False, "jobs": 1}


def _substrings(value: str, n: int = 6):
    return {value[i:i + n] for i in range(len(value) - n + 1)}


def assert_not_echoed(message: str, value: str) -> None:
    """``message`` holds neither ``value`` nor any 6-character piece of it (case-insensitive)."""
    low = message.lower()
    assert value.lower() not in low, message
    leaked = sorted(s for s in _substrings(value.lower()) if s in low)
    assert not leaked, (leaked, message)


def _scg(*args):
    return subprocess.run([sys.executable, "-m", "dcsflow.scg", *map(str, args)], capture_output=True, text=True)


def _commands(dcsflow, build: Path, item: str):
    """(command, CompletedProcess) of rekey, specialize and the runtime's rekey with ``--param item``."""
    yield "rekey", dcsflow("rekey", build, "--param", item, "--to", "emulator")
    yield "specialize", dcsflow("specialize", build, "--param", item)
    yield "scg rekey", _scg("rekey", build, "--param", item, "--to", "emulator")


@pytest.fixture(scope="module")
def keyxor(builds):
    return builds.get("keyxor", **KEYXOR)


@pytest.fixture(scope="module")
def narrow(builds):
    return builds.get("narrow", **NARROW)


@pytest.mark.parametrize("value, where", [
    ("5e_c2g7", "character 6"),           # a typo in an 8-bit key (with a separator)
    ("0x5ec2e7ba5eba11eg", "character 18"),
])
def test_a_typo_in_a_key_is_not_echoed(parameter_typo_cases, value, where):
    for cmd, msg in parameter_typo_cases(value):
        assert msg.startswith("error: parameter key: ") and f"value not hex at {where} " in msg, (cmd, msg)
        assert_not_echoed(msg, value)


@pytest.fixture(scope="module")
def parameter_typo_cases(keyxor):
    from conftest import REPO_ROOT

    def dcsflow(*args):
        return subprocess.run([sys.executable, "-m", "dcsflow.flow", *map(str, args)], capture_output=True,
                              text=True, cwd=REPO_ROOT)

    def cases(value):
        out = []
        for cmd, r in _commands(dcsflow, keyxor, f"key={value}"):
            assert r.returncode == 1 and r.stdout == "" and "Traceback" not in r.stderr, (cmd, r.stderr)
            lines = r.stderr.splitlines()
            assert len(lines) == 1, (cmd, r.stderr)
            out.append((cmd, lines[0]))
        assert len(out) == 3
        return out

    return cases


def test_a_key_without_its_name_is_not_echoed(dcsflow, keyxor):
    value = "5ec2e7ba5eba11ee"
    for item in (value, f"{value}=00", f"={value}"):
        for cmd, r in _commands(dcsflow, keyxor, item):
            lines = r.stderr.splitlines()
            assert r.returncode == 1 and len(lines) == 1 and lines[0].startswith("error: --param #1"), (cmd, r.stderr)
            assert_not_echoed(lines[0], value)


@pytest.mark.parametrize("value, accepted", [
    ("05", True), ("0x05", True), ("0_5", True), ("f5", True),      # the declared 8 bits: 2 hex digits
    ("5", False), ("005", False), ("105", False),
])
def test_every_command_reads_a_value_in_the_same_forms(dcsflow, narrow, value, accepted):
    import json

    bj = json.loads((narrow / "build.json").read_text())
    ppc = json.loads((narrow / "ppc.json").read_text())
    assert bj["params"] == {"key": 8} and ppc["params"] == [f"key[{i}]" for i in range(4)], (bj["params"], ppc["params"])
    for cmd, r in _commands(dcsflow, narrow, f"key={value}"):
        assert (r.returncode == 0) == accepted, (cmd, r.stderr)
        if not accepted:
            assert r.stderr.startswith("error: parameter key: expected 8 bits (2 hex digits)"), (cmd, r.stderr)


def test_bits_the_ppc_does_not_read_do_not_change_the_configuration(dcsflow, narrow, tmp_path):
    """key=f5 and key=05 differ only in bits 4..7, which reach no logic: the same netlist, the same frames."""
    nets = {v: dcsflow("specialize", narrow, "--param", f"key={v}").stdout for v in ("05", "f5", "06")}
    assert nets["05"] == nets["f5"] != nets["06"]
    bits = {}
    for v in ("05", "f5"):
        r = dcsflow("rekey", narrow, "--param", f"key={v}", "--to", f"bitfile:{tmp_path / v}.bit")
        assert r.returncode == 0, r.stderr
        bits[v] = (tmp_path / f"{v}.bit").read_bytes()
    assert bits["05"] == bits["f5"]


def test_an_assembler_error_in_a_program_parameter_does_not_quote_the_program(tmp_path):
    from dcsflow.designs.ppe import asm
    from dcsflow.designs.ppe.params import program_values
    from dcsflow.flow.design import NamedParamError

    ports = {"prog_image": 64 * 64, "coef_image": 4096}
    bad_lines = ["frobnicate r7, secretsym", "add r1, r2, qzvxwkj", "add r99, r2, r3",
                 ".coef 3, 0x1fedcba9876543210", "add.xyzzyq r1, r2, r3", "add r1, r2, (qwerty +)",
                 '.include "confidential.inc"']
    for bad in bad_lines:
        src = tmp_path / "prog.s"
        src.write_text(f"add r1, r2, r3\n{bad}\n")
        with pytest.raises(asm.AsmError) as full:      # the assembler on its own still shows the line
            asm.assemble_file(src)
        with pytest.raises(NamedParamError) as ei:
            program_values(str(src), ports)
        msg = str(ei.value)
        assert "\n" not in msg and f"{src}:2: " in msg, msg
        assert str(full.value) != msg.split(": ", 1)[1], msg
        for token in bad.replace(",", " ").replace('"', " ").replace("(", " ").split():
            if len(token) >= 3 and token not in ("add", "r1,", "r2,", "r3"):
                assert token not in msg, (token, msg)
        assert_not_echoed(msg, bad)
