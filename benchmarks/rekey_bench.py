"""Rekey benchmark: PPC AND nodes, Cortex-A9 instructions per SCG evaluation (QEMU), ICAP
words and frames per rekey, firmware .text size, ICAP words against per-TLUT read-modify-write.

Usage: python benchmarks/rekey_bench.py [--build NAME=DIR ...] [--keys 100] [--designs picipher,picipher_cis]
                                       [--fix NAME=HEX ...] [--write-figures] [--docs]

``--write-figures`` writes each given build folder's ``firmware_figures.json`` (format
``dcsflow-firmware-figures`` v1, docs/formats.md "Build page"): the instruction counts below, tied to
that build by its design hash and the SHA-256 of its PPC and frame map, for the build's page
(``dcsflow report DIR``: the SCG compute part of the rekey time). Not written for a stand-in placement.

For every design a build folder is needed (``dcsflow build NAME --out DIR``; built into a temporary
folder when not given). If the build has no back-end frame map yet (``tlut/framemap.json``), a
STAND-IN placement is used and said so in the output: TLUTs in netlist order on consecutive LUT
sites of one CLB column pair (A..D of SLICE_X56Y0..49, then X57, X58, ...), a zero template with the
TLUT bits of the all-zero key and a consistent ECC, the design hash of ``build.json``.

Instruction counts: the QEMU image (firmware + C model, ``make -C firmware qemu``) runs ``bench N``
(N evaluations for pseudo-random keys) under ``qemu-system-arm -M xilinx-zynq-a9`` with
``-d in_asm,exec,nochain`` filtered to ``scg_evaluate`` and every function it calls, transitively
(``scg_ppc_eval`` and its chunk functions, ``scg_gen_patch``); the executed instructions of each
call are the sum of the sizes of its executed translation blocks. ``scg_instructions`` = whole
evaluation (PPC + frame patch + ECC), ``ppc_instructions`` = the PPC part alone. A build whose
design derives its circuit parameters (a parameter transform, ``transform.json``) is rekeyed from
the user's values, so its count includes the transform: ``bench N BASE MASK`` runs
``scg_evaluate_user`` (``scg_transform`` then ``scg_evaluate``) with the user parameters named by
``--fix NAME=HEX`` held fixed (e.g. key lengths) and the rest pseudo-random;
``transform_instructions`` is the transform's share and ``scg_instructions_without_transform`` the
rest. (Before 2026-11-23 the filter missed ``scg_gen_patch``: earlier figures left the frame patch
out.) Table-style code (``codegen --style table``, chosen for large PPCs) is counted the same way.
QEMU's log (a line per executed translation block) streams through a FIFO and is counted while QEMU
writes it, so no key count fills the disk.

Cost model (modelled times; every constant and its source in ``dcsflow.scg.timemodel``): ICAP words
at the AXI HWICAP's cost per word, or at the ICAPE2's full rate (raw ICAP), plus the instructions at
the Cortex-A9's clock and instructions per cycle.
Per-TLUT read-modify-write baseline (the published flow): for each TLUT, read its 4 frames and
write them back, ICAP words counted with the same driver (``scg.driver.HwicapSession``).
The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dcsflow.scg import buildfolder as bf, driver as drv, rekey as rk  # noqa: E402
from dcsflow.scg.buildfolder import sha256_file  # noqa: E402
from dcsflow.scg.bitstream import FrameMemory  # noqa: E402
from dcsflow.scg.codegen import codegen  # noqa: E402
from dcsflow.scg.device import get_device  # noqa: E402
from dcsflow.scg.emulator import ConfigEmulator  # noqa: E402
from dcsflow.scg.hwicap import AxiHwicap  # noqa: E402
from dcsflow.fileio import write_text_atomic  # noqa: E402
from dcsflow.scg import timemodel as tm  # noqa: E402


def standin_framemap(build: Path) -> bool:
    """Write tlut/framemap.json + tlut/template.frm by the stand-in placement (see module doc);
    returns False if the build already has a frame map."""
    if (build / "tlut" / "framemap.json").exists():
        return False
    ppc_json = json.loads((build / "ppc.json").read_text())
    bj = json.loads((build / "build.json").read_text())
    dev = get_device(bj.get("device", "xc7z020"))
    tluts = ppc_json["tluts"]
    entries, meta = [], []
    for n, (cell, ent) in enumerate(sorted(tluts.items())):
        x, r = 56 + n // 200, n % 200
        site, bel = f"SLICE_X{x}Y{r // 4}", "ABCD"[r % 4] + "6LUT"
        for i, (far, word, bit) in enumerate(dev.lut_bits(site, bel)):
            entries.append([far, word, bit, ent[i % len(ent)]])
        meta.append({"name": cell, "site": site, "bel": bel, "pins": []})
    entries.sort()
    from dcsflow.aig import read_aiger

    ppc = read_aiger(str(build / "ppc.aig"))
    zero = ppc.simulate({nm: 0 for nm in ppc.input_names}, width=1)
    mem = FrameMemory(dev)
    fars = sorted({e[0] for e in entries}, key=dev.far_index.__getitem__)
    for far, word, bit, j in entries:
        mem.set_bit(far, word, bit, zero[j] & 1)
    mem.update_ecc(fars)
    for f in fars:
        mem.written[dev.far_index[f]] = 1
    (build / "tlut").mkdir(exist_ok=True)
    (build / "tlut" / "template.frm").write_text(mem.to_frm(fars))
    (build / "tlut" / "framemap.json").write_text(json.dumps(
        {"format": "dcsflow-frame-map", "version": 1, "device": dev.name, "idcode": f"0x{dev.idcode:08X}",
         "design_hash": bj["design_hash"], "ppc_outputs": ppc.num_outputs, "entries": entries, "tluts": meta}))
    # the build-folder reader takes only files build.json lists (with their SHA-256)
    bj.setdefault("files", {}).update({n: sha256_file(build / n) for n in ("tlut/template.frm", "tlut/framemap.json")})
    (build / "build.json").write_text(json.dumps(bj, indent=1) + "\n")
    return True


def rmw_words_per_tlut(b: bf.BuildFolder) -> int:
    """ICAP words (in + out) of one per-TLUT read-modify-write of 4 frames with our driver."""
    far = b.fars[0]
    hw = AxiHwicap(ConfigEmulator(b.device, b.template.copy()))
    s = drv.HwicapSession(hw, b.idcode)
    s.init()
    s.icap_words_in = s.icap_words_out = 0
    fr = s.read_frames(far, 4)
    s.write_frames(far, fr)
    return s.icap_words_in + s.icap_words_out


def qemu_counts(gen: Path, out: Path, n: int, root: str = "scg_evaluate", bench_args: str = "") -> dict:
    """Instructions per SCG evaluation in QEMU for ``n`` pseudo-random keys: the executed translation
    blocks of ``root`` and the functions it calls: scg_evaluate / scg_ppc_eval / scg_gen_patch (exact,
    per call, PPC share separately); for a cfglut5 build ``root="scg_cfglut_evaluate"`` (PPC and
    chain words, ``scg_gen_words``); for a build with a parameter transform
    ``root="scg_evaluate_user"`` (the transform, ``scg_transform``, counted separately too, then
    scg_evaluate), ``bench_args`` = ``BASE MASK`` of the firmware's ``bench`` (the values held
    fixed, e.g. lengths). (QEMU's Cortex-A9 has no PMU cycle counter, so there is no cheaper exact
    count.)"""
    subprocess.run(["make", "-s", "-C", str(ROOT / "firmware"), f"GEN={gen}", f"BUILD={out}", "qemu", "zynq"],
                   check=True, capture_output=True)
    elf = out / "qemu" / "scg_qemu.elf"
    syms = _called_functions(elf, root)
    filt = ",".join(f"0x{a:x}+0x{s:x}" for a, s in syms.values())
    # the log streams through a FIFO and is counted as it is written: no disk, any number of keys
    log = out / "qemu.log"
    log.unlink(missing_ok=True)
    os.mkfifo(log)
    cmds = f"bench {n} {bench_args}".strip()
    proc = subprocess.Popen(["qemu-system-arm", "-M", "xilinx-zynq-a9", "-m", "256M", "-nographic", "-monitor",
                             "none", "-serial", "null", "-d", "in_asm,exec,nochain", "-dfilter", filt, "-D", str(log),
                             "-semihosting-config", f"enable=on,target=native,arg=scg,arg={cmds}", "-kernel", str(elf)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def _unblock() -> None:
        # QEMU ended (or never opened the log): a writer's open and close ends the reader's wait
        try:
            proc.wait(timeout=3600)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        try:
            os.close(os.open(log, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass

    threading.Thread(target=_unblock, daemon=True).start()
    tb_size: dict[int, int] = {}
    calls: list[list[int]] = []
    ev0 = syms[root][0]
    ppc_ranges = _ppc_ranges(elf, syms)
    tf_ranges = _ppc_ranges(elf, syms, "scg_transform")
    in_ppc: dict[int, bool] = {}
    in_tf: dict[int, bool] = {}
    cur_tb = None
    with open(log) as f:
        for line in f:
            c = line[0]
            if c == "T" and line.startswith("Trace "):
                # "Trace N: 0xHOST [flags/PC/...]"
                pc = int(line.split("[", 1)[1].split("/", 2)[1], 16)
                if pc == ev0:
                    calls.append([0, 0, 0])
                if calls:
                    k = tb_size.get(pc, 0)
                    calls[-1][0] += k
                    p = in_ppc.get(pc)
                    if p is None:
                        p = in_ppc[pc] = any(a <= pc < a + n for a, n in ppc_ranges)
                    if p:
                        calls[-1][1] += k
                    t = in_tf.get(pc)
                    if t is None:
                        t = in_tf[pc] = any(a <= pc < a + n for a, n in tf_ranges)
                    if t:
                        calls[-1][2] += k
            elif c == "I" and line.startswith("IN:"):
                cur_tb = None
            elif c == "0" and line.startswith("0x"):
                m = re.match(r"^0x([0-9a-f]{8}):", line)
                if m:
                    pc = int(m.group(1), 16)
                    if cur_tb is None:
                        cur_tb = pc
                        tb_size[pc] = 0
                    tb_size[cur_tb] += 1
    proc.wait()
    log.unlink(missing_ok=True)
    calls = calls[:n]
    text, rodata = _size(out)
    return {"all": [c[0] for c in calls], "ppc": [c[1] for c in calls], "transform": [c[2] for c in calls],
            "text_bytes": text, "rodata_bytes": rodata, "keys": len(calls)}


def _called_functions(elf: Path, root: str) -> dict:
    """Function symbol -> (address, size) of ``root`` and every function it calls, transitively
    (``bl`` targets in the disassembly): the translation blocks counted. Before 2026-11-23 the list
    was fixed (scg_evaluate, scg_ppc_eval, scg_gen_patch) and missed the chunk functions of large
    straight-style PPCs (``scg_ppc_eval_<k>``)."""
    size = {}
    for line in subprocess.run(["arm-none-eabi-nm", "-S", str(elf)], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "tTwW":
            size[p[3]] = (int(p[0], 16), int(p[1], 16))
    calls: dict = {}
    cur = None
    dis = subprocess.run(["arm-none-eabi-objdump", "-d", str(elf)], capture_output=True, text=True, check=True).stdout
    for line in dis.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = m.group(1)
            calls.setdefault(cur, set())
            continue
        m = re.search(r"\sbl?x?\s+[0-9a-f]+ <([^>+]+)>", line)
        if m and cur is not None:
            calls[cur].add(m.group(1))
    todo, seen = [root], set()
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        todo += sorted(calls.get(f, ()))
    return {f: size[f] for f in seen if f in size}


def _ppc_ranges(elf: Path, syms: dict, root: str = "scg_ppc_eval") -> list:
    """Address ranges of the PPC evaluation (``root``): scg_ppc_eval and the functions it calls; with
    ``root="scg_transform"`` those of the parameter transform (none when the build has none)."""
    inner = _called_functions(elf, root)
    return [syms[f] for f in inner if f in syms]


def _size(out: Path) -> tuple[int, int]:
    """(.text, .rodata) bytes of the board image."""
    size = subprocess.run(["arm-none-eabi-size", "-A", str(out / "zynq" / "scg_zynq.elf")], capture_output=True,
                          text=True, check=True).stdout
    text = int(re.search(r"^\.text\s+(\d+)", size, re.M).group(1))
    rodata = int((re.search(r"^\.rodata\s+(\d+)", size, re.M) or [0, 0])[1])
    return text, rodata


def transform_bench_args(b: bf.BuildFolder, fix: dict[str, int] | None) -> str:
    """``BASE MASK`` for the firmware's ``bench`` of a build with a parameter transform: the user
    parameters in ``fix`` (name -> value, e.g. the lengths) held at their values, every other bit
    pseudo-random; ``""`` for a build without a transform."""
    from dcsflow.scg import transform as tf

    prog = b.transform
    if prog is None:
        return ""
    fix = fix or {}
    unknown = [k for k in fix if k not in prog.input_widths]
    if unknown:
        raise SystemExit(f"--fix {unknown[0]}: not a user parameter of {b.path} ({', '.join(prog.input_widths)})")
    digits = -(-sum(p.bits for p in prog.inputs) // 4)
    base = tf.pack_vector(prog.inputs, {p.name: fix.get(p.name, 0) for p in prog.inputs})
    mask = tf.pack_vector(prog.inputs, {p.name: 0 if p.name in fix else (1 << p.bits) - 1 for p in prog.inputs})
    return f"{base:0{digits}x} {mask:0{digits}x}"


def bench(name: str, build: Path, keys: int, tmp: Path, fix: dict[str, int] | None = None) -> dict:
    """Figures of ``name``'s build folder ``build`` (module docstring) over ``keys`` pseudo-random
    values; ``fix``: user parameters of a build with a parameter transform held fixed (e.g. the
    lengths, so that every value is one the transform takes)."""
    import shutil

    work = tmp / f"{name}_work"  # never modify the user's build folder
    shutil.copytree(build, work, ignore=shutil.ignore_patterns("frontend", "tmap", "conventional"))
    build = work
    standin = standin_framemap(build)
    b = bf.load_build(build)
    t0 = time.perf_counter()
    r = rk.rekey(b, {p: 0 for p in b.ports}, "emulator")
    host_s = time.perf_counter() - t0
    n_tluts = len(json.loads((build / "tlut" / "framemap.json").read_text())["tluts"])
    rmw = rmw_words_per_tlut(b) * n_tluts
    gen = tmp / f"{name}_gen"
    style = codegen(build, gen).style
    if b.transform is not None:
        q = qemu_counts(gen, tmp / f"{name}_fw", keys, "scg_evaluate_user", transform_bench_args(b, fix))
    else:
        q = qemu_counts(gen, tmp / f"{name}_fw", keys)
    ins = q["all"]
    tfi = q["transform"] if b.transform is not None else []
    res = {
        "design": name, "standin_placement": standin, "ppc_ands": b.ppc.aig.num_ands, "tluts": n_tluts,
        "frames": r.frames, "runs": r.runs, "icap_words": r.icap_words, "register_accesses": r.reg_accesses,
        "rmw_icap_words": rmw, "icap_reduction": round(rmw / r.icap_words, 1),
        "scg_instructions": max(ins) if ins else None, "scg_instructions_min": min(ins) if ins else None,
        "scg_instructions_spread": (max(ins) - min(ins)) if ins else None,
        "ppc_instructions": max(q["ppc"]) if q["ppc"] else None, "keys": q["keys"],
        "transform_instructions": max(tfi) if tfi else None,
        "transform_instructions_spread": (max(tfi) - min(tfi)) if tfi else None,
        "scg_instructions_without_transform": (max(a - t for a, t in zip(ins, tfi)) if tfi
                                               else (max(ins) if ins else None)),
        "code_style": style,
        "text_bytes": q["text_bytes"], "rodata_bytes": q["rodata_bytes"],
        "modelled_rekey_us_axi": round(tm.hwicap_us(r.icap_words) + tm.a9_us(max(ins) if ins else 0), 1),
        "modelled_rekey_us_icap": round(tm.icap_us(r.icap_words) + tm.a9_us(max(ins) if ins else 0), 1),
        "host_rekey_seconds": round(host_s, 4),
    }
    return res


def write_figures(build: Path, res: dict) -> Path:
    """``build/firmware_figures.json`` (format ``dcsflow-firmware-figures`` v1) from ``bench``'s result
    ``res`` of that very build folder; returns its path."""
    bj = json.loads((build / "build.json").read_text())
    files = bj.get("files") or {}
    doc = {"format": "dcsflow-firmware-figures", "version": 1, "design": bj.get("design"),
           "design_hash": bj.get("design_hash"), "ppc_sha256": files.get("ppc.aig"),
           "framemap_sha256": files.get("tlut/framemap.json"), "cpu": "Cortex-A9",
           "measured_with": "QEMU xilinx-zynq-a9, executed translation blocks (benchmarks/rekey_bench.py)",
           "date": time.strftime("%Y-%m-%d", time.gmtime()), "keys": res["keys"],
           "scg_instructions": res["scg_instructions"], "scg_instructions_min": res["scg_instructions_min"],
           "ppc_instructions": res["ppc_instructions"], "transform_instructions": res["transform_instructions"],
           "code_style": res["code_style"],
           "text_bytes": res["text_bytes"], "icap_words": res["icap_words"], "frames": res["frames"]}
    path = build / "firmware_figures.json"
    write_text_atomic(path, json.dumps(doc, indent=1) + "\n")
    return path


def ensure_build(name: str, given: dict, tmp: Path) -> tuple[Path, float | None]:
    """The build folder of ``name``: ``given[name]``, else ``dcsflow build NAME`` into ``tmp``.
    Returns (folder, build seconds or None when nothing was built)."""
    build = Path(given[name]) if name in given else tmp / f"{name}_build"
    if (build / "report.json").exists():
        return build, None
    print(f"[{name}] building (dcsflow build {name}) ...", file=sys.stderr)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "dcsflow.flow", "build", name, "--out", str(build), "--quiet"],
                   check=True, cwd=ROOT)
    return build, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--designs", default="picipher,picipher_cis")
    ap.add_argument("--keys", type=int, default=100)
    ap.add_argument("--write-figures", action="store_true",
                    help="write firmware_figures.json into each build folder given with --build")
    import _results
    _results.add_docs_option(ap, "docs/results/rekey.md")
    ap.add_argument("--fix", action="append", default=[], metavar="NAME=HEX",
                    help="a build with a parameter transform: hold its user parameter NAME at HEX (e.g. a "
                         "length, so that every key is one the transform takes); the other bits are random")
    a = ap.parse_args()
    _results.check_docs(a)
    given = dict(x.split("=", 1) for x in a.build)
    fix = {k: int(v, 16) for k, v in (x.split("=", 1) for x in a.fix)}
    results = {}
    with tempfile.TemporaryDirectory() as td:
        tmp = Path(td)
        for name in a.designs.split(","):
            build, _ = ensure_build(name, given, tmp)
            res = bench(name, build, a.keys, tmp, fix)
            results[name] = res
            print(f"{name}: {res['ppc_ands']} PPC ANDs, {res['tluts']} TLUTs, {res['frames']} frames "
                  f"({res['runs']} runs), {res['icap_words']} ICAP words/rekey vs {res['rmw_icap_words']} per-TLUT "
                  f"RMW ({res['icap_reduction']}x fewer); SCG evaluation {res['scg_instructions']} A9 instructions "
                  f"(PPC {res['ppc_instructions']}"
                  + (f", parameter transform {res['transform_instructions']}" if res["transform_instructions"] else "")
                  + f"; spread over {res['keys']} keys: {res['scg_instructions_spread']}); "
                  f".text {res['text_bytes']} B; modelled rekey {res['modelled_rekey_us_axi']} µs (AXI HWICAP), "
                  f"{res['modelled_rekey_us_icap']} µs (ICAP)"
                  + (" [stand-in placement: no back-end frame map yet]" if res["standin_placement"] else ""))
            if a.write_figures and name in given and not res["standin_placement"] and res["scg_instructions"]:
                print(f"{name}: wrote {write_figures(build, res)}", file=sys.stderr)
            elif a.write_figures:
                print(f"{name}: no firmware figures written (only for a build given with --build that has "
                      "a back-end frame map)", file=sys.stderr)
    first = results[a.designs.split(",")[0]]
    if a.docs:
        docs_page(results)
    print(json.dumps({"scg_instructions": first["scg_instructions"],
                      "scg_instructions_spread": first["scg_instructions_spread"],
                      "icap_words": first["icap_words"], "frames": first["frames"], "text_bytes": first["text_bytes"],
                      "designs": results}))


def docs_page(results: dict) -> None:
    """docs/results/rekey.md from this run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _results

    body = _results.table(
        ["design", "PPC ANDs", "TLUTs", "frames (runs)", "ICAP words", "per-TLUT RMW words", "A9 instructions per rekey",
         "spread over keys", "of them PPC", "of them parameter transform", "keys", "code style", ".text bytes",
         "modelled µs AXI HWICAP", "modelled µs raw ICAP", "placement"],
        [[f"`{n}`", r["ppc_ands"], r["tluts"], f"{r['frames']} ({r['runs']})", r["icap_words"], r["rmw_icap_words"],
          r["scg_instructions"], r["scg_instructions_spread"], r["ppc_instructions"],
          r["transform_instructions"] if r["transform_instructions"] is not None else "-", r["keys"], r["code_style"],
          r["text_bytes"], r["modelled_rekey_us_axi"], r["modelled_rekey_us_icap"],
          "stand-in" if r["standin_placement"] else "back end"] for n, r in results.items()])
    _results.write_page("rekey", "Rekey on the Cortex-A9", body,
                        "The firmware's SCG (generated C, `dcsflow codegen`) on the Cortex-A9 in "
                        "`qemu-system-arm -M xilinx-zynq-a9`: executed instructions per evaluation (the design's "
                        "parameter transform where it has one, PPC, frame patch, ECC) over pseudo-random keys, "
                        "ICAP words per rekey against per-TLUT read-modify-write, code size, and the modelled "
                        "rekey time ("
                        + _results.model_note(tm.A9_HZ, tm.A9_IPC, tm.HWICAP_US_PER_WORD)
                        + f"; raw ICAP {tm.icap_us_per_word():g} µs per word).")


if __name__ == "__main__":
    main()
