"""scg.buildfolder: the one build-folder reader refuses every changed, missing or foreign file with one
line, and reads only what its caller needs (rekey never parses template.json, specialize never reads
the template frames).

One small build (keyxor, every stage) per module; each case alters a copy. The refusals are checked
through the runtime's CLI (``rekey`` to every target, ``codegen``), in process and as a subprocess.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dcsflow.flow.specialize import specialize_to_file
from dcsflow.scg import cli
from dcsflow.scg.buildfolder import BUILD_VERSION, load_build
from dcsflow.scg.errors import BuildFolderError

from _buildcache import KEYXOR, KEYXOR_SEED2
from _builds import reseal

DATA = Path(__file__).parent / "data" / "flow"


@pytest.fixture(scope="module")
def kx(builds):
    """keyxor built through every stage (shared), and the frame map of a second placement (seed 2)
    of the same design."""
    out = builds.get("keyxor", **KEYXOR)
    other = builds.get("keyxor-seed2", **KEYXOR_SEED2)
    fm1, fm2 = (json.loads((d / "tlut" / "framemap.json").read_text()) for d in (out, other))
    assert fm1["design_hash"] == fm2["design_hash"] and fm1["entries"] != fm2["entries"]   # same design, other frames
    return out, other / "tlut" / "framemap.json"


def _copy(kx, tmp_path) -> Path:
    dst = tmp_path / "b"
    shutil.copytree(kx[0], dst)
    return dst


def _flip(path: Path, offset: int, mask: int = 1) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= mask
    path.write_bytes(bytes(data))


def _run(capsys, *args) -> tuple[int, str, str]:
    rc = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def _first_output_literal(root: Path) -> int:
    """Offset of the first output literal of the binary AIGER ppc.aig (the line after the header)."""
    return (root / "ppc.aig").read_bytes().index(b"\n") + 1


def _tamper_ppc_aig(root, kx):
    _flip(root / "ppc.aig", _first_output_literal(root))          # an output literal: 2 -> 3


def _tamper_frm(root, kx):
    p = root / "tlut" / "template.frm"
    _flip(p, len(p.read_bytes()) // 2, 2)


def _tamper_ppc_json(root, kx):
    p = root / "ppc.json"
    p.write_text(p.read_text()[:-40])


def _delete_ppc_json(root, kx):
    (root / "ppc.json").unlink()


def _tamper_template_json(root, kx):
    p = root / "template.json"
    p.write_text(p.read_text().replace('"dcs_tlut"', '"dcs_tlux"', 1))


def _tamper_report(root, kx):
    p = root / "report.json"
    p.write_text(p.read_text().replace('"luts"', '"LUTs"', 1))


def _tamper_bit(root, kx):
    p = root / "tlut" / "template.bit"
    _flip(p, len(p.read_bytes()) - 1000)


def _delete_build_json(root, kx):
    (root / "build.json").unlink()


def _other_seed(root, kx):
    shutil.copyfile(kx[1], root / "tlut" / "framemap.json")


TAMPER = {
    "ppc.aig output literal": (_tamper_ppc_aig, "ppc.aig does not match build.json"),
    "template.frm byte": (_tamper_frm, "tlut/template.frm does not match build.json"),
    "ppc.json corrupted": (_tamper_ppc_json, "ppc.json does not match build.json"),
    "ppc.json missing": (_delete_ppc_json, "ppc.json missing"),
    "template.json changed": (_tamper_template_json, "template.json does not match build.json"),
    "report.json changed": (_tamper_report, "report.json does not match build.json"),
    "template.bit changed": (_tamper_bit, "tlut/template.bit does not match build.json"),
    "build.json deleted": (_delete_build_json, "not a finished build folder (no build.json)"),
    "frame map of seed 2": (_other_seed, "tlut/framemap.json does not match build.json"),
}


@pytest.mark.parametrize("case", sorted(TAMPER))
def test_tampered_build_is_refused_by_rekey_and_codegen(kx, tmp_path, capsys, case):
    root = _copy(kx, tmp_path)
    tamper, msg = TAMPER[case]
    tamper(root, kx)
    regs = tmp_path / "regs"
    regs.write_bytes(bytes(4096))
    targets = ["emulator", f"bitfile:{tmp_path / 'k.bit'}", f"partial:{tmp_path / 'p.bin'}", f"devmem:0@{regs}",
               "fpgamgr"]
    for target in targets:
        for extra in ([], ["--verify"], ["--json"]):
            rc, out, err = _run(capsys, "rekey", root, "--param", "key=a5", "--to", target, *extra)
            lines = err.strip().splitlines()
            assert rc == 1 and out == "", (target, out)
            assert len(lines) == 1 and lines[0].startswith("error: ") and msg in lines[0], (target, err)
    assert not (tmp_path / "k.bit").exists() and not (tmp_path / "p.bin").exists()
    rc, out, err = _run(capsys, "codegen", root, "--out", tmp_path / "gen")
    assert rc == 1 and len(err.strip().splitlines()) == 1 and err.startswith("error: ") and msg in err, err
    assert not (tmp_path / "gen").exists()


@pytest.mark.parametrize("case", ["ppc.aig output literal", "frame map of seed 2", "build.json deleted"])
def test_refusal_in_a_real_process(kx, tmp_path, case):
    """The same refusal from ``python -m dcsflow.scg`` and the flow's pass-through ``dcsflow rekey``."""
    root = _copy(kx, tmp_path)
    tamper, msg = TAMPER[case]
    tamper(root, kx)
    for cmd in ([sys.executable, "-m", "dcsflow.scg"], [sys.executable, "-m", "dcsflow.flow"]):
        for args in (["rekey", root, "--param", "key=a5", "--to", "emulator", "--verify"],
                     ["codegen", root, "--out", tmp_path / "gen"]):
            r = subprocess.run([*cmd, *map(str, args)], capture_output=True, text=True, cwd=tmp_path)
            assert r.returncode == 1 and r.stdout == "", r.stdout
            assert r.stderr.startswith("error: ") and msg in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr


def test_untouched_build_rekeys_and_specializes(kx, tmp_path, capsys):
    rc, out, err = _run(capsys, "rekey", kx[0], "--param", "key=a5", "--to", "emulator", "--verify")
    assert rc == 0 and "read-back verified" in out and err == ""
    assert "keyxor" in specialize_to_file(kx[0], ["key=a5"], None)


def test_other_format_version_is_named(kx, tmp_path, capsys):
    root = _copy(kx, tmp_path)
    bj = json.loads((root / "build.json").read_text())
    bj["version"] = BUILD_VERSION + 1
    (root / "build.json").write_text(json.dumps(bj))
    rc, _, err = _run(capsys, "rekey", root, "--param", "key=a5")
    assert rc == 1 and err.strip() == (f"error: {root}: build folder of format version {BUILD_VERSION + 1}; this "
                                       f"dcsflow reads version {BUILD_VERSION}: rebuild it with dcsflow build")
    bj["version"], bj["format"] = BUILD_VERSION, "something-else"
    (root / "build.json").write_text(json.dumps(bj))
    with pytest.raises(BuildFolderError, match="not a dcsflow-build manifest"):
        load_build(root)
    (root / "build.json").write_text("{truncated")
    with pytest.raises(BuildFolderError, match="corrupted build manifest"):
        load_build(root)


def _json_edit(path: Path, fn) -> None:
    doc = json.loads(path.read_text())
    fn(doc)
    path.write_text(json.dumps(doc))


# checks behind the file hashes: the folder is resealed (build.json records the changed files; True:
# ppc.json the hash of ppc.aig too, "files": build.json only), as if the flow itself had written
# inconsistent files; each must still be refused with one line
def _fm(fn):
    return lambda root: _json_edit(root / "tlut" / "framemap.json", fn)


