"""The ICAPE2 stream controller (``flow/templates/icapdma/dcs_icap_dma.v``) under Icarus: a rekey's words
read from an AXI4 memory model (or taken from its AXI4-Stream input) into the ICAPE2 behavioural model
(``dcs_icape2_model.v``), whose configuration memory afterwards must equal the Python emulator's
(:class:`dcsflow.scg.emulator.ConfigEmulator`, an independent implementation of the same UG470 packet
semantics) word for word; the bad inputs the controller handles; Verilator's lint; ``synth_xilinx``.

Expected values: the words are made by the runtime (:func:`dcsflow.scg.icapdma.rekey_stream`, the AXI
HWICAP driver's sequence) from a real build (keyxor, the flow's small test design) and from synthetic
builds; what the controller puts on the port is compared with the Python model of the controller
(:class:`dcsflow.scg.icapdma.IcapDmaModel`), and what the port did to the configuration memory with the
emulator fed the same words; the bit order on the bus with ICAPE2.md's fact (AA995566 is 5599AA66).
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from _buildcache import KEYXOR
from dcsflow.flow import icapdma as fi
from dcsflow.flow.icapdma import MEMORY_BASE, Script, simulate
from dcsflow.scg import buildfolder as bf, icapdma as ic, plan as pl
from dcsflow.scg._synthetic import make_build
from dcsflow.scg.bitstream import FrameMemory, partial_stream_words
from dcsflow.scg.emulator import ConfigEmulator
from dcsflow.tools import find_tool, has_tool

pytestmark = pytest.mark.skipif(not (has_tool("iverilog") and has_tool("vvp")),
                                reason="Icarus Verilog not installed ($DCSFLOW_IVERILOG)")

#: the emulator's counters the model must reproduce
STATS = ("words", "packets", "frames_written", "pad_frames", "dropped_frames", "crc_checks", "crc_errors",
         "bad_headers", "ignored_writes")


def frames_of(emu: ConfigEmulator) -> dict:
    """FAR -> (written, words) of every frame the emulator wrote or holds nonzero (as the model dumps)."""
    mem = emu.frames
    return {f: (mem.written[mem.device.far_index[f]], mem.frame(f))
            for f in set(mem.nonzero_fars()) | set(mem.written_fars())}


def assert_memory_equal(sim: fi.SimResult, emu: ConfigEmulator) -> None:
    """The model's configuration memory and counters equal the emulator's, word for word."""
    want = frames_of(emu)
    assert set(sim.frames) == set(want), "frames written or set differ"
    bad = [f"0x{f:08X}" for f in want if sim.frames[f] != want[f]]
    assert not bad, f"{len(bad)} frames differ: {bad[:5]}"
    assert {k: sim.stat[k] for k in STATS} == {k: emu.stats[k] for k in STATS}
    assert (sim.stat["id_error"], sim.stat["crc_error"]) == (int(emu.id_error), int(emu.crc_error))


def line_words(n: int) -> int:
    return -(-n // 16) * 16


class Image:
    """Streams placed at 64-byte aligned word offsets of one memory image."""

    def __init__(self):
        self.words: list = []
        self.at: dict = {}

    def add(self, name: str, words: list) -> int:
        self.at[name] = len(self.words)
        self.words += list(words) + [0] * (line_words(len(words)) - len(words))
        return self.at[name]

    def address(self, name: str) -> int:
        return MEMORY_BASE + 4 * self.at[name]

    def memory(self) -> ic.PhysMemory:
        m = ic.PhysMemory(MEMORY_BASE, 4 * len(self.words))
        m.write_words(self.words)
        return m


def run_model(model: ic.IcapDmaModel, address: int, length: int, abort_at=None) -> tuple[int, int]:
    """One transfer of the Python model: CLEAR, ADDRESS, LENGTH, START, STATUS until not BUSY;
    returns (STATUS, WORDS_SENT)."""
    model.abort_at = abort_at
    model.write(ic.CONTROL, ic.CLEAR)
    model.write(ic.ADDRESS, address)
    model.write(ic.LENGTH, length)
    model.write(ic.CONTROL, ic.START)
    st = model.read(ic.STATUS)
    while st & ic.BUSY:
        st = model.read(ic.STATUS)
    return st, model.read(ic.WORDS_SENT)


def fdri_header(layout: ic.StreamLayout, runs: list, run: int) -> int:
    """Index of the FDRI type-2 header of run ``run`` (the word before its first frame, which is
    committed two frames after its start)."""
    first = sum(len(r) for r in runs[:run])
    return layout.frames[first][1] - 2 * 101 - 1


# ------------------------------------------------------------------------------------ scenarios
@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    """The synthetic build (6 TLUT sites and 7 affine ones: 5 runs of frames, two clock-region rows)."""
    return bf.load_build(make_build(tmp_path_factory.mktemp("icapdma") / "b"))


@pytest.fixture(scope="module")
def scenarios(synth, tmp_path_factory):
    """One simulation of eleven transfers through a controller with REKEY_WORDS 0: normal ones, a
    bus error inside an FDRI packet, a LENGTH that cuts a packet, ABORT in mid-stream, a misaligned
    ADDRESS, an ADDRESS outside the memory, a stream without its DESYNC, a partial bitstream with a
    CRC check (right and wrong) and a stream of another device's IDCODE. The Python model then runs
    the same transfers (the ABORT when the simulation took it) over the same memory and emulator."""
    b = synth
    keys = [0x1111, 0xBEEF, 0x7A5C, 0x0F0F]
    lay = [ic.rekey_stream(b, pl.plan(b, {"key": k}).frames) for k in keys]
    img = Image()
    img.add("A", lay[0].words)
    img.add("B", lay[1].words)
    img.add("C", lay[2].words)
    mem = FrameMemory(b.device)
    for far, fr in pl.plan(b, {"key": keys[3]}).frames.items():
        mem.set_frame(far, fr)
    crc_ok = list(partial_stream_words(mem, b.fars, crc=True))
    k = crc_ok.index(0x30000001)                             # type-1 write CRC, one word
    crc_bad = crc_ok[:k + 1] + [crc_ok[k + 1] ^ 0x10] + crc_ok[k + 2:]
    img.add("D", crc_ok)
    img.add("E", crc_bad)
    other = list(lay[0].words)
    for i, w in enumerate(other[:-1]):
        if w == 0x30018001:                                  # type-1 write IDCODE, one word
            other[i + 1] = 0x0362D093                        # xc7a35t's
    img.add("F", other)
    err_idx = lay[1].frames[len(b.runs[0]) + 1][1] - 30      # inside run 2's FDRI data
    n = len(lay[0].words)
    cut = fdri_header(lay[0], b.runs, len(b.runs) - 1) + 50
    assert lay[0].words[cut - 50] >> 29 == 2
    abort_after = lay[2].frames[len(b.runs[0])][1] + 5       # inside run 2's FDRI data
    outside = MEMORY_BASE + 4 * (len(img.words) + 64)
    plan = [("A", "A", n), ("B", "B", n), ("cut", "A", cut), ("abort", "C", n), ("misaligned", "A+4", n),
            ("outside", "out", n), ("no-desync", "A", n - 4), ("crc", "D", len(crc_ok)),
            ("crc-bad", "E", len(crc_bad)), ("idcode", "F", n), ("A again", "A", n)]
    addr = {"A+4": img.address("A") + 4, "out": outside, **{x: img.address(x) for x in "ABCDEF"}}
    sc = Script()
    for name, where, length in plan:
        sc.wr(ic.CONTROL, ic.CLEAR).wr(ic.ADDRESS, addr[where]).wr(ic.LENGTH, length).wr(ic.CONTROL, ic.START)
        if name == "abort":
            sc.wait_sent(abort_after).wr(ic.CONTROL, ic.ABORT)
        if name == "misaligned":
            sc.lines.append("repeat (20) @(posedge clk);")
        else:
            sc.wait_done()
        sc.rd(ic.STATUS, "status").rd(ic.WORDS_SENT, "sent")
    sim = simulate(img.words, b.device, tmp_path_factory.mktemp("sim"), template=b.template, script=sc,
                   error_word=img.at["B"] + err_idx)
    # the Python model of the controller over the same memory and a Python emulator
    memory = img.memory()
    memory.bad.add(img.address("B") + 4 * err_idx)
    emu = ConfigEmulator(b.device, b.template.copy())
    model = ic.IcapDmaModel(emu, memory)
    results = []
    for name, where, length in plan:
        results.append(run_model(model, addr[where], length, sim.abort_reqs[0] if name == "abort" else None))
    return {"sim": sim, "model": model, "emu": emu, "results": results, "plan": plan, "layouts": lay,
            "err_idx": err_idx, "cut": cut, "build": b}


def test_bit_order_on_the_bus(scenarios):
    """UG470's parallel bit order (ICAPE2.md): the dummy word, then the sync word AA995566 on I as 5599AA66."""
    bus = scenarios["sim"].bus
    assert bus[:2] == [0xFFFFFFFF, 0x5599AA66]


