"""Vivado back end without Vivado: export (netlist read back by Yosys and simulated on official
vectors, Tcl syntax-checked by tclsh against UG835 option lists), import of a bitstream made by the
project's writer from the real pynq-z1_base.bit (positive and negative cases), partial and full
specialized bitstreams, the FPGA-manager transport and the PCAP_PR switch."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from itertools import combinations
from pathlib import Path

import pytest

from _vivado_golden import assert_matches_golden
from dcsflow.flow import netlist as nl
from dcsflow.flow.backend.verify import check_frames
from dcsflow.flow.backend.vivado import load_board
from dcsflow.scg.vivado_import import VivadoImportError, import_vivado, physical_init, synthetic_vivado_result
from dcsflow.designs.picipher.check import select_vectors
from dcsflow.flow.check import prepare_check, simulate_vectors
from dcsflow.flow.design import CheckOptions
from dcsflow.flow.specialize import load_build, tlut_values
from dcsflow.flow.yosys import cells_sim, run_script
from dcsflow.scg import buildfolder as bf, driver as drv, plan as pl, rekey as rk, transports as tr
from dcsflow.scg.bitstream import FrameMemory, parse, read_file, to_bit, write_full
from dcsflow.scg.emulator import ConfigEmulator
from dcsflow.scg.lut import expand, template_init, template_table

#: reads the main job's build (tests/_buildcache.py): scheduled after the other tests
pytestmark = pytest.mark.demo_builds

BASE_BIT = ("bitstreams", "pynq-z1_base.bit")


# ------------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def pi(builds):
    """picipher through the Vivado back end (PYNQ-Z1 board): the session's picipher build continued
    from the back end (shared: tests alter copies)."""
    return builds.get("picipher-vivado", base=("picipher", {"design": "picipher"}), design="picipher",
                      start="backend", backend="vivado", board="pynq-z1")


@pytest.fixture(scope="module")
def base_frames(shared):
    return read_file(shared.joinpath(*BASE_BIT)).frames


@pytest.fixture(scope="module")
def vectors(tmp_path_factory):
    """Two official 96-bit-key vectors (short messages) as a vector file: keeps the simulations short."""
    from dcsflow.designs.picipher.vectors import load_official

    vecs = [v for v in select_vectors(load_official(96), 96) if len(v.msg) in (7, 24)][:2]
    assert len(vecs) == 2
    text = "".join("\n".join([f"[vector #{v.number} ({v.number})]", f"KEY ({len(v.key)}) = {v.key.hex().upper()}",
                              f"NPUB (4) = {v.pmn.hex().upper()}", f"MSG ({len(v.msg)}) = {v.msg.hex().upper()}",
                              "AD (0) = ", f"CIPHER ({len(v.cipher)}) = {v.cipher.hex().upper()}", ""])
                   for v in vecs)
    p = tmp_path_factory.mktemp("vec") / "v.txt"
    p.write_text(text)
    return p


def _plan(out: Path) -> dict:
    return json.loads((out / "vivado" / "tluts.json").read_text())


def _fake_vivado(out: Path, base: FrameMemory, tmp: Path, mutate_frames=None, mutate_dump=None):
    """What Vivado would give back (see synthetic_vivado_result)."""
    return synthetic_vivado_result(out, base, tmp, mutate_frames, mutate_dump)


def _folder_hash(root: Path) -> str:
    """Every path and file under ``root``; of the build folder's lock file only that it is there (it
    holds the pid of the last command that took the lock, as a refused import does)."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        h.update(str(p.relative_to(root)).encode())
        if p.is_file() and not (p.name == ".lock" and p.parent == root):
            h.update(p.read_bytes())
    return h.hexdigest()


# ------------------------------------------------------------------------------------ template INIT
def _bit(t, x):
    return (t >> x) & 1


@pytest.mark.parametrize("k", range(1, 7))
def test_template_init_full_support_and_asymmetric(k):
    t = template_table(k)
    n = 1 << k
    assert t == template_table(k) and 0 < t < (1 << n) - 1
    for i in range(k):          # depends on input i: some pattern flips the output when i flips
        assert any(_bit(t, x) != _bit(t, x ^ (1 << i)) for x in range(n)), (k, i)
    for i, j in combinations(range(k), 2):      # exchanging inputs i and j changes the function
        def sw(x):
            bi, bj = (x >> i) & 1, (x >> j) & 1
            return (x & ~((1 << i) | (1 << j))) | (bj << i) | (bi << j)
        assert any(_bit(t, x) != _bit(t, sw(x)) for x in range(n)), (k, i, j)
    init = template_init(k)
    assert all(_bit(init, x) == _bit(t, x % n) for x in range(64))     # repeated over unused pins
    # any exchange of two physical pins (used or not) changes the 64-bit INIT seen in the frames
    for i, j in combinations(range(6), 2):
        perm = list(range(k))
        perm = [j if p == i else i if p == j else p for p in perm]
        assert expand(t, k, perm) != init or (i >= k and j >= k)