DEEPER = {
    "ppc.json of another PPC": (lambda root: _json_edit(root / "ppc.json", lambda d: d.update(sha256="0" * 64)),
                                "PPC hash does not match ppc.json", "files"),
    "ppc.json format": (lambda root: _json_edit(root / "ppc.json", lambda d: d.update(version=2)),
                        "ppc.json is not a dcsflow-build-ppc version 1 manifest", True),
    "ppc.json output count": (lambda root: _json_edit(root / "ppc.json", lambda d: d.update(outputs=d["outputs"] + 1)),
                              "PPC outputs, ppc.aig has", True),
    "frame map of another design": (_fm(lambda d: d.update(design_hash="1" * 64)),
                                    "design hash of tlut/framemap.json differs from build.json", True),
    "frame map of another device": (_fm(lambda d: d.update(idcode="0x0362D093")), "is not xc7z020's", True),
    "frame map format": (_fm(lambda d: d.update(format="dcsflow-frames")), "not a dcsflow-frame-map version 1", True),
    "frame map entry out of range": (_fm(lambda d: d["entries"][0].__setitem__(1, 101)), "out of range", True),
    "frame map PPC outputs": (_fm(lambda d: d.update(ppc_outputs=d["ppc_outputs"] - 1)),
                              "frame map names", True),
    "frame map not listed": (lambda root: _json_edit(root / "build.json", lambda d: d["files"].pop("tlut/framemap.json")),
                             "build.json lists no tlut/framemap.json", False),
    "file outside the folder": (lambda root: _json_edit(root / "build.json",
                                                        lambda d: d["files"].update({"../x": "0" * 64})),
                                "corrupted build manifest", False),
}


@pytest.mark.parametrize("case", sorted(DEEPER))
def test_inconsistent_build_is_refused(kx, tmp_path, capsys, case):
    root = _copy(kx, tmp_path)
    change, msg, seal = DEEPER[case]
    change(root)
    if seal:
        reseal(root, ppc_hash=seal != "files")
    rc, out, err = _run(capsys, "rekey", root, "--param", "key=a5", "--to", f"bitfile:{tmp_path / 'k.bin'}")
    assert rc == 1 and out == "" and err.startswith("error: ") and msg in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "k.bin").exists()
    rc, _, err = _run(capsys, "codegen", root, "--out", tmp_path / "gen")
    assert rc == 1 and msg in err


def test_rekey_never_parses_the_template_netlist(kx, tmp_path, capsys):
    """A resealed folder whose template.json is not JSON: rekey and codegen work (they do not read it);
    specialize, which needs the netlist, refuses it."""
    root = _copy(kx, tmp_path)
    (root / "template.json").write_text("not json")
    reseal(root)
    rc, out, err = _run(capsys, "rekey", root, "--param", "key=a5", "--to", "emulator", "--verify")
    assert rc == 0 and "read-back verified" in out, err
    rc, out, err = _run(capsys, "codegen", root, "--out", tmp_path / "gen")
    assert rc == 0, err
    with pytest.raises(BuildFolderError, match="corrupted template netlist"):
        specialize_to_file(root, ["key=a5"], None)


def test_specialize_never_reads_the_template_frames(kx, tmp_path, capsys):
    root = _copy(kx, tmp_path)
    (root / "tlut" / "template.frm").write_text("garbage\n")
    reseal(root)
    assert "keyxor" in specialize_to_file(root, ["key=a5"], None)
    rc, _, err = _run(capsys, "rekey", root, "--param", "key=a5")
    assert rc == 1 and "template.frm" in err and len(err.splitlines()) == 1, err


def test_template_netlist_of_another_ppc_is_refused(kx, tmp_path):
    root = _copy(kx, tmp_path)

    def other_ppc(doc):
        doc["modules"]["keyxor"]["attributes"]["dcs_ppc_sha256"] = "2" * 64

    _json_edit(root / "template.json", other_ppc)
    reseal(root)
    with pytest.raises(BuildFolderError, match="PPC hash does not match the template netlist"):
        specialize_to_file(root, ["key=a5"], None)


def test_lazy_parts_are_not_read_until_used(kx):
    b = load_build(kx[0])
    assert not {"ppc", "module", "framemap", "entries", "template"} & set(vars(b))
    assert b.top == "keyxor" and b.device.name == "xc7z020" and b.ports == {"key": 8}
    assert "module" not in vars(b) and "template" not in vars(b)
    assert len(b.entries) == 24 * 64 and b.fars == sorted(b.fars, key=b.device.far_index.get)
    assert "module" not in vars(b)
    assert set(b.tlut_entries) <= set(b.module["cells"])


# ------------------------------------------------------------------------------------ template links
# The template configuration a rekey applies is tied to the build: the logic-only template's header
# names the build's design hash, and an imported Vivado template is named by build.json (file, hash,
# import record) and its record names the build. Each case below passes the file-hash check (the
# folder is resealed) and must be refused with one line by rekey (every target) and codegen.
TARGETS = ("emulator", "bitfile:{t}/k.bit", "partial:{t}/p.bin", "devmem:0@{t}/regs", "fpgamgr")