def test_port_words_and_status_equal_the_python_model(scenarios):
    """Every word the controller put on the port, where it signalled the ICAP abort, and STATUS and
    WORDS_SENT after every transfer equal the Python model's."""
    sim, model = scenarios["sim"], scenarios["model"]
    assert sim.port_words == model.sent
    assert sim.port_aborts == model.port_aborts and len(sim.port_aborts) == 1
    got = list(zip(sim.reads["status"], sim.reads["sent"]))
    assert got == scenarios["results"]


def test_each_bad_input_has_its_status(scenarios):
    """The status bits of every case (read from the simulation; the model agrees, above)."""
    n = len(scenarios["layouts"][0].words)
    st = dict(zip([p[0] for p in scenarios["plan"]], zip(scenarios["sim"].reads["status"],
                                                          scenarios["sim"].reads["sent"])))
    assert st["A"] == (ic.DONE, n) and st["A again"] == (ic.DONE, n)
    assert st["crc"][0] == st["crc-bad"][0] == st["idcode"][0] == ic.DONE
    assert st["B"] == (ic.DONE | ic.ERROR | ic.ERR_BUS | ic.PORT_ABORTED, scenarios["err_idx"])
    assert st["cut"] == (ic.DONE | ic.ERROR | ic.ERR_PACKET | ic.DESYNC_ADDED, scenarios["cut"] - 50)
    assert st["abort"][0] == ic.DONE | ic.ERROR | ic.ERR_ABORT | ic.DESYNC_ADDED
    assert st["misaligned"][0] == ic.ERROR | ic.ERR_START
    assert st["outside"] == (ic.DONE | ic.ERROR | ic.ERR_BUS, 0)
    assert st["no-desync"] == (ic.DONE | ic.DESYNC_ADDED, n - 4)


