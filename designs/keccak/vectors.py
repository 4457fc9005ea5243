"""Reader for the Lake Keyak v1 known-answer file ``vectors/LakeKeyak.txt``.

Source: aelstad/keccakj, ``src/test/resources/com/github/aelstad/keccakj/keyak/LakeKeyak.txt``
(commit 07185d29fb6c881570e2d7fd2b160460626dc130, Apache-2.0; ``vectors/SOURCES.md``), copied
byte for byte; the bundled copy is checked against :data:`LAKE_KEYAK_SHA256` before use.

Format: a session starts with ``***`` (optional) and ``initialize with:``, then ``key: <hex>`` and
``nonce: <hex>`` (hex bytes separated by spaces). Each message is four lines:
``associated data: <hex>``, ``plaintext: <hex>`` and ``ciphertext: <hex>`` in either order (the last
session lists the ciphertext first), ``tag: <hex>`` (a field may be empty except the tag;
ciphertext and plaintext have the same length). A line ``forget`` between messages
applies the Keyak ``forget`` operation; all messages of a session continue one state. The file
ends with ``overall checksum: <hex>`` (kept in :attr:`VectorFile.checksum`, not checked: the file
does not say how it is computed). 5 sessions, 160 messages. A file is read as untrusted input by
the one vector-file reader (:mod:`dcsflow.vectorfile`); a message names the file, the line and the
reason, never the line's text (a key or nonce with a typo stays unquoted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from dcsflow.fileio import TEXT_LIMIT, open_input
from dcsflow.vectorfile import read_text, text_lines

from .errors import VectorFileError

#: the bundled vector file
VECTOR_DIR = Path(__file__).resolve().parent / "vectors"
LAKE_KEYAK_FILE = VECTOR_DIR / "LakeKeyak.txt"
#: SHA-256 of LakeKeyak.txt as copied from the source repository
LAKE_KEYAK_SHA256 = "6082aa4fb6bc04c7558292672a5ca6c7fc2eee3fdc3fe100b0c902180048e769"

_FIELD = re.compile(r"^(key|nonce|associated data|plaintext|ciphertext|tag|overall checksum):(.*)$")
_HEX_BYTE = re.compile(r"^[0-9A-Fa-f]{2}$")
#: the fields of a message, by position: plaintext and ciphertext in either order
_RECORD_ORDERS = (("associated data",), ("plaintext", "ciphertext"), ("plaintext", "ciphertext"), ("tag",))


@dataclass(frozen=True)
class Message:
    """One message of a session: ``source`` = "<file>:<line of its tag>", associated data,
    plaintext, ciphertext (same length as the plaintext), tag (16 bytes in most records, 2000 in two);
    ``decryption``: the file lists the ciphertext before the plaintext (a decryption record: the
    last session's message). The labels name the same values either way."""

    source: str
    ad: bytes
    plaintext: bytes
    ciphertext: bytes
    tag: bytes
    decryption: bool = False


#: a ``forget`` step of a session
FORGET = "forget"


@dataclass
class Session:
    """One ``initialize with:`` block: ``source`` = "<file>:<line>", key (16..28 bytes), nonce,
    ``steps``: :class:`Message` records and :data:`FORGET` in file order."""

    source: str
    key: bytes
    nonce: bytes
    steps: list = field(default_factory=list)

    @property
    def messages(self) -> list[Message]:
        return [s for s in self.steps if isinstance(s, Message)]


@dataclass
class VectorFile:
    """The sessions of one file and its ``overall checksum`` (None if absent)."""

    sessions: list[Session]
    checksum: bytes | None = None

    @property
    def messages(self) -> list[Message]:
        return [m for s in self.sessions for m in s.messages]


def parse_lake_keyak(text: str, name: str = "<text>") -> VectorFile:
    """Parse the text of a LakeKeyak.txt-format file (``name`` appears in errors and sources).

    Raises:
        VectorFileError: one line ``<name>:<line>: <reason>`` — an unknown line, a field that is not
            hex bytes, fields out of order, a message before ``initialize with:``, a ciphertext whose
            length differs from the plaintext's, an incomplete session or message at the end.
    """
    sessions: list[Session] = []
    checksum = None
    cur: Session | None = None      # the session being read
    pending: str | None = None      # "init": initialize seen, key/nonce expected
    init_line = 0
    init: dict = {}
    rec: dict = {}
    last = 0                        # last line that is not blank

    def fail(n: int, reason: str) -> VectorFileError:
        return VectorFileError(f"{name}:{n}: {reason}")

    for n, line in enumerate(text_lines(text), 1):
        t = line.strip(" \t\r")
        if not t or t == "***":
            continue
        last = n
        if t == "initialize with:":
            if rec:
                raise fail(n, "incomplete message before 'initialize with:'")
            if pending:
                raise fail(n, "'initialize with:' without key and nonce before it")
            pending, init_line, init, cur = "init", n, {}, None
            continue
        if t == "forget":
            if cur is None or rec:
                raise fail(n, "'forget' outside a session or inside a message")
            cur.steps.append(FORGET)
            continue
        m = _FIELD.match(t)
        if not m:
            raise fail(n, "not a line of the format (a field 'name: hex bytes', 'initialize with:' or 'forget')")
        key, words = m.group(1), m.group(2).split()
        if not all(_HEX_BYTE.match(w) for w in words):
            raise fail(n, f"'{key}:' must be hex bytes separated by spaces")
        value = bytes.fromhex("".join(words))
        if key == "overall checksum":
            if rec or pending:
                raise fail(n, "'overall checksum' inside a session header or a message")
            checksum = value
            continue
        if key in ("key", "nonce"):
            if pending != "init" or key in init or (key == "nonce" and "key" not in init):
                raise fail(n, f"'{key}:' out of place (expected after 'initialize with:', key first)")
            init[key] = value
            if key == "nonce":
                cur = Session(f"{name}:{init_line}", init["key"], init["nonce"])
                sessions.append(cur)
                pending = None
            continue
        if cur is None:
            raise fail(n, f"'{key}:' before a session's 'initialize with:', key and nonce")
        expected = _RECORD_ORDERS[len(rec)]
        if key not in expected or key in rec:
            want = "' or '".join(k for k in expected if k not in rec)
            raise fail(n, f"expected '{want}:', got '{key}:'")
        rec[key] = value
        if len(rec) == 3 and len(rec["ciphertext"]) != len(rec["plaintext"]):
            raise fail(n, f"ciphertext of {len(rec['ciphertext'])} bytes for a plaintext of "
                          f"{len(rec['plaintext'])}")
        if key == "tag":
            if not value:
                raise fail(n, "empty tag")
            cur.steps.append(Message(f"{name}:{n}", rec["associated data"], rec["plaintext"],
                                     rec["ciphertext"], value, list(rec).index("ciphertext") == 1))
            rec = {}
    if rec or pending:
        raise fail(last, "file ends inside a message or a session header")
    return VectorFile(sessions, checksum)


def read_lake_keyak(path: str | Path, sha256: str | None = None) -> VectorFile:
    """Read and parse a LakeKeyak.txt-format file (regular file, at most TEXT_LIMIT bytes).

    ``sha256``: if given, the file's SHA-256 (hex) must equal it.

    Raises:
        VectorFileError: unreadable or malformed file (one line naming file:line), a SHA-256 mismatch.
    """
    path = Path(path)
    return parse_lake_keyak(read_text(path, VectorFileError, sha256=sha256), path.name)


def load_lake_keyak() -> VectorFile:
    """The bundled ``vectors/LakeKeyak.txt`` (SHA-256 checked): 5 sessions, 160 messages."""
    return read_lake_keyak(LAKE_KEYAK_FILE, LAKE_KEYAK_SHA256)


def is_lake_keyak(path: str | Path) -> bool:
    """True when ``path`` reads as a Lake Keyak known-answer file: its first line that is neither
    blank nor ``***`` is ``initialize with:``. Unreadable files give False (their reader reports why)."""
    try:                       # only the head is read: the reader reads the whole file once after
        with open_input(Path(path), TEXT_LIMIT, "vector file") as f:
            data = f.read(4096)
    except OSError:
        return False
    for line in data.decode("utf-8", "replace").splitlines():
        t = line.strip()
        if t and t != "***":
            return t == "initialize with:"
    return False