def _refused_everywhere(capsys, root: Path, tmp_path: Path, msg: str) -> None:
    (tmp_path / "regs").write_bytes(bytes(4096))
    for target in TARGETS:
        rc, out, err = _run(capsys, "rekey", root, "--param", "key=a5", "--to", target.format(t=tmp_path), "--verify")
        assert (rc, out) == (1, ""), (target, out)
        assert err.startswith("error: ") and msg in err and len(err.splitlines()) == 1, (target, err)
    rc, out, err = _run(capsys, "codegen", root, "--out", tmp_path / "gen")
    assert (rc, out) == (1, "") and err.startswith("error: ") and msg in err and len(err.splitlines()) == 1, err
    assert not any((tmp_path / n).exists() for n in ("k.bit", "p.bin", "gen"))
    assert (tmp_path / "regs").read_bytes() == bytes(4096)


def _frm_header_hash(root: Path, new_hash: str) -> None:
    p = root / "tlut" / "template.frm"
    head, rest = p.read_text().split("\n", 1)
    old = head.split("design_hash=")[1].split()[0]
    p.write_text(head.replace(old, new_hash) + "\n" + rest)


def test_template_of_another_design_is_refused(kx, tmp_path, capsys):
    """A template.frm whose header names another design hash is never applied (not even with
    build.json rehashed), and neither is another design's template file as a whole."""
    root = _copy(kx, tmp_path)
    _frm_header_hash(root, "3" * 64)
    reseal(root)
    _refused_everywhere(capsys, root, tmp_path, "is the template of another design")
    from dcsflow.scg._synthetic import make_build

    other = make_build(tmp_path / "syn")
    root2 = tmp_path / "b2"
    shutil.copytree(kx[0], root2)
    shutil.copyfile(other / "tlut" / "template.frm", root2 / "tlut" / "template.frm")
    reseal(root2)
    _refused_everywhere(capsys, root2, tmp_path, "is the template of another design")


def test_template_header_without_design_hash_is_refused(kx, tmp_path, capsys):
    root = _copy(kx, tmp_path)
    p = root / "tlut" / "template.frm"
    head, rest = p.read_text().split("\n", 1)
    p.write_text(head.split(" design_hash=")[0] + "\n" + rest)
    reseal(root)
    _refused_everywhere(capsys, root, tmp_path, "names no design hash")


@pytest.fixture(scope="module")
def imported(builds, shared, tmp_path_factory):
    """keyxor with the Vivado back end, its build.json before the import, and a copy after the
    import of what Vivado would give back (the project's writer on pynq-z1_base.bit)."""
    from _buildcache import KEYXOR_VIVADO

    from dcsflow.scg.bitstream import read_file
    from dcsflow.scg.vivado_import import import_vivado, synthetic_vivado_result

    root = tmp_path_factory.mktemp("kximp")
    out = root / "b"
    shutil.copytree(builds.get("keyxor-vivado", **KEYXOR_VIVADO), out)
    before = (out / "build.json").read_bytes()
    bit, cells = synthetic_vivado_result(out, read_file(shared / "bitstreams" / "pynq-z1_base.bit").frames, root)
    import_vivado(out, bit, cells)
    return out, before


def _imp_copy(imported, tmp_path) -> Path:
    dst = tmp_path / "imp"
    shutil.copytree(imported[0], dst)
    return dst


def test_imported_manifest_names_template_and_record(imported, tmp_path, capsys):
    root = imported[0]
    t = json.loads((root / "build.json").read_text())["template"]
    files = json.loads((root / "build.json").read_text())["files"]
    assert t["file"] == "tlut/imported/template.bit" and t["record"] == "tlut/imported/import.json"
    assert t["bitstream_sha256"] == files[t["file"]] == hashlib.sha256((root / t["file"]).read_bytes()).hexdigest()
    assert t["record_sha256"] == files[t["record"]] == hashlib.sha256((root / t["record"]).read_bytes()).hexdigest()
    b = load_build(root)
    assert b.imported and b.template_dir == root / "tlut" / "imported"
    rc, out, err = _run(capsys, "rekey", root, "--param", "key=a5", "--to", "emulator", "--verify")
    assert rc == 0 and "read-back verified" in out, err