def test_configuration_memory_equals_the_emulator(scenarios):
    """After all eleven transfers the model's configuration memory (the whole device: every frame
    written or set at the start) and its counters equal the emulator's; the wrong CRC and the other
    IDCODE were seen by both."""
    sim, emu = scenarios["sim"], scenarios["emu"]
    assert_memory_equal(sim, emu)
    assert emu.crc_error and emu.id_error and emu.stats["crc_checks"] >= 2
    assert sim.stat["synced"] == 0 and sim.stat["aborts"] == 1


def test_the_frames_written_follow_from_words_sent(synth, scenarios):
    """frames_written(layout, WORDS_SENT) is what the emulator wrote when fed the words the port
    took: after the bus error (the ICAP abort drops the held frame) and after ABORT (the open FDRI
    packet finished: whole runs)."""
    b = synth
    for k, (name, sent) in enumerate(((n, s) for (n, _, _), (_, s) in zip(scenarios["plan"], scenarios["results"])
                                      if n in ("B", "abort"))):
        lay = scenarios["layouts"][1 if name == "B" else 2]
        emu = ConfigEmulator(b.device, FrameMemory(b.device))
        emu.write_words(lay.words[:sent])
        if name == "B":
            emu.abort()
        got = [f for f in b.fars if emu.frames.written[b.device.far_index[f]]]
        assert got == ic.frames_written(lay, sent) and got, name
        assert len(got) < len(b.fars)
        if name == "abort":
            done = ic.frames_written(lay, sent)
            assert {f for run in b.runs if run[-1] in done for f in run} == set(done), "whole runs only"