# ------------------------------------------------------------------------------------ export
def test_export_files_and_xdc_order(pi):
    plan = _plan(pi)
    fm = json.loads((pi / "tlut" / "framemap.json").read_text())
    assert {(p["site"], p["bel"]) for p in plan["cells"]} == {(t["site"], t["bel"]) for t in fm["tluts"]}
    assert plan["part"] == "xc7z020clg400-1" and len(plan["cells"]) == 128
    xdc = (pi / "vivado" / "constraints.xdc").read_text().splitlines()
    assert "create_clock -period 8.000 -name dcs_clk [get_ports {clk}]" in xdc
    assert any("PACKAGE_PIN H16" in ln and "{clk}" in ln for ln in xdc)
    assert any("PACKAGE_PIN D19" in ln and "{rst}" in ln for ln in xdc)
    for p in plan["cells"]:
        c = f"[get_cells {{{p['cell']}}}]"
        i_bel = xdc.index(f"set_property BEL {p['bel']} {c}")
        i_loc = xdc.index(f"set_property LOC {p['site']} {c}")
        assert i_bel < i_loc
        assert f"set_property LOCK_PINS {{I0:A1 I1:A2 I2:A3 I3:A4 I4:A5 I5:A6}} {c}" in xdc
        assert f"set_property DONT_TOUCH TRUE {c}" in xdc
    bd = (pi / "vivado" / "block_design.tcl").read_text()
    assert "0x40020000" in bd and "picipher_mp" in bd
    assert load_board("pynq-z1").hwicap_base == 0x40020000


def test_export_equals_golden_files(pi):
    """Every file the templates write (constraints.xdc, tlut_placement.xdc, build.tcl, dump_tluts.tcl,
    block_design.tcl, dcs_axil_wrapper.v) equals, byte for byte, the output of the implementation
    before the templates (tests/data/vivado/picipher_pynq-z1/, SOURCES.md there)."""
    assert_matches_golden(pi / "vivado", "picipher_pynq-z1", {"tluts.json", "netlist.v"})


def _readback(pi: Path, tmp: Path) -> dict:
    # hierarchy -check: every cell is a Xilinx primitive of the cell library with matching ports
    run_script(f"read_verilog -lib -specify {cells_sim()}\nread_verilog {pi / 'vivado' / 'netlist.v'}\n"
               f"hierarchy -check -top picipher_mp\nproc\nwrite_json {tmp / 'rb.json'}\n", tmp, "readback")
    return json.loads((tmp / "rb.json").read_text())["modules"]["picipher_mp"]


def test_netlist_read_back_by_yosys_and_simulates_like_the_build(pi, tmp_path, vectors):
    plan = _plan(pi)
    mod = _readback(pi, tmp_path)
    for p in plan["cells"]:
        c = mod["cells"][p["cell"]]
        a = c["attributes"]
        assert c["type"] == "LUT6" and int(c["parameters"]["INIT"], 2) == int(p["init"], 16)
        assert a["LOC"] == p["site"] and a["BEL"] == p["bel"] and a["DONT_TOUCH"] == "TRUE"
        assert a["LOCK_PINS"].replace(" ", "") == "I0:A1,I1:A2,I2:A3,I3:A4,I4:A5,I5:A6"
    # the exported netlist with each TLUT's INIT specialized per vector passes the official vectors
    setup = prepare_check(pi, CheckOptions(vectors=vectors))
    b = setup.build
    mod["parameter_default_values"] = b.module.get("parameter_default_values", {})
    inits = tlut_values(b, setup.circuit_values())
    cell_of = {p["tlut"]: (p["cell"], p["k"]) for p in plan["cells"]}

    def netlist_for(i, broken=False):
        ov = {cell_of[t][0]: expand(v, cell_of[t][1], list(range(cell_of[t][1]))) for t, v in inits[i].items()}
        if broken:      # control: one TLUT left at its template INIT must make the simulation fail
            ov.pop(plan["cells"][0]["cell"])
        return nl.write_verilog(mod, b.top, ov)

    res = simulate_vectors(setup, netlist_for, "exported", progress=False)
    assert (res.passed, res.total) == (2, 2), res.failures
    bad = simulate_vectors(setup, lambda i: netlist_for(i, True), "broken", progress=False)
    assert bad.passed < bad.total


