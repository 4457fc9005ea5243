"""keccak and aes_modes rekeyed on the Cortex-A9 from the key alone: the firmware generated for a
finished build runs the design's parameter transform (KMAC128 key state and Lake Keyak key pack;
H = E_K(0^128)) before the PPC evaluation, natively and in ``qemu-system-arm -M xilinx-zynq-a9``;
its frames equal the host SCG's for the circuit values of the golden model, a length the transform
refuses returns SCG_ERR_TRANSFORM with the frames untouched, and the instructions of a rekey — the
transform included — are the same for every key (QEMU's executed translation blocks, counted as
benchmarks/rekey_bench.py counts them).

Opt-in: it needs a finished build, minutes on 2 cores: ``DCSFLOW_KECCAK_BUILD=DIR`` (``dcsflow build
keccak --out DIR``) and/or ``DCSFLOW_AES_MODES_BUILD=DIR`` (``dcsflow build aes_modes --out DIR``),
the variables the whole-flow tests read.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dcsflow.flow.paths import REPO_ROOT
from dcsflow.scg import buildfolder as bf, plan as pl, transform as tf
from dcsflow.scg.params import ppc_values

HAS_ARM = bool(shutil.which("qemu-system-arm") and shutil.which("arm-none-eabi-gcc"))
ERR_TRANSFORM = -17
KEYS_COUNTED = 6


def _keccak_users(rng):
    """Key and customization string of several lengths (the encodings change at 32 bytes), and one
    key_len the transform refuses."""
    out = []
    for klen, clen in ((32, 157), (16, 0), (0, 31), (20, 40), (33, 0)):
        out.append({"key": rng.getrandbits(8 * min(klen, 32)), "key_len": klen,
                    "custom": rng.getrandbits(8 * clen), "custom_len": clen})
    return out


def _aes_users(rng):
    return [{"key": 0}, {"key": int.from_bytes(bytes(range(16)), "big")}, {"key": rng.getrandbits(128)}]


CASES = {
    "keccak": ("DCSFLOW_KECCAK_BUILD", "dcsflow.designs.keccak.design", "key_state_transform", _keccak_users,
               {"key_len": 32, "custom_len": 157}),
    "aes_modes": ("DCSFLOW_AES_MODES_BUILD", "dcsflow.designs.aes_modes.design", "hash_key_transform", _aes_users,
                  {}),
}


def _given(name):
    d = os.environ.get(CASES[name][0])
    return Path(d) if d else None


def _golden(name):
    """The design's golden transform function and the error it refuses values with."""
    import importlib

    mod = importlib.import_module(CASES[name][1])
    errors = importlib.import_module(CASES[name][1].rsplit(".", 1)[0] + ".errors")
    return getattr(mod, CASES[name][2]), errors.InputError


def _rekey_lines(text):
    return [dict(kv.split("=", 1) for kv in ln.split()[1:]) for ln in text.splitlines() if ln.startswith("rekey ")]


@pytest.fixture(scope="module", params=list(CASES))
def real(request, tmp_path_factory):
    """A finished build of the design (from its environment variable), its generated C and the
    firmware built natively and for QEMU (-O2, as the benchmarks count)."""
    name = request.param
    build = _given(name)
    if build is None:
        pytest.skip(f"set {CASES[name][0]}=DIR of a finished dcsflow build {name}")
    b = bf.load_build(build)
    assert b.manifest["design"] == name and b.transform is not None, "a build made before transform.json: " \
        f"dcsflow build {name} --out {build} --from outputs"
    root = tmp_path_factory.mktemp(name)
    gen, fw = root / "gen", root / "fw"
    r = subprocess.run([sys.executable, "-m", "dcsflow.flow", "codegen", str(build), "--out", str(gen)],
                       capture_output=True, text=True, cwd=REPO_ROOT)
    assert r.returncode == 0, r.stderr
    targets = ["host"] + (["qemu", "zynq"] if HAS_ARM else [])
    subprocess.run(["make", "-s", "-C", str(REPO_ROOT / "firmware"), f"GEN={gen}", f"BUILD={fw}", *targets],
                   check=True, capture_output=True)
    return {"name": name, "build": build, "b": b, "gen": gen, "fw": fw}


def _hex(b, user) -> str:
    ins = b.transform.inputs
    return f"{tf.pack_vector(ins, user):0{-(-sum(p.bits for p in ins) // 4)}x}"


def _check(real, text, users):
    """Every rekey against the host SCG (frames of the golden model's circuit values), a refused
    value against the previous frames."""
    b, (golden, refused) = real["b"], _golden(real["name"])
    lines = _rekey_lines(text)
    assert len(lines) == len(users), text[-2000:]
    prev = pl.frames_hash({f: b.template.frame(f) for f in b.fars}, b.device)
    for u, got in zip(users, lines):
        try:
            want = pl.frames_hash(pl.plan(b, ppc_values(golden(u), b.ports)).frames, b.device)
        except refused:                          # the golden model refuses: so must the board
            assert int(got["rc"]) == ERR_TRANSFORM and got["frames"] == "0" and got["hash"] == prev, got
            continue
        assert got["rc"] == "0" and got["hash"] == want, (u.keys(), got)
        prev = want


def test_firmware_rekeys_from_the_key_alone(real):
    users = CASES[real["name"]][3](random.Random(5))
    r = subprocess.run([str(real["fw"] / "host" / "scg_host"), "verify on", *[f"rekey {_hex(real['b'], u)}"
                                                                               for u in users]],
                       capture_output=True, text=True, timeout=1800)
    _check(real, r.stdout, users)


@pytest.mark.skipif(not HAS_ARM, reason="needs qemu-system-arm and arm-none-eabi-gcc")
def test_firmware_rekeys_from_the_key_alone_in_qemu(real):
    users = CASES[real["name"]][3](random.Random(6))[:3]
    cmds = ";".join(["verify on", *[f"rekey {_hex(real['b'], u)}" for u in users]])
    q = subprocess.run(["qemu-system-arm", "-M", "xilinx-zynq-a9", "-m", "256M", "-nographic", "-monitor", "none",
                        "-serial", "null", "-semihosting-config", f"enable=on,target=native,arg=scg,arg={cmds}",
                        "-kernel", str(real["fw"] / "qemu" / "scg_qemu.elf")], capture_output=True, text=True,
                       timeout=3600)
    _check(real, q.stdout + q.stderr, users)


@pytest.mark.skipif(not HAS_ARM, reason="needs qemu-system-arm and arm-none-eabi-gcc")
def test_instructions_per_rekey_include_the_transform_and_do_not_depend_on_the_key(real):
    """The Cortex-A9 instructions of the transform and the PPC evaluation for pseudo-random keys of
    one pair of lengths: the transform is counted (it is part of every evaluation) and every key
    takes the same count."""
    sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
    try:
        import rekey_bench as rb
    finally:
        sys.path.pop(0)
    args = rb.transform_bench_args(real["b"], CASES[real["name"]][4])
    q = rb.qemu_counts(real["gen"], real["fw"], KEYS_COUNTED, "scg_evaluate_user", args)
    assert q["keys"] == KEYS_COUNTED
    assert len(set(q["all"])) == 1 and len(set(q["transform"])) == 1, (q["all"], q["transform"])
    assert 0 < q["transform"][0] < q["all"][0] and q["ppc"][0] > 0
