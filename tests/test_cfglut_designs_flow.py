"""The whole cfglut5 flow on bundled designs (opt-in: their builds take minutes): given finished
``dcsflow build NAME --tlut cfglut5`` folders in ``DCSFLOW_CFGLUT_BUILDS=NAME=DIR[,NAME=DIR]``
(picipher and aes128_iter are the ones the flow is checked on), for each:

- ``dcsflow check DIR``: every vector of the design's check through the CFGLUT5 loader, two keys per
  simulation, the second loaded between two data items;
- ``dcsflow rekey DIR --to cfglut-words:FILE``: the words of the runtime's PPC evaluation;
- ``dcsflow codegen DIR`` and the firmware on the host and in QEMU (Cortex-A9): the words it computes
  and loads into the loader model equal the host's, for two keys.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from dcsflow.flow.specialize import tlut_values
from dcsflow.scg import cfglut as cf
from dcsflow.scg.buildfolder import load_build

from test_cfglut_rekey import FW, HAS_ARM, _fw_results, _qemu

BUILDS = dict(x.split("=", 1) for x in os.environ.get("DCSFLOW_CFGLUT_BUILDS", "").split(",") if "=" in x)
pytestmark = pytest.mark.skipif(not BUILDS, reason="opt-in: DCSFLOW_CFGLUT_BUILDS=NAME=DIR[,NAME=DIR] "
                                "(dcsflow build NAME --tlut cfglut5 --out DIR)")


def keys_of(b, n: int = 2) -> list[dict[str, int]]:
    rng = random.Random(3)
    return [{p: rng.getrandbits(w) for p, w in b.param_widths.items()} for _ in range(n)]


def expected(b, values: dict[str, int]) -> list[int]:
    inits = tlut_values(b, [values])[0]
    return b.cfglut_layout.words_for(inits, {c: len(e) for c, e in b.tlut_entries.items()})


def run(*args, timeout: int = 3600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dcsflow.flow", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_check_through_the_loader(name):
    r = run("check", BUILDS[name], "--quiet")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "passed" in r.stdout.splitlines()[-1]


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_rekey_words_and_firmware(name, tmp_path):
    d = Path(BUILDS[name])
    b = load_build(d)
    if b.user_params != b.param_widths:
        pytest.skip("a design with a parameter transform: the firmware takes the circuit parameters")
    lay = b.cfglut_layout
    keys = keys_of(b)
    for k, vals in enumerate(keys):
        out = tmp_path / f"w{k}.txt"
        r = run("rekey", d, *[a for p, v in vals.items() for a in ("--param", f"{p}={v:x}")], "--to",
                f"cfglut-words:{out}")
        assert r.returncode == 0, r.stderr
        assert cf.read_words_file(out, build_id=lay.build_id).words == expected(b, vals)
    gen, fw = tmp_path / "gen", tmp_path / "fw"
    r = run("codegen", d, "--out", gen)
    assert r.returncode == 0, r.stderr
    subprocess.run(["make", "-s", "-C", str(FW), f"GEN={gen}", f"BUILD={fw}", "host", *(["qemu"] if HAS_ARM else [])],
                   check=True, capture_output=True)
    assert len(b.param_widths) == 1, "the firmware's rekey command takes one parameter value"
    (port, width), = b.param_widths.items()
    cmds = [c for vals in keys for c in (f"rekey {vals[port]:0{(width + 3) // 4}x}", "dump")]
    outs = {"host": subprocess.run([str(fw / "host" / "scg_host"), *cmds], capture_output=True, text=True,
                                   timeout=120).stdout}
    if HAS_ARM:
        outs["qemu"] = _qemu(fw / "qemu" / "scg_qemu.elf", cmds)
    for where, text in outs.items():
        res = _fw_results(text)
        assert len(res) == len(keys), (where, text[-800:])
        for vals, (fields, words) in zip(keys, res):
            assert fields["rc"] == "0" and words == expected(b, vals), where