# UG835 (Vivado Design Suite Tcl Command Reference) options of every command the Tcl files use.
UG835 = {
    "read_verilog": "-library -sv -quiet -verbose",
    "read_xdc": "-cells -ref -quiet_diff_pairs -mode -unmanaged -quiet -verbose",
    "link_design": "-name -part -constrset -top -mode -pr_config -reconfig_partitions -partitions -quiet -verbose",
    "opt_design": "-retarget -propconst -sweep -bram_power_opt -remap -aggressive_remap -resynth_area "
                  "-resynth_seq_area -directive -muxf_remap -hier_fanout_limit -bufg_opt -shift_register_opt "
                  "-dsp_register_opt -srl_remap_modes -control_set_merge -merge_equivalent_drivers -carry_remap "
                  "-debug_log -property_opt_only -quiet -verbose",
    "place_design": "-directive -no_timing_driven -timing_summary -unplace -post_place_opt -no_psip -no_bufg_opt "
                    "-quiet -verbose",
    "route_design": "-unroute -release_memory -nets -physical_nets -pins -directive -tns_cleanup -no_timing_driven "
                    "-preserve -delay -auto_delay -max_delay -min_delay -timing_summary -finalize -ultrathreads "
                    "-eco -quiet -verbose",
    "report_utilization": "-file -append -pblocks -cells -return_string -slr -packthru -name -no_primitives "
                          "-omit_locs -hierarchical -hierarchical_depth -hierarchical_percentages -quiet -verbose",
    "report_timing_summary": "-check_timing_verbose -delay_type -no_detailed_paths -setup -hold -pulse_width "
                             "-max_paths -nworst -unique_pins -path_type -input_pins -no_pr_attribute -file "
                             "-append -name -routable_nets -return_string -warn_on_violation -cells -rpx "
                             "-slack_lesser_than -report_unconstrained -significant_digits -no_header -quiet -verbose",
    "write_checkpoint": "-force -cell -logic_locked -encrypt -key -incremental_synth -quiet -verbose",
    "write_bitstream": "-force -raw_bitfile -no_binary_bitfile -mask_file -readback_file -logic_location_file "
                       "-bin_file -reference_bitfile -cell -no_partial_bitfile -quiet -verbose",
    "set_property": "-dict -quiet -verbose",
    "get_property": "-min -max -quiet -verbose",
    "get_drc_checks": "-of_objects -regexp -nocase -filter -abbrev -quiet -verbose",
    "get_cells": "-hsc -hierarchical -regexp -nocase -filter -of_objects -match_style "
                 "-include_replicated_objects -quiet -verbose",
    "get_pins": "-hsc -hierarchical -regexp -nocase -leaf -filter -of_objects -match_style "
                "-include_replicated_objects -quiet -verbose",
    "get_bel_pins": "-regexp -nocase -filter -of_objects -quiet -verbose",
    "get_ports": "-regexp -nocase -filter -of_objects -match_style -scoped_to_current_instance "
                 "-prop_thru_buffers -quiet -verbose",
    "current_design": "-quiet -verbose",
    "create_clock": "-period -name -waveform -add -quiet -verbose",
    # project mode and IP integrator (block_design.tcl)
    "create_project": "-part -force -in_memory -ip -rtl_kernel -quiet -verbose",
    "add_files": "-fileset -of_objects -norecurse -scan_for_includes -copy_to -force -quiet -verbose",
    "update_compile_order": "-fileset -quiet -verbose",
    "create_bd_design": "-dir -cell -mode -bdsource -quiet -verbose",
    "create_bd_cell": "-vlnv -type -reference -quiet -verbose",
    "apply_bd_automation": "-rule -dict -config -opts -quiet -verbose",
    "get_bd_cells": "-regexp -hierarchical -filter -of_objects -quiet -verbose",
    "get_bd_intf_pins": "-regexp -hierarchical -filter -of_objects -quiet -verbose",
    "get_bd_pins": "-regexp -hierarchical -filter -of_objects -quiet -verbose",
    "connect_bd_net": "-net -boundary_type -quiet -verbose",
    "assign_bd_address": "-target_address_space -boundary -combine_segments -export_to_file -export_gui_to_file "
                         "-external -dict -import_from_file -offset -range -force -quiet -verbose",
    "get_bd_addr_spaces": "-regexp -hierarchical -filter -of_objects -quiet -verbose",
    "get_bd_addr_segs": "-regexp -hierarchical -filter -of_objects -addressables -excluded -quiet -verbose",
    "validate_bd_design": "-force -design -quiet -verbose",
    "save_bd_design": "-quiet -verbose",
    "make_wrapper": "-files -top -testbench -inst_template -fileset -import -force -quiet -verbose",
    "get_files": "-regexp -nocase -filter -compile_order -used_in -references -of_objects -all -quiet -verbose",
    "current_fileset": "-constrset -simset -quiet -verbose",
    "launch_runs": "-jobs -scripts_only -dir -to_step -next_step -pre_launch_script -post_launch_script -force "
                   "-host -remote_cmd -email_to -email_all -custom_script -quiet -verbose",
    "wait_on_run": "-timeout -quiet -verbose",
    "open_run": "-name -pr_config -quiet -verbose",
}
# options that take no value (the rest take one)
FLAGS = {"-sv", "-quiet", "-verbose", "-force", "-hierarchical", "-regexp", "-nocase", "-no_timing_driven",
         "-bin_file", "-dict", "-norecurse", "make_wrapper-top"}

