"""The firmware step of the whole-flow tests of designs with several parameter ports
(tests/test_keccak_flow.py, tests/test_aes_modes_flow.py): codegen, the firmware natively and, where
the ARM tools and QEMU are installed, on the Cortex-A9 in QEMU; the frame hash of every rekey must
equal the Python SCG's plan (an independent implementation of the same PPC evaluation)."""

from __future__ import annotations

import shutil
import subprocess

from dcsflow.flow.paths import REPO_ROOT
from dcsflow.scg import plan as pl

FW = REPO_ROOT / "firmware"


def firmware_rekeys_match_plan(dcsflow, build_dir, build, assigns: list[dict], tmp_path,
                               users: list[dict] | None = None) -> None:
    """Generate the SCG's C for ``build_dir`` (``build``: its loaded build folder), build the
    firmware at -O0 (results only; the benchmarks count instructions of -O2), rekey it with every
    assignment of ``assigns`` (port -> value, every PPC port) in the firmware's hex form (all PPC
    ports packed by :func:`dcsflow.scg.plan.param_layout`), and assert each rekey's rc 0 and frame
    hash. A build with a parameter transform program takes the user parameters instead: ``users``
    (user port -> value, one per assignment, packed by :func:`dcsflow.scg.transform.vector_layout`);
    the firmware's transform must then give the frames of ``assigns``."""
    from dcsflow.scg import transform as tf

    gen, fw = tmp_path / "gen", tmp_path / "fw"
    r = dcsflow("codegen", build_dir, "--out", gen)
    assert r.returncode == 0, r.stderr
    targets = ["host"] + (["qemu"] if shutil.which("qemu-system-arm") and shutil.which("arm-none-eabi-gcc") else [])
    subprocess.run(["make", "-s", "-C", str(FW), f"GEN={gen}", f"BUILD={fw}", "OPT=-O0", *targets], check=True,
                   capture_output=True)
    if build.transform is not None:
        assert users is not None and len(users) == len(assigns)
        ins = build.transform.inputs
        digits = -(-sum(p.bits for p in ins) // 4)
        hexes = [format(tf.pack_vector(ins, u), f"0{digits}x") for u in users]
    else:
        layout = pl.param_layout(build.ppc)
        digits = -(-sum(w for _p, _off, w in layout) // 4)          # the firmware takes every hex digit
        hexes = [format(sum(a[p] << off for p, off, _w in layout), f"0{digits}x") for a in assigns]
    cmds = ["verify on"] + [f"rekey {h}" for h in hexes]
    texts = [subprocess.run([str(fw / "host" / "scg_host"), *cmds], capture_output=True, text=True,
                            timeout=600).stdout]
    if "qemu" in targets:
        q = subprocess.run(["qemu-system-arm", "-M", "xilinx-zynq-a9", "-m", "256M", "-nographic", "-monitor", "none",
                            "-serial", "null", "-semihosting-config",
                            f"enable=on,target=native,arg=scg,arg={';'.join(cmds)}",
                            "-kernel", str(fw / "qemu" / "scg_qemu.elf")], capture_output=True, text=True, timeout=600)
        texts.append(q.stdout + q.stderr)
    for text in texts:
        lines = [dict(kv.split("=") for kv in ln.split()[1:]) for ln in text.splitlines() if ln.startswith("rekey ")]
        assert len(lines) == len(assigns), text[-500:]
        for a, got in zip(assigns, lines):
            assert got["rc"] == "0"
            assert got["hash"] == pl.frames_hash(pl.plan(build, a).frames, build.device)