def test_axi_protocol_and_outstanding_reads(scenarios):
    """ARSIZE 4 bytes, INCR, 16 beats, no 4 KB crossing; never more than 8 bursts outstanding."""
    sim = scenarios["sim"]
    assert sim.protocol == []
    assert 2 <= sim.max_queue <= 8


# ------------------------------------------------------------------------------------ a real build
#: keyxor, the flow's small test design, through the Vivado back end with --transport icap-dma
KEYXOR_ICAP_DMA = {"base": ("keyxor", KEYXOR), "start": "backend", "backend": "vivado", "transport": "icap-dma",
                   "design": KEYXOR["design"]}


@pytest.fixture(scope="module")
def keyxor(builds):
    return builds.get("keyxor-icap-dma", **KEYXOR_ICAP_DMA)


def test_real_build_rekey_through_its_exported_controller(keyxor, tmp_path):
    """keyxor built with --backend vivado --transport icap-dma: the top the export wrote
    (vivado/dcs_icap_dma_top.v, REKEY_WORDS the build's) takes the runtime's words for a key from memory
    with a 50-cycle latency and random stalls on both AXI channels; the configuration memory afterwards
    equals the emulator's after the same words."""
    b = bf.load_build(keyxor)
    top = (keyxor / "vivado" / "dcs_icap_dma_top.v").read_text()
    assert json.loads((keyxor / "report.json").read_text())["backend"]["transport"] == "icap-dma"
    lay = ic.rekey_stream(b, pl.plan(b, {"key": 0xA5}).frames)
    n = len(lay.words)
    assert f"REKEY_WORDS {n}," in top
    sim = simulate(lay.words, b.device, tmp_path, template=b.template, stall_percent=30, latency=50, seed=7,
                   top_text=top)
    emu = ConfigEmulator(b.device, b.template.copy())
    emu.write_words(lay.words)
    assert_memory_equal(sim, emu)
    assert (sim.read("status"), sim.read("sent")) == (ic.DONE, n)
    assert sim.port_words == lay.words and sim.protocol == []
    assert len(lay.frames) == len(b.fars) == emu.stats["frames_written"]


def test_hundred_frames_at_one_word_per_cycle(tmp_path):
    """A 100-frame rekey (25 runs of 4 frames, 13,300 words) from memory with a 32-cycle latency:
    memory equal to the emulator's, and the transfer takes the words plus less than 100 cycles."""
    b = bf.load_build(make_build(tmp_path / "b", affine=False, sites=[(f"SLICE_X{x}Y10", "A6LUT") for x in range(25)]))
    lay = ic.rekey_stream(b, pl.plan(b, {"key": 0x3C3C}).frames)
    assert len(b.fars) == 100 and len(lay.words) == 13300
    sim = simulate(lay.words, b.device, tmp_path / "sim", template=b.template)
    emu = ConfigEmulator(b.device, b.template.copy())
    emu.write_words(lay.words)
    assert_memory_equal(sim, emu)
    assert sim.read("status") == ic.DONE
    assert len(lay.words) < sim.busy[0] < len(lay.words) + 100