STUBS = r"""
array set ug835 $UG835
array set props {}
set calls {}
proc dcs_opts {cmd argv} {
    global ug835 FLAGS calls
    set pos {}
    set opts {}
    for {set i 0} {$i < [llength $argv]} {incr i} {
        set a [lindex $argv $i]
        if {[string index $a 0] eq "-" && ![string is double $a]} {
            if {[lsearch -exact $ug835($cmd) $a] < 0} { error "$cmd: option $a not in UG835" }
            if {([lsearch -exact $FLAGS $a] >= 0 || [lsearch -exact $FLAGS $cmd$a] >= 0) && $a ne "-dict"} {
                dict set opts $a 1
            } else {
                incr i; dict set opts $a [lindex $argv $i]
            }
        } else { lappend pos $a }
    }
    lappend calls $cmd
    return [list $opts $pos]
}
foreach cmd [array names ug835] { proc $cmd args "return \[dcs_$cmd {*}\$args\]" }
proc dcs_generic {cmd argv} { dcs_opts $cmd $argv; return "" }
foreach cmd {read_verilog read_xdc opt_design place_design route_design report_utilization
             report_timing_summary write_checkpoint write_bitstream create_clock} {
    proc dcs_$cmd args "dcs_generic $cmd \$args"
}
proc dcs_create_project args {
    global part
    lassign [dcs_opts create_project $args] o p
    set part [dict get $o -part]
}
foreach cmd {add_files update_compile_order create_bd_design create_bd_cell apply_bd_automation
             get_bd_cells get_bd_intf_pins get_bd_pins connect_bd_net assign_bd_address get_bd_addr_spaces
             get_bd_addr_segs validate_bd_design save_bd_design make_wrapper get_files current_fileset launch_runs
             wait_on_run open_run} {
    proc dcs_$cmd args "lassign \[dcs_opts $cmd \$args\] o p; return \[lindex \$p 0\]"
}
proc dcs_link_design args {
    global part
    lassign [dcs_opts link_design $args] o p
    set part [dict get $o -part]
}
proc dcs_current_design args { dcs_opts current_design $args; return design_1 }
proc dcs_get_ports args { lassign [dcs_opts get_ports $args] o p; return [lindex $p 0] }
proc dcs_get_drc_checks args { lassign [dcs_opts get_drc_checks $args] o p; return [lindex $p 0] }
proc dcs_get_cells args { lassign [dcs_opts get_cells $args] o p; return [lindex $p 0] }
proc dcs_get_pins args {
    lassign [dcs_opts get_pins $args] o p
    set c [dict get $o -of_objects]
    set out {}
    foreach q {0 1 2 3 4 5} { lappend out $c/I$q }
    return $out
}
proc dcs_get_bel_pins args {
    global props
    lassign [dcs_opts get_bel_pins $args] o p
    set parts [split [dict get $o -of_objects] /]
    set c [lindex $parts end-1]
    set pin [lindex $parts end]
    foreach pair $props($c,LOCK_PINS) {
        lassign [split $pair :] l ph
        if {$l eq $pin} { return "$props($c,LOC)/$props($c,BEL)/$ph" }
    }
    return ""
}
proc dcs_set_property args {
    global props
    lassign [dcs_opts set_property $args] o p
    if {[dict exists $o -dict]} {
        foreach obj [lindex $p 0] { foreach {k v} [dict get $o -dict] { set props($obj,$k) $v } }
    } else {
        lassign $p k v objs
        foreach obj $objs { set props($obj,$k) $v }
    }
}
proc dcs_get_property args {
    global props part
    lassign [dcs_opts get_property $args] o p
    lassign $p k obj
    if {$k eq "PART"} { return $part }
    if {$k eq "NAME"} { return "design_1_i/dcs/inst/core" }
    set obj [lindex [split $obj /] end]
    if {$k eq "REF_PIN_NAME"} { return [lindex [split $obj /] end] }
    if {$k eq "BEL"} { return "SLICEL.$props($obj,BEL)" }
    return $props($obj,$k)
}
"""


def _stubbed_tcl(pi: Path, tmp_path: Path, xdc: str, tcl: str):
    """Copy vivado/, run ``xdc`` then ``tcl`` in tclsh with the UG835 stubs; returns (result, folder, plan).
    The dump those files write must pass import's dump check (asserted when tclsh succeeded)."""
    from dcsflow.scg.vivado_import import check_dump
    from dcsflow.scg.device import get_device

    if not shutil.which("tclsh"):
        pytest.fail("tclsh missing (Debian package tcl)")
    viv = tmp_path / "vivado"
    if not viv.exists():
        shutil.copytree(pi / "vivado", viv)
    plan = _plan(pi)
    inits = " ".join(f"{p['cell']},INIT 64'h{p['init']}" for p in plan["cells"])
    ug = " ".join(f"{k} {{{v}}}" for k, v in UG835.items())
    script = (f"set UG835 {{{ug}}}\nset FLAGS {{{' '.join(sorted(FLAGS))}}}\n" + STUBS
              + f"foreach {{k v}} {{{inits}}} {{ set props($k) $v }}\n"
              # the Tcl reads the XDC through read_xdc / add_files; run it as Tcl too (XDC is a Tcl subset)
              + f"source {viv / xdc}\nsource {viv / tcl}\nputs [lsort -unique $calls]\n")
    (tmp_path / "run.tcl").write_text(script)
    r = subprocess.run(["tclsh", str(tmp_path / "run.tcl")], capture_output=True, text=True)
    if r.returncode == 0:
        dump = json.loads((viv / "tlut_cells.json").read_text())
        assert check_dump(plan, dump, viv / "tlut_cells.json", get_device("xc7z020")) == []
    return r, viv, plan


def test_tcl_syntax_check_with_ug835_stubs(pi, tmp_path):
    """Syntax check only: tclsh runs build.tcl (which reads the XDC as Tcl and sources
    dump_tluts.tcl) with one stub per Vivado command; each stub rejects option names not in UG835's
    list for that command. The dump the stubs make must then pass import's dump check."""
    r, viv, _ = _stubbed_tcl(pi, tmp_path, "constraints.xdc", "build.tcl")
    assert r.returncode == 0, r.stderr
    for cmd in ("link_design", "opt_design", "place_design", "route_design", "write_bitstream",
                "write_checkpoint", "report_utilization", "report_timing_summary", "get_bel_pins"):
        assert cmd in r.stdout
    # a misspelt option is caught by the stubs
    (viv / "build.tcl").write_text((viv / "build.tcl").read_text().replace("-bin_file", "-binfile"))
    r, _, _ = _stubbed_tcl(pi, tmp_path, "constraints.xdc", "build.tcl")
    assert r.returncode != 0 and "-binfile not in UG835" in r.stderr


def test_block_design_tcl_syntax_check(pi, tmp_path):
    """Syntax check of block_design.tcl (project mode, IP integrator) with the same UG835 stubs; its
    dump (cells below the block design's hierarchy, $dcs_prefix) passes import's dump check."""
    r, viv, _ = _stubbed_tcl(pi, tmp_path, "tlut_placement.xdc", "block_design.tcl")
    assert r.returncode == 0, r.stderr
    for cmd in ("create_bd_cell", "apply_bd_automation", "assign_bd_address", "launch_runs", "get_bel_pins"):
        assert cmd in r.stdout
    text = (viv / "block_design.tcl").read_text()
    assert "xilinx.com:ip:axi_hwicap" in text and "0x40020000" in text and "SCOPED_TO_REF picipher_mp" in text


