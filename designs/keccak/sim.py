"""Simulation driver of the Keccak RTL (``designs/keccak/rtl``) under Icarus Verilog.

:func:`run_hash` sends messages through ``keccak_core`` (SHA3-256 / SHAKE128 sponge, padding in
hardware; KMAC128 with the key and the customization string on the core's ports; Lake Keyak
operations, :class:`KeyakRequest`) with the test
bench ``tb/tb_keccak.v`` in ONE simulator process and returns, per message, the output bytes and
the handshake cycles. :func:`run_rounds` applies rounds of ``keccak_round``
to states with ``tb/tb_keccak_perm.v``. Both write the test bench's stimulus file and parse its
result file (formats in the test benches' headers); the expected values come from elsewhere
(``hashlib``, :mod:`dcsflow.designs.keccak.model`), never from these functions.

Words on the 128-bit interface: two lanes, byte k in bits [8k +: 8] (FIPS 202 lanes are
little-endian). Words never straddle a block: the rates are odd numbers of lanes (17, 21), so a
block's final word carries its last 8 bytes and the next word starts the next block
(:func:`message_words`); the final word carries the count of its valid bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dcsflow.flow.simulate import run_test_bench

from .errors import InputError, SimulationError, SimulatorMissing

HERE = Path(__file__).resolve().parent
RTL_DIR = HERE / "rtl"
TB_HASH = HERE / "tb" / "tb_keccak.v"
TB_PERM = HERE / "tb" / "tb_keccak_perm.v"

#: mode input of keccak_core
MODE_SHA3_256, MODE_SHAKE128, MODE_KMAC128, MODE_KEYAK = 0, 1, 2, 3
#: bytes per interface word (s_data, m_data: 128 bits)
WORD_BYTES = 16
#: rate in bytes per mode (Lake Keyak: the data bytes of a duplex block)
RATE = {MODE_SHA3_256: 136, MODE_SHAKE128: 168, MODE_KMAC128: 168, MODE_KEYAK: 168}
#: kop bits of keccak_core (Lake Keyak): start a session, unwrap, the message has a body, forget
KOP_START, KOP_UNWRAP, KOP_BODY, KOP_FORGET = 1, 2, 4, 8
#: Lake Keyak key pack (bytes) and longest key in it
KEYAK_PACK_BYTES, KEYAK_PACK_KEY = 30, 28
#: KMAC128 port limits: key bytes (key[255:0]) and customization bytes (custom[1255:0])
MAX_KEY, MAX_CUSTOM = 32, 157
#: largest message (words held by the test bench) and SHAKE output length (16-bit out_len)
MAX_WORDS, MAX_OUT_LEN = 8192, 0xFFFF


def rtl_files() -> list[Path]:
    """Verilog sources of the core (keccak_round.v with keccak_rc, keccak_core.v)."""
    return sorted(RTL_DIR.glob("*.v"))


@dataclass(frozen=True)
class HashRequest:
    """One message: ``mode`` (:data:`MODE_SHA3_256` / :data:`MODE_SHAKE128`), the message bytes,
    ``out_len`` (SHAKE128 output bytes; SHA3-256: 32, the value is ignored by the core) and
    ``rounds12`` (Keccak-p[1600, 12] instead of Keccak-f[1600]); for :data:`MODE_KMAC128` also
    the ``key`` (0..32 bytes, the core's ``key`` port) and the customization string ``custom``
    (0..157 bytes, the ``custom`` port); ``out_len`` is then the MAC length L/8. ``key_state``
    (200 bytes or None) goes to the ``key_state`` port: the state after the S and key blocks
    (:func:`dcsflow.designs.keccak.model.kmac128_key_state`), read by a core with KEY_STATE = 1."""

    mode: int
    message: bytes
    out_len: int = 32
    rounds12: bool = False
    key: bytes = b""
    custom: bytes = b""
    key_state: bytes | None = None


def keyak_pack(key: bytes) -> bytes:
    """The Lake Keyak key pack as the core forms it (30 bytes: 30, the key's first
    min(len, 28) bytes, 0x01, zeros): the ``keyak_pack`` port of a core with KEY_STATE = 1
    (Keyak v1 key pack; positions as in :class:`dcsflow.designs.keccak.model.LakeKeyak`)."""
    k = bytes(key)[:KEYAK_PACK_KEY]
    return (bytes([KEYAK_PACK_BYTES]) + k + b"\x01").ljust(KEYAK_PACK_BYTES, b"\x00")


@dataclass(frozen=True)
class KeyakRequest:
    """One Lake Keyak operation of a session (``mode`` 3): ``op`` "wrap", "unwrap" or "forget";
    ``start``: the session's first message (the core XORs the key pack and the diversifier in,
    and ``metadata`` begins with the nonce); ``metadata``: nonce and associated data as one string
    (the nonce only in the first message), ``body``: plaintext (wrap) or ciphertext (unwrap), ``tag``:
    the tag to check (unwrap; its length is the ``out_len``), ``tag_len``: the tag length of a wrap.
    ``key`` (16..28 bytes) goes to the ``key``/``key_len`` ports, ``pack`` (30 bytes or None) to
    ``keyak_pack`` (read by a core with KEY_STATE = 1)."""

    op: str
    start: bool = False
    metadata: bytes = b""
    body: bytes = b""
    tag: bytes = b""
    tag_len: int = 16
    key: bytes = b""
    pack: bytes | None = None

    @property
    def mode(self) -> int:
        return MODE_KEYAK


@dataclass
class HashResult:
    """Output of one message: the bytes delivered (each word truncated to its ``m_bytes``), the
    number of output words, whether ``m_last`` came exactly on the final one, and the cycles of the
    first/last input and first/last output handshakes; ``last_word``: the final output word (Lake
    Keyak unwrap and forget: the status word, bit 0 = the tag did not verify)."""

    output: bytes
    words: int
    last_ok: bool
    t_in_first: int
    t_in_last: int
    t_out_first: int
    t_out_last: int
    last_word: int = 0

    @property
    def tag_fail(self) -> bool:
        """Lake Keyak unwrap: the core flagged a tag mismatch (bit 0 of the status word)."""
        return bool(self.last_word & 1)


def message_words(message: bytes, rate: int, first: int = 0) -> list[tuple[int, int]]:
    """The message as (word, valid bytes) transfers of the 128-bit port: each block's bytes in
    16-byte words, the block's final word with its last 8 bytes (``rate`` bytes per block, an odd
    number of lanes; the first block holds ``rate - first`` bytes: Lake Keyak's session starts its
    metadata at byte 32). The final word carries 0..16 bytes (8 at a block's end); the empty
    message is one word with count 0.

    Raises:
        InputError: ``rate - first`` or ``rate`` not an odd number of 8-byte lanes.
    """
    message = bytes(message)
    if rate % 16 != 8 or (rate - first) % 16 != 8:
        raise InputError(f"block of {rate} bytes from byte {first}: not an odd number of lanes")
    if not message:
        return [(0, 0)]
    out, off, room = [], 0, rate - first
    while off < len(message):
        n = min(WORD_BYTES if room > 8 else 8, len(message) - off)
        out.append((int.from_bytes(message[off:off + n], "little"), n))
        off += n
        room -= WORD_BYTES if room > 8 else 8
        if room == 0:
            room = rate
    return out


def _keyak_lines(r: KeyakRequest, drive_params: bool) -> list[str]:
    if r.op not in ("wrap", "unwrap", "forget"):
        raise InputError(f"Lake Keyak operation must be wrap, unwrap or forget, got {r.op!r}")
    key = bytes(r.key)
    if len(key) > MAX_KEY:
        raise InputError(f"Lake Keyak key of at most {MAX_KEY} bytes (the key port; the key pack takes the "
                         f"first {KEYAK_PACK_KEY}), got {len(key)}")
    if r.pack is not None and len(r.pack) != KEYAK_PACK_BYTES:
        raise InputError(f"Lake Keyak key pack must be {KEYAK_PACK_BYTES} bytes, got {len(r.pack)}")
    lines = []
    if drive_params:
        lines.append(f"K {int.from_bytes(key, 'little'):064x} {len(key)} {0:0314x} 0")
        if r.pack is not None:
            lines.append(f"P {int.from_bytes(r.pack, 'little'):060x}")
    if r.op == "forget":
        lines.append(f"M {MODE_KEYAK} 1 0 1 {KOP_FORGET}")
        return lines + [f"W {0:032x} 0 1"]
    tag_len = len(r.tag) if r.op == "unwrap" else int(r.tag_len)
    if not 1 <= tag_len <= MAX_OUT_LEN:
        raise InputError(f"Lake Keyak tag length must be 1..{MAX_OUT_LEN} bytes, got {tag_len}")
    # each segment starts a block: the metadata of a session's first message at byte 32 (after the
    # key pack and the diversifier), the others at byte 0
    rate = RATE[MODE_KEYAK]
    segments = [(r.metadata, 32 if r.start else 0)] + ([(r.body, 0)] if r.body else []) \
        + ([(r.tag, 0)] if r.op == "unwrap" else [])
    words = []
    for seg, first in segments:     # s_last ends each segment: metadata, body, tag
        sw = message_words(seg, rate, first)
        words += [(w, n, int(i == len(sw) - 1)) for i, (w, n) in enumerate(sw)]
    if len(words) > MAX_WORDS:
        raise InputError(f"Lake Keyak message longer than the test bench's {MAX_WORDS} words")
    kop = (KOP_START if r.start else 0) | (KOP_UNWRAP if r.op == "unwrap" else 0) | (KOP_BODY if r.body else 0)
    lines.append(f"M {MODE_KEYAK} 1 {tag_len} {len(words)} {kop}")
    return lines + [f"W {w:032x} {n} {last}" for w, n, last in words]


def stimulus_text(requests: list, drive_params: bool = True) -> str:
    """Stimulus file (``keccak-stim 3``) of tb_keccak.v for ``requests`` (:class:`HashRequest`
    and :class:`KeyakRequest`, in order). ``drive_params`` False leaves the parameter ports (key,
    key_len, custom, custom_len, key_state, keyak_pack) at zero: a specialized netlist must not
    read them.

    Raises:
        InputError: unknown mode or Lake Keyak operation, output or tag length out of range, a
            message longer than the test bench holds.
    """
    lines = ["keccak-stim 3"]
    for r in requests:
        if isinstance(r, KeyakRequest):
            lines += _keyak_lines(r, drive_params)
            continue
        if r.mode not in RATE or r.mode == MODE_KEYAK:
            raise InputError(f"keccak_core mode must be 0 (SHA3-256), 1 (SHAKE128) or 2 (KMAC128), got {r.mode!r}")
        if not 0 <= int(r.out_len) <= MAX_OUT_LEN:
            raise InputError(f"output length must be 0..{MAX_OUT_LEN} bytes, got {r.out_len}")
        words = message_words(r.message, RATE[r.mode])
        if len(words) > MAX_WORDS:
            raise InputError(f"message longer than the test bench's {MAX_WORDS} words")
        if r.mode == MODE_KMAC128:
            key, custom = bytes(r.key), bytes(r.custom)
            if len(key) > MAX_KEY or len(custom) > MAX_CUSTOM:
                raise InputError(f"KMAC128 key of at most {MAX_KEY} bytes and customization of at most "
                                 f"{MAX_CUSTOM} bytes, got {len(key)} and {len(custom)}")
            if r.key_state is not None and len(r.key_state) != 200:
                raise InputError(f"KMAC128 key state must be 200 bytes, got {len(r.key_state)}")
            if drive_params:
                lines.append(f"K {int.from_bytes(key, 'little'):064x} {len(key)} "
                             f"{int.from_bytes(custom, 'little'):0314x} {len(custom)}")
                if r.key_state is not None:
                    lines.append(f"Z {int.from_bytes(r.key_state, 'little'):0400x}")
        lines.append(f"M {r.mode} {int(bool(r.rounds12))} {int(r.out_len)} {len(words)} 0")
        lines += [f"W {w:032x} {n} {int(i == len(words) - 1)}" for i, (w, n) in enumerate(words)]
    return "\n".join(lines) + "\n"


def parse_results(text: str, n_messages: int) -> list[HashResult]:
    """Parse tb_keccak.v's result file.

    Raises:
        SimulationError: wrong header, unreadable line, a timeout (names the message), missing END.
    """
    lines = text.splitlines()
    if not lines or lines[0].split() != ["keccak-results", "2"]:
        raise SimulationError("simulation result does not start with 'keccak-results 2'")
    out: list[HashResult] = []
    data, lasts, ended, word = bytearray(), [], False, 0
    for line in lines[1:]:
        f = line.split()
        if not f:
            continue
        if f[0] == "O" and len(f) == 4:
            word = int(f[1], 16)
            data += word.to_bytes(WORD_BYTES, "little")[:int(f[2])]
            lasts.append(f[3] == "1")
        elif f[0] == "T" and len(f) == 5:
            t = [int(v) for v in f[1:]]
            # m_last on the final output word and on no other
            last_ok = bool(lasts) and lasts[-1] and not any(lasts[:-1])
            out.append(HashResult(bytes(data), len(lasts), last_ok, *t, last_word=word))
            data, lasts, word = bytearray(), [], 0
        elif f[0] == "TIMEOUT":
            raise SimulationError(f"simulation timed out in message {len(out) + 1} of {n_messages}")
        elif f[0] == "END":
            ended = True
        else:
            raise SimulationError(f"unreadable simulation result line {line[:60]!r}")
    if not ended or len(out) != n_messages:
        raise SimulationError(f"simulation ended early ({len(out)} of {n_messages} messages)")
    return out


def _run(tb: Path, stim_text: str, prefix: str, workdir, plusargs=(), sources=None, defines=None) -> str:
    srcs = list(sources) if sources is not None else rtl_files()
    return run_test_bench([*srcs, tb], stim_text, workdir, prefix=prefix, defines=defines, plusargs=plusargs,
                          error=SimulationError, missing=SimulatorMissing)


def run_hash(requests: list[HashRequest], stall_seed: int | None = None,
             workdir: str | Path | None = None, key_state: int | None = None,
             sources: list[Path] | None = None, drive_params: bool = True) -> list[HashResult]:
    """Run ``requests`` through keccak_core in one Icarus run, one message after the other.

    Args:
        stall_seed: random gaps on s_valid and m_ready (seeded); None: none.
        workdir: folder for the files (default: a private temporary folder, removed afterwards).
        key_state: the RTL core's KEY_STATE parameter (0 or 1; None: the RTL default 0). Not for
            netlists, which have no parameters.
        sources: Verilog files of the core (default: the RTL; a netlist module ``keccak_core``
            plus Yosys's cells_sim.v for a built or specialized netlist).
        drive_params: False: the parameter ports stay zero (:func:`stimulus_text`).
    Raises:
        InputError: a malformed request. SimulationError: Icarus failing, a timeout, unreadable
            output (SimulatorMissing: Icarus not installed).
    """
    text = _run(TB_HASH, stimulus_text(requests, drive_params), "keccak-sim-", workdir,
                [f"+stall={int(stall_seed)}"] if stall_seed is not None else [], sources,
                {"KEY_STATE": int(key_state)} if key_state is not None else None)
    return parse_results(text, len(requests))


def run_rounds(records: list[tuple[bytes, int, int]], workdir: str | Path | None = None) -> list[bytes]:
    """Apply rounds ir0 .. ir0+nr-1 of keccak_round to each 200-byte state of ``records`` =
    [(state, ir0, nr)] in one Icarus run; returns the resulting states (200 bytes each).

    Raises:
        InputError: a state that is not 200 bytes, rounds outside 0..23. SimulationError: as
            :func:`run_hash`.
    """
    lines = ["keccak-perm 1"]
    for state, ir0, nr in records:
        if len(state) != 200:
            raise InputError(f"Keccak state must be 200 bytes, got {len(state)}")
        if not (0 <= ir0 and 0 <= nr and ir0 + nr <= 24):
            raise InputError(f"rounds {ir0}..{ir0 + nr - 1} outside 0..23")
        lines.append(f"S {int.from_bytes(bytes(state), 'little'):0400x} {ir0} {nr}")
    text = _run(TB_PERM, "\n".join(lines) + "\n", "keccak-perm-", workdir)
    res = text.splitlines()
    if not res or res[0].split() != ["keccak-perm-results", "1"] or res[-1:] != ["END"]:
        raise SimulationError("unreadable or incomplete permutation result")
    states = [int(line.split()[1], 16).to_bytes(200, "little") for line in res[1:-1] if line.startswith("R ")]
    if len(states) != len(records):
        raise SimulationError(f"permutation result has {len(states)} of {len(records)} states")
    return states


@dataclass(frozen=True)
class KeyakExpect:
    """What the core must deliver for one :class:`KeyakRequest`: the output bytes (wrap: ciphertext
    then tag; unwrap: plaintext; forget: none) and, for unwrap and forget, the status flag (True:
    the tag does not verify); ``source``: the record it comes from."""

    output: bytes
    tag_fail: bool | None
    source: str


def session_requests(session, pack: bool = True, decrypt: bool = False) -> list[tuple[KeyakRequest, KeyakExpect]]:
    """The requests of one Lake Keyak session of a known-answer file
    (:class:`dcsflow.designs.keccak.vectors.Session`) with their expected results, taken from the
    file: each message is wrapped (plaintext in, ciphertext and tag out) or, with ``decrypt`` or
    for a decryption record, unwrapped (ciphertext and tag in, plaintext out, the flag clear);
    ``forget`` steps in order. ``pack``: drive ``keyak_pack`` (:func:`keyak_pack` of the key).
    """
    from .vectors import FORGET

    out: list[tuple[KeyakRequest, KeyakExpect]] = []
    first = True
    kp = keyak_pack(session.key) if pack else None
    for step in session.steps:
        if step == FORGET:
            out.append((KeyakRequest("forget", key=session.key, pack=kp), KeyakExpect(b"", False, f"{session.source} forget")))
            continue
        meta = (session.nonce if first else b"") + step.ad
        if decrypt or step.decryption:
            req = KeyakRequest("unwrap", first, meta, step.ciphertext, step.tag, key=session.key, pack=kp)
            exp = KeyakExpect(step.plaintext, False, step.source)
        else:
            req = KeyakRequest("wrap", first, meta, step.plaintext, tag_len=len(step.tag), key=session.key, pack=kp)
            exp = KeyakExpect(step.ciphertext + step.tag, None, step.source)
        out.append((req, exp))
        first = False
    return out


def keyak_ok(exp: KeyakExpect, res: HashResult) -> tuple[bool, str]:
    """(ok, reason): ``res`` delivers ``exp``'s bytes, the status flag as expected, ``m_last`` on the
    final word only."""
    if res.output != exp.output:
        return False, "Lake Keyak output differs"
    if exp.tag_fail is not None and res.tag_fail != exp.tag_fail:
        return False, "tag check flag " + ("set" if res.tag_fail else "clear") + ", expected the other"
    if not res.last_ok:
        return False, "m_last not on the final output word"
    return True, ""