# ------------------------------------------------------------------------------------ other tops
def test_stream_input_and_a_short_stream(synth, tmp_path):
    """STREAM_INPUT = 1: a whole stream, then one whose tlast comes inside an FDRI packet (ERR_SHORT,
    the ICAP abort); port words and memory as the Python model and the emulator have them."""
    b = synth
    lay = ic.rekey_stream(b, pl.plan(b, {"key": 0x4242}).frames)
    n = len(lay.words)
    short = lay.frames[2][1] - 40
    sc = Script()
    for length, beats in ((n, n), (n, short)):
        sc.wr(ic.CONTROL, ic.CLEAR).wr(ic.LENGTH, length).wr(ic.CONTROL, ic.START).stream(0, beats, beats - 1)
        sc.wait_done().rd(ic.STATUS, "status").rd(ic.WORDS_SENT, "sent")
    top = fi.top_verilog(0, 0, b.device.idcode, stream_input=True)
    sim = simulate(lay.words, b.device, tmp_path, template=b.template, script=sc, top_text=top)
    emu = ConfigEmulator(b.device, b.template.copy())
    model = ic.IcapDmaModel(emu, stream_input=True)
    results = []
    for beats in (n, short):
        model.stream = lay.words[:beats]
        results.append(run_model(model, 0, n))
    assert list(zip(sim.reads["status"], sim.reads["sent"])) == results == [
        (ic.DONE, n), (ic.DONE | ic.ERROR | ic.ERR_SHORT | ic.PORT_ABORTED, short)]
    assert sim.port_words == model.sent and sim.port_aborts == model.port_aborts
    assert_memory_equal(sim, emu)


def test_a_length_other_than_the_builds_is_refused(synth, tmp_path):
    """A controller generated for the build (REKEY_WORDS = its words per rekey): START with LENGTH one
    word short is refused (ERR_START, nothing on the port, no DONE); CLEAR and the right LENGTH work;
    BUILD_ID, REKEY_WORDS, MAGIC and INFO read as generated."""
    b = synth
    lay = ic.rekey_stream(b, pl.plan(b, {"key": 0x55}).frames)
    n = len(lay.words)
    top = fi.build_top(b)
    sc = Script().wr(ic.ADDRESS, MEMORY_BASE).wr(ic.LENGTH, n - 1).wr(ic.CONTROL, ic.START)
    sc.lines.append("repeat (50) @(posedge clk);")
    sc.rd(ic.STATUS, "refused").wr(ic.CONTROL, ic.CLEAR).rd(ic.STATUS, "cleared")
    sc.transfer(n)
    for off, tag in ((ic.BUILD_ID, "id"), (ic.REKEY_WORDS, "words"), (ic.MAGIC, "magic"), (ic.INFO, "info"),
                     (ic.ADDRESS, "address")):
        sc.rd(off, tag)
    sim = simulate(lay.words, b.device, tmp_path, template=b.template, script=sc, top_text=top)
    assert sim.read("refused") == ic.ERROR | ic.ERR_START and sim.read("cleared") == 0
    assert (sim.read("status"), sim.read("sent")) == (ic.DONE, n) and len(sim.bus) == n
    assert sim.read("id") == int(b.design_hash[:8], 16) and sim.read("words") == n
    assert (sim.read("magic"), sim.read("info"), sim.read("address")) == (0x49434441, 1, 0)
    assert f"REKEY_WORDS {n}," in top


# ------------------------------------------------------------------------------------ lint, synthesis
@pytest.mark.skipif(not has_tool("verilator"), reason="verilator not installed ($DCSFLOW_VERILATOR)")
@pytest.mark.parametrize("stream", [0, 1])
def test_verilator_lint_clean(stream):
    r = subprocess.run([find_tool("verilator"), "--lint-only", "-Wall", f"-GSTREAM_INPUT={stream}",
                        str(fi.CONTROLLER)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(not has_tool("yosys"), reason="Yosys not installed ($DCSFLOW_YOSYS)")
def test_synthesizes_to_one_block_ram(tmp_path):
    """synth_xilinx: the FIFO and the finishing words in one RAMB18; the LUT and FF counts are in the
    assertion message (benchmarks/icapdma_bench.py reports them)."""
    cost = fi.controller_cost(tmp_path)
    assert cost["ramb18"] == 1 and cost["luts"] > 0, cost
    stat = (tmp_path / "icap_dma_cost_stat.json").read_text()
    assert "$mem" not in stat and not re.search(r'"\$_', stat), "cells left unmapped: " + str(cost)


def test_bad_parameters_fail_elaboration(tmp_path):
    from dcsflow.flow.simulate import SimulatorError, icarus

    with pytest.raises(SimulatorError, match="dcs_icap_dma_bad_parameters"):
        icarus([fi.CONTROLLER], tmp_path, top="dcs_icap_dma", parameters={"MAX_BURSTS": 9})