def test_arty_board_export(pi, tmp_path):
    """The Arty A7-35T board file drives part, pins and clock period (the picipher TLUT sites, which
    exist on xc7a35t too, stand in for an xc7a35t placement); a board of another device is refused."""
    from dcsflow.flow.backend import BackendError
    from dcsflow.flow.backend.vivado import export_vivado
    from dcsflow.scg.device import get_device

    top = "picipher_mp"
    module = json.loads((pi / "tlut" / "netlist.json").read_text())["modules"][top]
    tluts = json.loads((pi / "tlut" / "framemap.json").read_text())["tluts"]
    files = export_vivado(tmp_path, module, top, tluts, get_device("xc7a35t"), "h", load_board("arty-a7-35"),
                          ["key_mn"])
    assert "vivado/block_design.tcl" not in files        # no processor on the Arty
    plan = _plan(tmp_path)
    assert plan["part"] == "xc7a35ticsg324-1L" and plan["device"] == "xc7a35t" and plan["hwicap_base"] is None
    xdc = (tmp_path / "vivado" / "constraints.xdc").read_text()
    assert "PACKAGE_PIN E3" in xdc and "PACKAGE_PIN C2" in xdc and "-period 10.000" in xdc
    assert "link_design -top picipher_mp -part xc7a35ticsg324-1L" in (tmp_path / "vivado" / "build.tcl").read_text()
    with pytest.raises(BackendError, match="pynq-z1 carries xc7z020"):
        export_vivado(tmp_path, module, top, tluts, get_device("xc7a35t"), "h", load_board("pynq-z1"))


def test_block_design_only_for_a_top_with_the_board_ports(pi, tmp_path):
    """block_design.tcl and the wrapper need a board with a block design, a non-empty board_ports
    set that the top has in full, and exactly one parameter port; the build passes picipher's
    BOARD_PORTS (designs/picipher/board.py)."""
    from dcsflow.designs.picipher.board import BOARD_PORTS
    from dcsflow.flow.backend.vivado import export_vivado
    from dcsflow.scg.device import get_device

    top = "picipher_mp"
    module = json.loads((pi / "tlut" / "netlist.json").read_text())["modules"][top]
    tluts = json.loads((pi / "tlut" / "framemap.json").read_text())["tluts"]
    z020, a35 = get_device("xc7z020"), get_device("xc7a35t")
    pynq, arty = load_board("pynq-z1"), load_board("arty-a7-35")
    bd = ["vivado/block_design.tcl", "vivado/dcs_axil_wrapper.v"]
    cases = [("board_ports", z020, pynq, BOARD_PORTS, ["key_mn"], True),
             ("no_board_ports", z020, pynq, frozenset(), ["key_mn"], False),
             ("a_port_missing", z020, pynq, BOARD_PORTS | {"irq"}, ["key_mn"], False),
             ("two_parameter_ports", z020, pynq, BOARD_PORTS, ["key_mn", "mode"], False),
             ("no_parameter_port", z020, pynq, BOARD_PORTS, [], False),
             ("board_without_block_design", a35, arty, BOARD_PORTS, ["key_mn"], False)]
    for name, dev, board, ports, params, want in cases:
        out = tmp_path / name
        files = export_vivado(out, module, top, tluts, dev, "h", board, params, board_ports=ports)
        assert all((f in files) == want and (out / f).exists() == want for f in bd), name
    assert (tmp_path / "board_ports" / "vivado" / "block_design.tcl").read_bytes() == \
        (pi / "vivado" / "block_design.tcl").read_bytes()


def _icap_dma_export(pi: Path, out: Path) -> list[str]:
    """picipher's Vivado files with --transport icap-dma (PYNQ-Z1, its board ports) into ``out``."""
    from dcsflow.designs.picipher.board import BOARD_PORTS
    from dcsflow.flow.backend.vivado import export_vivado
    from dcsflow.scg.device import get_device

    top = "picipher_mp"
    module = json.loads((pi / "tlut" / "netlist.json").read_text())["modules"][top]
    tluts = json.loads((pi / "tlut" / "framemap.json").read_text())["tluts"]
    design_hash = json.loads((pi / "build.json").read_text())["design_hash"]
    return export_vivado(out, module, top, tluts, get_device("xc7z020"), design_hash, load_board("pynq-z1"),
                         ["key_mn"], board_ports=BOARD_PORTS, transport="icap-dma")