def _drop_template(root: Path, unlist: bool) -> None:
    def edit(d):
        d.pop("template")
        if unlist:
            for n in [n for n in d["files"] if n.startswith("tlut/imported/")]:
                d["files"].pop(n)
    _json_edit(root / "build.json", edit)


def _edit_record(root: Path, fn) -> None:
    _json_edit(root / "tlut" / "imported" / "import.json", fn)
    reseal(root)
    _json_edit(root / "build.json",
               lambda d: d["template"].update(record_sha256=d["files"]["tlut/imported/import.json"]))


IMPORT_CASES = {
    "build.json from before the import": (lambda root, before: (root / "build.json").write_bytes(before),
                                          "holds a Vivado import that build.json does not name"),
    "template entry deleted": (lambda root, before: _drop_template(root, False),
                               "holds a Vivado import that build.json does not name"),
    "template entry and its files unlisted": (lambda root, before: _drop_template(root, True),
                                              "holds a Vivado import that build.json does not name"),
    "template entry without the record": (
        lambda root, before: _json_edit(root / "build.json",
                                        lambda d: [d["template"].pop(k) for k in ("record", "record_sha256")]),
        "template is not the imported Vivado template"),
    "import record of another design": (
        lambda root, before: _edit_record(root, lambda d: d.update(design_hash="4" * 64)),
        "import.json records another design_hash"),
    "import record of another bitstream": (
        lambda root, before: _edit_record(root, lambda d: d.update(bitstream_sha256="5" * 64)),
        "import.json records another bitstream_sha256"),
    "import record of another format": (lambda root, before: _edit_record(root, lambda d: d.update(version=2)),
                                        "not a dcsflow-import version 1 record"),
}


@pytest.mark.parametrize("case", sorted(IMPORT_CASES))
def test_imported_build_with_broken_link_is_refused(imported, tmp_path, capsys, case):
    """An imported build whose manifest, template link or import record disagree is refused: never
    the logic-only template in the routed bitstream's place."""
    root = _imp_copy(imported, tmp_path)
    change, msg = IMPORT_CASES[case]
    change(root, imported[1])
    _refused_everywhere(capsys, root, tmp_path, msg)
    with pytest.raises(BuildFolderError, match=msg):
        load_build(root)


def test_rebuild_drops_an_earlier_import(imported, tmp_path, capsys):
    """A build that writes build.json again removes the import it no longer names (the folder stays
    readable, with the logic-only template)."""
    from _buildcache import KEYXOR_VIVADO

    from dcsflow.flow.build import BuildOptions, build

    root = _imp_copy(imported, tmp_path)
    opts = {k: v for k, v in KEYXOR_VIVADO.items() if k != "base"}
    build(BuildOptions(out=root, progress=False, **{**opts, "start": "outputs"}))
    assert not (root / "tlut" / "imported").exists()
    b = load_build(root)
    assert not b.imported and "template" not in b.manifest
    rc, out, err = _run(capsys, "rekey", root, "--param", "key=a5", "--to", "emulator", "--verify")
    assert rc == 0 and "read-back verified" in out, err


@pytest.mark.parametrize("case", ["build.json from before the import", "template entry without the record",
                                  "import record of another design"])
def test_a_broken_import_link_is_imported_anew(imported, builds, shared, tmp_path, capsys, case):
    """The refusal says "run dcsflow import again": that works, whatever the earlier link."""
    from dcsflow.scg.bitstream import read_file
    from dcsflow.scg.vivado_import import import_vivado, synthetic_vivado_result

    root = _imp_copy(imported, tmp_path)
    IMPORT_CASES[case][0](root, imported[1])
    with pytest.raises(BuildFolderError, match="run dcsflow import again"):
        load_build(root)
    bit, cells = synthetic_vivado_result(root, read_file(shared / "bitstreams" / "pynq-z1_base.bit").frames, tmp_path)
    import_vivado(root, bit, cells)
    assert load_build(root).imported
    rc, out, err = _run(capsys, "rekey", root, "--param", "key=a5", "--to", "emulator", "--verify")
    assert rc == 0 and "read-back verified" in out, err
