"""The π-Cipher message processor's side of ``dcsflow check`` (a :class:`dcsflow.flow.check.DesignCheck`).

For every vector without AD and SMN, one specialized netlist (Key‖PMN differs per vector) is
simulated with Icarus Verilog against Yosys's ``xilinx/cells_sim.v``, driven by the message-processor
test bench ``tb/tb_picipher.v`` (stimulus/result formats in its header). Output = ciphertext ‖ tag
must equal the vector's CIPHER. The stimulus carries a zero parameter value: the test bench's key
port is unused (the TLUT netlist does not read it; the key is in the LUT contents).
Default vectors: the official no-AD/no-SMN vectors of the design's word and key size (π16: 25 per key
size; π32: 49; π64: 97).
"""

from __future__ import annotations

from pathlib import Path

from dcsflow.fileio import write_text_atomic
from dcsflow.flow.design import CheckError, CheckOptions, DesignCheck
from dcsflow.flow.simulate import icarus, last_output
from dcsflow.flow.yosys import cells_sim

from .sim import TB_FILE, message_words
from .vectors import load_official, read_vectors


def select_vectors(vectors: list, key_bits: int, word_bits: int = 16) -> list:
    """Vectors the message processor can run: no AD, no SMN, the design's word and key size."""
    return [v for v in vectors if not v.ad and v.smn is None and len(v.key) * 8 == key_bits
            and getattr(v, "word_bits", 16) == word_bits]


def simulate_netlist(work: Path, verilog: str, key_bits: int, cis: bool, msg: bytes,
                     word_bits: int = 16) -> tuple[bytes, bytes, int]:
    """Encrypt ``msg`` with a specialized netlist (Verilog text, written with mode 0600 into the
    private folder ``work``). Returns (output bytes, tag, cycles); cycles -1 on a test-bench
    timeout, tag ``b"x"`` when the outputs carry x/z bits (a wrong netlist, not a tool failure).

    Raises:
        SimulatorError: Icarus missing or failing.
    """
    return simulate_messages(work, verilog, key_bits, cis, [msg], word_bits)[0]


def simulate_messages(work: Path, verilog: str, key_bits: int, cis: bool, msgs: list[bytes],
                      word_bits: int = 16) -> list[tuple[bytes, bytes, int]]:
    """Encrypt the messages ``msgs`` one after the other in one simulation of a netlist (Verilog
    text, written with mode 0600 into the private folder ``work``), each message entering once the
    one before has ended (its done pulse). Returns per message (output bytes, tag, cycles) as
    :func:`simulate_netlist`; a message the simulation did not reach gets cycles -1.

    Raises:
        SimulatorError: Icarus missing or failing.
    """
    net = work / "netlist.v"
    write_text_atomic(net, verilog, private=True)
    stim = [f"picipher-stim 1 {len(msgs)}"]
    for msg in msgs:
        words, last = message_words(msg, word_bits)      # a block is word_bits bytes (8 words)
        stim += [f"0 {len(words)} {last} 0 0"] + [f"{w:04x}" for w in words]
    (work / "stim.txt").write_text("\n".join(stim) + "\n")
    res = work / "res.txt"
    params = {"KEY_BITS": key_bits, "BUFFER_KEY": 0}
    if word_bits != 16:
        params = {"W": word_bits, **params}
    r = icarus([net, TB_FILE, cells_sim()], work, parameters=params,
           defines={"CIS": None} if cis else None, plusargs=[f"+in={work / 'stim.txt'}", f"+out={res}"])
    if not res.exists():
        raise CheckError("vvp wrote no result file" + last_output(r))
    results = []
    out, xz = bytearray(), False
    for line in res.read_text().splitlines():
        f = line.split()
        if not f or len(results) >= len(msgs):
            continue
        if f[0] == "TIMEOUT":
            break
        try:
            if f[0] == "W":
                w = int(f[1], 16)
                out += bytes((w & 0xFF, w >> 8))
            elif f[0] == "D":
                tag = int(f[2], 16).to_bytes(word_bits, "big")      # 8 words of ω bits = ω bytes
                results.append((b"", b"x", 0) if xz else (bytes(out[:len(msgs[len(results)])]), tag, int(f[1])))
                out, xz = bytearray(), False
        except ValueError:              # x/z bits in the output: a wrong netlist, not a tool failure
            if f[0] == "D":
                results.append((b"", b"x", 0))
                out, xz = bytearray(), False
            else:
                xz = True
    return results + [(b"", b"", -1)] * (len(msgs) - len(results))


def pi16_check(build, options: CheckOptions, *, key_bits: int, cis: bool, word_bits: int = 16) -> DesignCheck:
    """:class:`DesignCheck` of a π-Cipher message-processor build (module docstring); the name is
    historical: ``word_bits`` selects π16 (default), π32 or π64.

    Raises:
        CheckError: the build's parameter is not the design's, no usable vector in the file, or a
            record without AD and SMN of another word size or key size than the design's.
        VectorFileError, ChecksumError: unreadable or corrupted vector file.
    """
    pmn_bits = 32 if word_bits == 16 else 128
    want = {"cis_param": 24 * word_bits + 64} if cis else {"key_mn": key_bits + pmn_bits}
    if dict(build.manifest["params"]) != want:
        raise CheckError(f"{build.path}: a π{word_bits} check needs the parameter {want}, the build has "
                         f"{dict(build.manifest['params'])}")
    vecs = (read_vectors(options.vectors, check=False) if options.vectors
            else load_official(key_bits, word_bits))
    for v in vecs:                      # a record the design cannot take is an error, not a skip
        if v.ad or v.smn is not None:
            continue
        w = getattr(v, "word_bits", 16)
        if w != word_bits:
            raise CheckError(f"vector #{v.number} is a π{w}-Cipher record; design expects π{word_bits}-Cipher")
        if len(v.key) * 8 != key_bits:
            raise CheckError(f"vector #{v.number} has a {len(v.key) * 8}-bit key; design expects {key_bits}")
    vecs = select_vectors(vecs, key_bits, word_bits)
    if not vecs:
        raise CheckError(f"no π{word_bits}-Cipher vectors without AD and SMN with a {key_bits}-bit key")

    def run_group(work: Path, verilog: str, top: str, group: list):
        oks, cycles = [], []
        for v, (out, tag, cyc) in zip(group, simulate_messages(work, verilog, key_bits, cis, [v.msg for v in group],
                                                                word_bits)):
            ok = out + tag == v.cipher
            oks.append((ok, "" if ok else "timeout" if cyc < 0 else "output differs"))
            cycles.append((len(v.msg), cyc))
        return oks, cycles

    groups = [({"key_mn": int.from_bytes(v.key + v.pmn, "big")}, [i]) for i, v in enumerate(vecs)]
    return DesignCheck(vecs, groups, lambda v: f"#{v.number}", run_group, vector_file=options.vectors)