def test_icap_dma_export_equals_golden_files(pi, tmp_path):
    """--transport icap-dma: the block design has the ICAP stream controller on M_AXI_GP0 and S_AXI_HP0 in
    place of the AXI HWICAP (tests/data/vivado/picipher_pynq-z1_icap-dma/, SOURCES.md there); the other
    files equal the AXI HWICAP export's golden copies; the plan says the transport; the generated top carries the
    build's BUILD_ID and the words of its rekey as the runtime counts them."""
    from dcsflow.scg.icapdma import build_id_of

    files = _icap_dma_export(pi, tmp_path)
    assert {"vivado/dcs_icap_dma.v", "vivado/dcs_icap_dma_top.v", "vivado/block_design.tcl"} <= set(files)
    same = ("constraints.xdc", "tlut_placement.xdc", "build.tcl", "dump_tluts.tcl", "dcs_axil_wrapper.v")
    assert_matches_golden(tmp_path / "vivado", "picipher_pynq-z1_icap-dma",
                          {"tluts.json", "netlist.v", "dcs_icap_dma.v", "dcs_icap_dma_top.v"},
                          borrowed={n: "picipher_pynq-z1" for n in same})
    assert _plan(tmp_path)["transport"] == "icap-dma" and _plan(pi)["transport"] == "hwicap"
    b = bf.load_build(pi)
    top = (tmp_path / "vivado" / "dcs_icap_dma_top.v").read_text()
    assert f".BUILD_ID(32'h{build_id_of(b.design_hash):08x})" in top
    assert f".REKEY_WORDS(32'd{drv.rekey_icap_words(b.runs, b.idcode)})" in top
    assert (tmp_path / "vivado" / "dcs_icap_dma.v").read_text() == (
        Path(nl.__file__).parent / "templates" / "icapdma" / "dcs_icap_dma.v").read_text()
    # a later AXI HWICAP export of the same folder removes the controller's files
    from dcsflow.designs.picipher.board import BOARD_PORTS
    from dcsflow.flow.backend.vivado import export_vivado
    from dcsflow.scg.device import get_device

    module = json.loads((pi / "tlut" / "netlist.json").read_text())["modules"]["picipher_mp"]
    tluts = json.loads((pi / "tlut" / "framemap.json").read_text())["tluts"]
    export_vivado(tmp_path, module, "picipher_mp", tluts, get_device("xc7z020"), b.design_hash, load_board("pynq-z1"),
                  ["key_mn"], board_ports=BOARD_PORTS)
    assert not (tmp_path / "vivado" / "dcs_icap_dma.v").exists()


def test_icap_dma_block_design_tcl_syntax_check(pi, tmp_path):
    """The icap-dma block design through the UG835 stubs, its dump checked as import checks it."""
    root = tmp_path / "export"
    _icap_dma_export(pi, root)
    r, viv, _ = _stubbed_tcl(root, tmp_path, "tlut_placement.xdc", "block_design.tcl")
    assert r.returncode == 0, r.stderr
    text = (viv / "block_design.tcl").read_text()
    assert "axi_hwicap" not in text and "-reference dcs_icap_dma_top icapdma" in text and "S_AXI_HP0" in text


def test_icap_dma_needs_a_board_with_a_block_design(pi, tmp_path):
    from dcsflow.flow.backend import BackendError
    from dcsflow.flow.backend.vivado import export_vivado
    from dcsflow.scg.device import get_device

    module = json.loads((pi / "tlut" / "netlist.json").read_text())["modules"]["picipher_mp"]
    tluts = json.loads((pi / "tlut" / "framemap.json").read_text())["tluts"]
    with pytest.raises(BackendError, match="no block design"):
        export_vivado(tmp_path, module, "picipher_mp", tluts, get_device("xc7a35t"), "h", load_board("arty-a7-35"),
                      ["key_mn"], transport="icap-dma")


def test_codegen_of_an_icap_dma_build_selects_the_firmware_driver(pi, tmp_path):
    """The plan of an icap-dma export makes codegen define SCG_GEN_ICAP_DMA (the Makefile then builds the
    stream controller's driver); an AXI HWICAP build's does not."""
    from dcsflow.scg.buildfolder import sha256_file
    from dcsflow.scg.codegen import codegen

    b2 = tmp_path / "pi"
    shutil.copytree(pi, b2)
    _icap_dma_export(pi, b2)
    bj = json.loads((b2 / "build.json").read_text())
    bj["files"].update({n: sha256_file(b2 / n) for n in bj["files"] if n.startswith("vivado/")})
    (b2 / "build.json").write_text(json.dumps(bj, indent=1) + "\n")
    codegen(b2, tmp_path / "gen")
    h = (tmp_path / "gen" / "scg_gen.h").read_text()
    assert "#define SCG_GEN_ICAP_DMA 1" in h and "#define SCG_GEN_HWICAP_BASE 0x40020000u" in h
    codegen(pi, tmp_path / "gen0")
    assert "SCG_GEN_ICAP_DMA" not in (tmp_path / "gen0" / "scg_gen.h").read_text()


def test_codegen_takes_hwicap_base_from_board(pi, tmp_path):
    from dcsflow.scg.codegen import codegen

    codegen(pi, tmp_path)
    assert "#define SCG_GEN_HWICAP_BASE 0x40020000u" in (tmp_path / "scg_gen.h").read_text()
    fw = Path(__file__).resolve().parent.parent / "firmware"
    r = subprocess.run(["gcc", "-E", "-dM", "-I", str(tmp_path), "-I", str(fw), str(fw / "board_main.c")],
                       capture_output=True, text=True, check=True)
    assert "#define HWICAP_BASE SCG_GEN_HWICAP_BASE" in r.stdout


# ------------------------------------------------------------------------------------ import
@pytest.fixture(scope="module")
def imported(pi, base_frames, tmp_path_factory):
    out = tmp_path_factory.mktemp("imp") / "pi"
    shutil.copytree(pi, out)
    bit, cells = _fake_vivado(out, base_frames, out.parent)
    res = import_vivado(out, bit, cells)
    return out, res


def test_import_links_template_and_check_frames_passes(imported, vectors, base_frames):
    out, res = imported
    assert res.tluts == 128
    bj = json.loads((out / "build.json").read_text())
    assert bj["template"]["folder"] == "tlut/imported" and "tlut/imported/template.bit" in bj["files"]
    load_build(out)                                         # hashes re-linked: the manifest check passes
    b = bf.load_build(out)
    assert b.imported
    tl_fars = {f for f, _, _, _ in b.entries}
    far = next(f for f in base_frames.nonzero_fars() if f not in tl_fars)
    assert b.template.frame(far) == base_frames.frame(far)        # the rest is Vivado's configuration
    assert (out / "tlut" / "template.frm").read_text().splitlines()[0].endswith("logic-only")   # fallback kept
    r = check_frames(out, CheckOptions(vectors=vectors), progress=False)
    assert (r.passed, r.total) == (2, 2), r.failures


def test_partial_on_imported_template_equals_full_bitstream(imported, tmp_path, dcsflow):
    out, _ = imported
    b = bf.load_build(out)
    key = "0123456789ABCDEF0011223344556677"
    r = dcsflow("rekey", out, "--param", f"key_mn={key}", "--to", f"partial:{tmp_path / 'p.bin'}", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    part = parse((tmp_path / "p.bin").read_bytes())
    assert d["bytes"] == (tmp_path / "p.bin").stat().st_size and d["bitstream"] == "partial"
    assert d["frames"] == 4 and len(b.runs) == 1
    # the touched frames + one pad frame, nothing else
    assert part.fdri_frames == 5 and sorted(part.frames.written_fars()) == sorted(b.fars) and part.crc_ok
    rk.rekey(b, {"key_mn": int(key, 16)}, f"bitfile:{tmp_path / 'f.bit'}")
    full = read_file(tmp_path / "f.bit")
    assert not full.is_partial
    emu = ConfigEmulator(b.device, b.template.copy())
    emu.write_words(part.words)
    assert emu.frames.diff(full.frames) == []
    assert emu.frames.diff(b.template) == sorted(b.fars, key=b.device.far_index.get)


@pytest.mark.parametrize("case", ["moved_bel", "moved_site_bitstream_only", "pins_swapped", "pins_swapped_dump_only",
                                  "init_bit", "unknown_cell", "missing_cell"])
def test_import_rejects_differences(pi, base_frames, tmp_path, case):
    out = tmp_path / "pi"
    shutil.copytree(pi, out)
    plan = _plan(out)
    p0 = plan["cells"][0]
    other = next(p for p in plan["cells"] if p["k"] >= 2)
    bels = ("A6LUT", "B6LUT", "C6LUT", "D6LUT")
    target = bels[(bels.index(p0["bel"]) + 1) % 4]       # another BEL of the same slice
    q = next((p for p in plan["cells"] if (p["site"], p["bel"]) == (p0["site"], target)), None)

    def move_bel(mem, plan):      # p0 on `target`; the TLUT that sat there (if any) takes p0's BEL
        mem.set_lut(p0["site"], p0["bel"], physical_init(q["k"], q["pin_map"]) if q else 0)
        mem.set_lut(p0["site"], target, physical_init(p0["k"], p0["pin_map"]))

    def move_bel_dump(d):
        for c in d["cells"]:
            if c["name"] == p0["cell"]:
                c["bel"] = "SLICEL." + target
            elif q is not None and c["name"] == q["cell"]:
                c["bel"] = "SLICEL." + p0["bel"]

    def move_site(mem, plan):
        mem.set_lut(p0["site"], p0["bel"], 0)
        mem.set_lut("SLICE_X0Y0", "A6LUT", physical_init(p0["k"], p0["pin_map"]))

    swapped = dict(other["pin_map"], I0=other["pin_map"]["I1"], I1=other["pin_map"]["I0"])

    def swap(mem, plan):
        mem.set_lut(other["site"], other["bel"], physical_init(other["k"], swapped))

    def swap_dump(d):
        c = next(c for c in d["cells"] if c["name"] == other["cell"])
        c["pins"] = dict(swapped)
        c["lock_pins"] = " ".join(f"{k}:{v}" for k, v in swapped.items())

    def flip(mem, plan):
        mem.set_lut(p0["site"], p0["bel"], physical_init(p0["k"], p0["pin_map"]) ^ (1 << 5))

    cases = {"moved_bel": (move_bel, move_bel_dump, [p0["cell"], f"BEL SLICEL.{target}, planned {p0['bel']}"]),
             "moved_site_bitstream_only": (move_site, None, [p0["cell"], "differ"]),
             "pins_swapped": (swap, swap_dump, [other["cell"], "LOCK_PINS"]),
             "pins_swapped_dump_only": (None, swap_dump, [other["cell"], "logical pin I0 on physical A2"]),
             "init_bit": (flip, None, [p0["cell"], "bits 5 differ"]),
             "unknown_cell": (None, lambda d: d["cells"].append(dict(d["cells"][0], name="nosuchcell")),
                              ["nosuchcell", "does not have"]),
             "missing_cell": (None, lambda d: d["cells"].pop(), [plan["cells"][-1]["cell"], "missing"])}
    mf, md, words = cases[case]
    bit, cells = _fake_vivado(out, base_frames, tmp_path, mf, md)
    before = _folder_hash(out)
    with pytest.raises(VivadoImportError) as e:
        import_vivado(out, bit, cells)
    for w in words:
        assert w in str(e.value), str(e.value)
    assert _folder_hash(out) == before


def test_import_bitstream_only_pin_swap_is_seen(pi, base_frames, tmp_path):
    """A pin swap visible only in the frames (dump claims the planned pins) is named as such."""
    out = tmp_path / "pi"
    shutil.copytree(pi, out)
    other = next(p for p in _plan(out)["cells"] if p["k"] >= 2)
    sw = dict(other["pin_map"], I0=other["pin_map"]["I1"], I1=other["pin_map"]["I0"])
    bit, cells = _fake_vivado(out, base_frames, tmp_path,
                              lambda mem, plan: mem.set_lut(other["site"], other["bel"], physical_init(other["k"], sw)))
    with pytest.raises(VivadoImportError, match=f"{other['cell']} .*pins I0 and I1 swapped"):
        import_vivado(out, bit, cells)


def test_import_bad_inputs_cli(pi, base_frames, tmp_path, dcsflow):
    out = tmp_path / "pi"
    shutil.copytree(pi, out)
    bit, cells = _fake_vivado(out, base_frames, tmp_path)
    a35 = tmp_path / "a35.bit"
    a35.write_bytes(to_bit(write_full(FrameMemory("xc7a35t")), part="7a35tcsg324"))
    trunc = tmp_path / "trunc.bit"
    trunc.write_bytes(bit.read_bytes()[:1_000_000])
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{not json")
    before = _folder_hash(out)
    for args, what in [((a35, cells), "xc7a35t"), ((trunc, cells), "truncated"),
                       ((bit, bad_json), "malformed TLUT dump"), ((bit, tmp_path / "none.json"), "missing"),
                       ((tmp_path / "none.bit", cells), "cannot read")]:
        r = dcsflow("import", out, "--bit", args[0], "--cells", args[1])
        assert r.returncode == 1 and r.stderr.startswith("error:") and what in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert _folder_hash(out) == before
    r = dcsflow("import", out, "--bit", bit, "--cells", cells, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["tluts"] == 128


# ------------------------------------------------------------------------------------ transports
def test_fpga_manager_transport_fake_sysfs(imported, tmp_path):
    out, _ = imported
    b = bf.load_build(out)
    sysfs, fw = tmp_path / "sys", tmp_path / "firmware"
    sysfs.mkdir()
    fw.mkdir()
    (sysfs / "flags").write_text("0\n")
    (sysfs / "firmware").write_text("")
    fm = tr.FpgaManager(str(sysfs), str(fw), keep=True)
    key = {"key_mn": 0xFEDCBA9876543210_0123456789ABCDEF}
    res = rk.rekey(b, key, "fpgamgr:k.bin", fpga_manager=fm)
    assert (sysfs / "flags").read_text().strip() == "1" and (sysfs / "firmware").read_text().strip() == "k.bin"
    data = (fw / "k.bin").read_bytes()
    assert data[:8] == b"\xff\xff\xff\xff\xbb\x00\x00\x00" and oct((fw / "k.bin").stat().st_mode)[-3:] == "600"
    swapped = b"".join(data[i:i + 4][::-1] for i in range(0, len(data), 4))      # to UG470 big-endian
    bs = parse(swapped)
    assert res.extra["bytes"] == len(data) and bs.fdri_frames == len(b.fars) + len(b.runs)
    assert {f: bs.frames.frame(f) for f in b.fars} == pl.plan(b, key).frames
    rk.rekey(b, key, "fpgamgr:k2.bin", fpga_manager=tr.FpgaManager(str(sysfs), str(fw)))
    assert not (fw / "k2.bin").exists()                      # key material not left behind
    with pytest.raises(rk.RekeyError, match="no Linux FPGA manager"):
        rk.rekey(b, key, "fpgamgr", fpga_manager=tr.FpgaManager(str(tmp_path / "nosys"), str(fw)))


def test_hwicap_init_clears_pcap_pr_on_fake_devmem(imported, tmp_path):
    """The Linux FPGA manager leaves devcfg CTRL.PCAP_PR (bit 27) set; the HWICAP transport clears it
    (other CTRL bits kept) before talking to the ICAP. /dev/mem is a sparse file here."""
    out, _ = imported
    b = bf.load_build(out)
    mem = tmp_path / "mem"
    with open(mem, "wb") as f:
        f.truncate(tr.DEVCFG_BASE + 0x1000)
    with open(mem, "r+b") as f:
        f.seek(tr.DEVCFG_BASE)
        f.write((0x4C00_0001).to_bytes(4, "little"))
    devcfg = tr.DevMemBus(tr.DEVCFG_BASE, str(mem))
    s = drv.HwicapSession(tr.make_emulator(b), b.idcode)
    s.init(devcfg)
    with open(mem, "rb") as f:
        f.seek(tr.DEVCFG_BASE)
        assert int.from_bytes(f.read(4), "little") == 0x4400_0001


# ------------------------------------------------------------------------------------ block design wrapper
def test_block_design_axi_lite_wrapper_encrypts(pi, tmp_path, vectors):
    """The PYNQ-Z1 block design's AXI-Lite wrapper around the specialized netlist, driven by AXI
    register accesses in Icarus (the test bench of tests/_axi_tb.py), gives an official vector's
    CIPHER (ciphertext || tag), decrypts it with the right tag and refuses a flipped tag bit."""
    from _axi_tb import run_wrapper

    from dcsflow.designs.picipher.vectors import read_vectors
    from dcsflow.flow.specialize import specialized_verilog

    v = read_vectors(vectors, check=False)[0]
    b = load_build(pi)
    (tmp_path / "spec.v").write_text(specialized_verilog(b, {"key_mn": int.from_bytes(v.key + v.pmn, "big")}))
    r = run_wrapper(tmp_path, 16, [pi / "vivado" / "dcs_axil_wrapper.v", tmp_path / "spec.v", cells_sim()],
                    v.key, v.pmn, v.msg, rtl=False)
    assert r["cipher"] == v.cipher
    assert r["plain"] == v.msg and r["tag_ok"][1:] == [1, 0]
