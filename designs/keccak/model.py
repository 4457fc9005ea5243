"""Golden model of the multi-purpose Keccak core: Keccak-p[1600, nr], SHA3-256, SHAKE128, KMAC128
and Lake Keyak v1, in pure Python (no third-party package).

Sources:
- FIPS 202 (SHA-3 Standard, August 2015): the step mappings θ ρ π χ ι (§3.2), Keccak-p[b, nr]
  (§3.3), Keccak-f[1600] = Keccak-p[1600, 24] (§3.4), the sponge construction and pad10*1
  (§4, §5.1), SHA3-256 and SHAKE128 with their domain suffixes 01 and 1111 (§6.1, §6.2, B.2), the
  conversion between byte strings and the state (§3.1.2, Appendix B.1: byte i of the 200-byte
  state is lane i // 8, bits little-endian).
- NIST SP 800-185 (SHA-3 Derived Functions, December 2016): left_encode, right_encode,
  encode_string, bytepad (§2.3), cSHAKE128 (§3), KMAC128 (§4).
- Lake Keyak v1 (Bertoni, Daemen, Peeters, Van Assche, Van Keer, "Keyak v1", CAESAR submission,
  2014): Keccak-p[1600, 12], one piston, capacity 252 bits (rate 1348 bits, of which 1344 = 168
  bytes carry data and 4 the frame bits and padding), key pack of 240 bits, tag of 16 bytes. The
  byte and bit positions (key pack, piston diversifier, frame bits, ``forget``, tag extraction
  beyond one block) follow the Lake Keyak v1 implementation of aelstad/keccakj (Apache-2.0;
  ``keyak/LakeKeyak.java``, read, not copied), whose known-answer file
  ``vectors/LakeKeyak.txt`` this model passes record for record (tests/test_keccak_model.py).

Byte strings are the interface everywhere: a hash or MAC takes ``bytes`` and returns ``bytes``
of the requested length; the permutation takes and returns the 200-byte state.
"""

from __future__ import annotations

from .errors import AuthenticationError, InputError

#: width of Keccak-p[1600]: 25 lanes of 64 bits (FIPS 202 §3.1, w = 64, l = 6)
STATE_BYTES = 200
_MASK = (1 << 64) - 1


# ---------------------------------------------------------------------------------------------
# Keccak-p[1600, nr] (FIPS 202 §3)
# ---------------------------------------------------------------------------------------------

def _rc_bit(t: int) -> int:
    """rc(t) of FIPS 202 §3.2.5, Algorithm 5: the output of the LFSR x^8 + x^6 + x^5 + x^4 + 1."""
    if t % 255 == 0:
        return 1
    r = [1, 0, 0, 0, 0, 0, 0, 0]
    for _ in range(t % 255):
        r = [0] + r
        r[0] ^= r[8]
        r[4] ^= r[8]
        r[5] ^= r[8]
        r[6] ^= r[8]
        r = r[:8]
    return r[0]


def round_constant(ir: int) -> int:
    """The 64-bit round constant RC of round index ``ir`` (FIPS 202 §3.2.5, Algorithm 6, steps 2-3):
    bit 2^j - 1 of the lane is rc(j + 7 ir), j = 0..6."""
    rc = 0
    for j in range(7):
        if _rc_bit(j + 7 * ir):
            rc |= 1 << ((1 << j) - 1)
    return rc


def _rho_offsets() -> list[int]:
    """Rotation of lane x + 5y by ρ (FIPS 202 §3.2.2, Algorithm 2): (t+1)(t+2)/2 mod 64 along the
    walk (x, y) = (1, 0), then (y, (2x + 3y) mod 5); lane (0, 0) is not rotated."""
    off = [0] * 25
    x, y = 1, 0
    for t in range(24):
        off[x + 5 * y] = ((t + 1) * (t + 2) // 2) % 64
        x, y = y, (2 * x + 3 * y) % 5
    return off


#: RC for round indices 0..23 (Keccak-p[1600, nr] runs the last nr of them, FIPS 202 §3.3)
ROUND_CONSTANTS = tuple(round_constant(i) for i in range(24))
#: ρ rotation of lane A[x, y] at index x + 5y
RHO_OFFSETS = tuple(_rho_offsets())
#: π (FIPS 202 §3.2.3, Algorithm 3): A'[x, y] = A[(x + 3y) mod 5, x]; PI_SOURCE[x + 5y] is that source
PI_SOURCE = tuple(((x + 3 * y) % 5) + 5 * x for y in range(5) for x in range(5))


def _rol(v: int, n: int) -> int:
    return ((v << n) | (v >> (64 - n))) & _MASK if n else v


def keccak_round(a: list[int], ir: int) -> list[int]:
    """Rnd(A, ir) = ι(χ(π(ρ(θ(A)))), ir) of FIPS 202 §3.3 on 25 lanes (index x + 5y)."""
    # θ (§3.2.1): XOR each bit with the parities of two neighbouring columns
    c = [a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] for x in range(5)]
    d = [c[(x - 1) % 5] ^ _rol(c[(x + 1) % 5], 1) for x in range(5)]
    a = [a[i] ^ d[i % 5] for i in range(25)]
    # ρ (§3.2.2) then π (§3.2.3)
    r = [_rol(a[i], RHO_OFFSETS[i]) for i in range(25)]
    b = [r[PI_SOURCE[i]] for i in range(25)]
    # χ (§3.2.4): A[x, y] ^= (NOT A[x+1, y]) AND A[x+2, y]
    a = [b[x + 5 * y] ^ (~b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]) & _MASK
         for y in range(5) for x in range(5)]
    # ι (§3.2.5)
    a[0] ^= ROUND_CONSTANTS[ir]
    return a


def keccak_p_lanes(lanes: list[int], nr: int = 24) -> list[int]:
    """Keccak-p[1600, nr] on 25 lanes (FIPS 202 §3.3, Algorithm 7): rounds ir = 24 - nr .. 23."""
    if not 1 <= nr <= 24:
        raise InputError(f"Keccak-p[1600, nr]: nr must be 1..24, got {nr}")
    a = list(lanes)
    for ir in range(24 - nr, 24):
        a = keccak_round(a, ir)
    return a


def state_to_lanes(state: bytes) -> list[int]:
    """200-byte state -> 25 lanes (FIPS 202 §3.1.2, B.1: lane x + 5y = bytes 8(x+5y).., little-endian)."""
    return [int.from_bytes(state[8 * i:8 * i + 8], "little") for i in range(25)]


def lanes_to_state(lanes: list[int]) -> bytes:
    """25 lanes -> 200-byte state (inverse of :func:`state_to_lanes`)."""
    return b"".join(v.to_bytes(8, "little") for v in lanes)


def keccak_p(state: bytes, nr: int = 24) -> bytes:
    """Keccak-p[1600, nr] on a 200-byte state (bytes in, 200 bytes out).

    Raises:
        InputError: the state is not 200 bytes, nr not in 1..24.
    """
    if not isinstance(state, (bytes, bytearray)) or len(state) != STATE_BYTES:
        raise InputError(f"Keccak-p[1600] state must be {STATE_BYTES} bytes")
    return lanes_to_state(keccak_p_lanes(state_to_lanes(state), nr))


def keccak_f(state: bytes) -> bytes:
    """Keccak-f[1600] = Keccak-p[1600, 24] (FIPS 202 §3.4) on a 200-byte state."""
    return keccak_p(state, 24)


# ---------------------------------------------------------------------------------------------
# Sponge, SHA3-256, SHAKE128 (FIPS 202 §4-6)
# ---------------------------------------------------------------------------------------------

def _check_bytes(name: str, value) -> bytes:
    if not isinstance(value, (bytes, bytearray)):
        raise InputError(f"{name} must be bytes, got {type(value).__name__}")
    return bytes(value)


def _check_length(name: str, n, lo: int = 0, hi: int = 1 << 24) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not lo <= n <= hi:
        raise InputError(f"{name} must be an integer number of bytes in {lo}..{hi}")
    return n


def sponge(rate: int, suffix: int, message: bytes, out_len: int, nr: int = 24) -> bytes:
    """SPONGE[Keccak-p[1600, nr], pad10*1, 8*rate] (FIPS 202 §4, Algorithm 8) on whole bytes.

    ``suffix`` is the domain-separation bits followed by the first pad bit, as one byte read
    LSB first (FIPS 202 B.2: 0x06 for SHA3 = M||01, 0x1F for SHAKE = M||1111, 0x04 for cSHAKE =
    M||00); the last pad bit is bit 7 of the block's last byte. Returns ``out_len`` bytes.

    Raises:
        InputError: rate not in 1..199 bytes, a negative output length, a message that is not bytes.
    """
    message = _check_bytes("message", message)
    if not 1 <= rate < STATE_BYTES:
        raise InputError(f"sponge rate must be 1..{STATE_BYTES - 1} bytes, got {rate}")
    out_len = _check_length("output length", out_len)
    padded = bytearray(message)
    padded.append(suffix)
    padded += bytes(-len(padded) % rate)
    padded[-1] |= 0x80
    lanes = [0] * 25
    for off in range(0, len(padded), rate):
        block = bytes(padded[off:off + rate]) + bytes(STATE_BYTES - rate)
        lanes = keccak_p_lanes([s ^ m for s, m in zip(lanes, state_to_lanes(block))], nr)
    out = bytearray()
    while True:
        out += lanes_to_state(lanes)[:rate]
        if len(out) >= out_len:
            return bytes(out[:out_len])
        lanes = keccak_p_lanes(lanes, nr)


#: rates in bytes: SHA3-256 (c = 512), SHAKE128 / cSHAKE128 / KMAC128 (c = 256)
SHA3_256_RATE = 136
SHAKE128_RATE = 168


def sha3_256(message: bytes) -> bytes:
    """SHA3-256(M) = Keccak[512](M || 01, 256) (FIPS 202 §6.1): 32 bytes."""
    return sponge(SHA3_256_RATE, 0x06, message, 32)


def shake128(message: bytes, out_len: int) -> bytes:
    """SHAKE128(M, 8*out_len) = Keccak[256](M || 1111, d) (FIPS 202 §6.2): ``out_len`` bytes."""
    return sponge(SHAKE128_RATE, 0x1F, message, out_len)


# ---------------------------------------------------------------------------------------------
# cSHAKE128, KMAC128 (SP 800-185)
# ---------------------------------------------------------------------------------------------

def left_encode(x: int) -> bytes:
    """left_encode(x) (SP 800-185 §2.3.1): byte count n, then x big-endian in n bytes (n >= 1)."""
    if x < 0 or x >= 1 << 2040:
        raise InputError("left_encode: x must be in 0..2^2040-1")
    n = max(1, (x.bit_length() + 7) // 8)
    return bytes([n]) + x.to_bytes(n, "big")


def right_encode(x: int) -> bytes:
    """right_encode(x) (SP 800-185 §2.3.1): x big-endian in n bytes (n >= 1), then n."""
    if x < 0 or x >= 1 << 2040:
        raise InputError("right_encode: x must be in 0..2^2040-1")
    n = max(1, (x.bit_length() + 7) // 8)
    return x.to_bytes(n, "big") + bytes([n])


def encode_string(s: bytes) -> bytes:
    """encode_string(S) (SP 800-185 §2.3.2): left_encode(bit length of S) || S."""
    s = _check_bytes("string", s)
    return left_encode(8 * len(s)) + s


def bytepad(x: bytes, w: int) -> bytes:
    """bytepad(X, w) (SP 800-185 §2.3.3): left_encode(w) || X, zero-padded to a multiple of w bytes."""
    if w <= 0:
        raise InputError("bytepad: w must be positive")
    z = left_encode(w) + x
    return z + bytes(-len(z) % w)


def cshake128(message: bytes, out_len: int, function_name: bytes = b"", customization: bytes = b"") -> bytes:
    """cSHAKE128(X, L, N, S) (SP 800-185 §3.3): ``out_len`` bytes. With N and S empty it is
    SHAKE128(X, L); otherwise KECCAK[256](bytepad(encode_string(N) || encode_string(S), 168) || X || 00, L).

    Raises:
        InputError: an argument that is not bytes, a negative output length.
    """
    message = _check_bytes("message", message)
    function_name = _check_bytes("function name", function_name)
    customization = _check_bytes("customization string", customization)
    if not function_name and not customization:
        return shake128(message, out_len)
    prefix = bytepad(encode_string(function_name) + encode_string(customization), SHAKE128_RATE)
    return sponge(SHAKE128_RATE, 0x04, prefix + message, out_len)


def kmac128(key: bytes, message: bytes, out_len: int, customization: bytes = b"") -> bytes:
    """KMAC128(K, X, L, S) (SP 800-185 §4.3): cSHAKE128(bytepad(encode_string(K), 168) || X ||
    right_encode(L), L, "KMAC", S), L = 8*out_len bits; returns ``out_len`` bytes.

    Raises:
        InputError: key, message or customization not bytes, an output length not in 0..2^24 bytes.
            The message never contains the key's value.
    """
    key = _check_bytes("KMAC128 key", key)
    message = _check_bytes("message", message)
    out_len = _check_length("KMAC128 output length", out_len)
    x = bytepad(encode_string(key), SHAKE128_RATE) + message + right_encode(8 * out_len)
    return cshake128(x, out_len, b"KMAC", customization)


def kmac128_key_state(key: bytes, customization: bytes = b"") -> bytes:
    """The KMAC128 state (200 bytes, FIPS 202 byte order) after absorbing the two prefixes that
    depend on the key and the customization string alone: bytepad(encode_string("KMAC") ||
    encode_string(S), 168), then bytepad(encode_string(K), 168), each block followed by
    Keccak-f[1600] (SP 800-185 §3.3, §4.3). :func:`kmac128` of (K, X, L, S) equals the sponge
    continued from this state on X || right_encode(L) with cSHAKE's domain bits 00.

    Raises:
        InputError: key or customization not bytes.
    """
    key = _check_bytes("KMAC128 key", key)
    customization = _check_bytes("customization string", customization)
    data = (bytepad(encode_string(b"KMAC") + encode_string(customization), SHAKE128_RATE)
            + bytepad(encode_string(key), SHAKE128_RATE))
    state = bytes(200)
    for off in range(0, len(data), SHAKE128_RATE):
        block = data[off:off + SHAKE128_RATE]
        state = keccak_f(bytes(a ^ b for a, b in zip(state, block + bytes(200 - len(block)))))
    return state


# ---------------------------------------------------------------------------------------------
# Lake Keyak v1: Keccak-p[1600, 12], one piston, Motorist mode
# ---------------------------------------------------------------------------------------------

#: Lake Keyak v1 parameters: capacity 252 bits, so the piston's rate is 1348 bits; Rs = 168 bytes
#: of it carry data (the last 4 bits: 2 frame bits and pad10*1), Keccak-p[1600, 12]
KEYAK_ROUNDS = 12
KEYAK_CAPACITY_BITS = 252
KEYAK_RATE_BITS = 1600 - KEYAK_CAPACITY_BITS
KEYAK_RS = (KEYAK_RATE_BITS - 4) // 8
#: key pack: 240 bits = 30 bytes (length byte, key, simple padding 0x01, zeros)
KEYAK_KEYPACK_BYTES = 30
KEYAK_KEY_MIN, KEYAK_KEY_MAX = 16, KEYAK_KEYPACK_BYTES - 2
#: default tag length (bytes)
KEYAK_TAG_BYTES = 16
#: frame bits ending a block (2 bits, first bit = LSB): more metadata follows; end of the metadata,
#: tag next; end of the metadata, body next; more body follows
FRAME_HEADER_MORE, FRAME_TAG_NEXT, FRAME_BODY_NEXT, FRAME_BODY_MORE = 0, 1, 2, 3


class Piston:
    """The Keyak piston: the 1600-bit Keccak-p[1600, 12] state with a rate of 1348 bits.

    All data goes through the outer part (the first Rs = 168 bytes); a block ends with
    :meth:`pad` (frame bits, then pad10*1 over the 1348-bit rate) and :meth:`permute`.
    """

    def __init__(self) -> None:
        self.state = bytearray(STATE_BYTES)

    def copy(self) -> "Piston":
        """An independent piston with the same state."""
        p = Piston()
        p.state[:] = self.state
        return p

    def permute(self) -> None:
        """f = Keccak-p[1600, 12]."""
        self.state[:] = keccak_p(bytes(self.state), KEYAK_ROUNDS)

    def xor_bytes(self, offset: int, data: bytes) -> None:
        """XOR ``data`` into the state from byte ``offset`` on."""
        for i, b in enumerate(data):
            self.state[offset + i] ^= b

    def xor_bit(self, position: int) -> None:
        """Flip bit ``position`` of the state (bit i = bit i % 8 of byte i // 8, FIPS 202 B.1)."""
        self.state[position >> 3] ^= 1 << (position & 7)

    def pad(self, bit_position: int, frame: int = 0, frame_bits: int = 0) -> None:
        """XOR ``frame_bits`` frame bits (LSB first) at ``bit_position``, then pad10*1 to the
        1348-bit rate: a 1 right after them and a 1 in the rate's last bit (FIPS 202 §5.1)."""
        assert bit_position + frame_bits + 2 <= KEYAK_RATE_BITS
        for i in range(frame_bits):
            if frame >> i & 1:
                self.xor_bit(bit_position + i)
        self.xor_bit(bit_position + frame_bits)
        self.xor_bit(KEYAK_RATE_BITS - 1)


class Engine:
    """The Keyak engine over one piston: the position in the current block, metadata injection,
    body encryption/decryption, tag extraction, ``forget``. Each method continues the piston's
    state, so successive messages of a session chain."""

    def __init__(self) -> None:
        self.piston = Piston()
        self.pos = 0

    def copy(self) -> "Engine":
        """An independent engine with the same piston state and position."""
        e = Engine()
        e.piston = self.piston.copy()
        e.pos = self.pos
        return e

    def _spark(self, frame: int) -> None:
        """End the current block with 2 frame bits and padding, permute, start a new block."""
        self.piston.pad(8 * self.pos, frame, 2)
        self.piston.permute()
        self.pos = 0

    def inject(self, data: bytes) -> None:
        """Metadata (nonce, associated data): XOR into the outer part, Rs bytes per block; a full
        block that is followed by more metadata ends with frame bits 00 (header more)."""
        off = 0
        while off < len(data):
            if self.pos == KEYAK_RS:
                self._spark(FRAME_HEADER_MORE)
            n = min(len(data) - off, KEYAK_RS - self.pos)
            self.piston.xor_bytes(self.pos, data[off:off + n])
            self.pos += n
            off += n

    def crypt(self, data: bytes, unwrap: bool) -> bytes:
        """Body: ciphertext = plaintext XOR outer part, and the outer part becomes the ciphertext
        (duplex); ``unwrap``: data is ciphertext, returns plaintext. A full block followed by more
        body ends with frame bits 11 (body more)."""
        out = bytearray()
        off = 0
        st = self.piston.state
        while off < len(data):
            if self.pos == KEYAK_RS:
                self._spark(FRAME_BODY_MORE)
            n = min(len(data) - off, KEYAK_RS - self.pos)
            for i in range(n):
                x = data[off + i]
                y = x ^ st[self.pos + i]
                out.append(y)
                st[self.pos + i] ^= (x if not unwrap else y)
            self.pos += n
            off += n
        return bytes(out)

    def end_header(self, body_next: bool) -> None:
        """End of the metadata: frame bits 01 (body next, value 2) or 10 (tag next, value 1),
        first bit = least significant bit of the value."""
        self._spark(FRAME_BODY_NEXT if body_next else FRAME_TAG_NEXT)

    def end_body(self) -> None:
        """End of the body: frame bits 10 (tag next, value 1)."""
        self._spark(FRAME_TAG_NEXT)

    def extract(self, n: int) -> bytes:
        """The tag: the first ``n`` bytes of the outer part, Rs bytes per block; between blocks
        the state gets pad10*1 after one 0 bit (1s at bits 1 and 1347) and is permuted. Leaves pos = 0: the
        next message's metadata is XORed over the outer part."""
        out = bytearray()
        while True:
            k = min(n - len(out), KEYAK_RS)
            out += self.piston.state[:k]
            if len(out) >= n:
                break
            self.piston.pad(1)
            self.piston.permute()
        self.pos = 0
        return bytes(out)

    def forget(self) -> None:
        """``forget``: pad an empty block and permute; overwrite the Rs outer bytes with zeros,
        pad after them (bit 1344) and permute (the state can no longer be rolled back)."""
        self.piston.pad(0)
        self.piston.permute()
        self.piston.state[:KEYAK_RS] = bytes(KEYAK_RS)
        self.piston.pad(8 * KEYAK_RS)
        self.piston.permute()
        self.pos = 0


class LakeKeyak:
    """A Lake Keyak v1 session (the Motorist over one piston): started with a key and a nonce,
    then any sequence of :meth:`wrap` / :meth:`unwrap` messages and :meth:`forget` calls; every
    message continues the same state, so a tag authenticates the whole session so far.

    Start (``LakeKeyak(key, nonce)``): the outer part gets the key pack (byte 0 = 30, the key,
    0x01, zeros up to byte 29), the piston diversifier (byte 30 = 1 piston, byte 31 = piston
    index 0), then the nonce as metadata; the nonce and the first message's associated data form
    one metadata string (no frame between them), as in the vectors' source.

    Raises (constructor):
        InputError: key or nonce not bytes, key not 16..28 bytes (the message gives the length
            range, never the key's value).
    """

    def __init__(self, key: bytes, nonce: bytes) -> None:
        if not isinstance(key, (bytes, bytearray)):
            raise InputError(f"Lake Keyak key must be bytes, got {type(key).__name__}")
        if not KEYAK_KEY_MIN <= len(key) <= KEYAK_KEY_MAX:
            raise InputError(f"Lake Keyak key must be {KEYAK_KEY_MIN}..{KEYAK_KEY_MAX} bytes, "
                             f"got {len(key)}")
        nonce = _check_bytes("Lake Keyak nonce", nonce)
        self.engine = Engine()
        p = self.engine.piston
        p.xor_bytes(0, bytes([KEYAK_KEYPACK_BYTES]) + bytes(key) + b"\x01")
        p.xor_bytes(KEYAK_KEYPACK_BYTES, b"\x01\x00")
        self.engine.pos = KEYAK_KEYPACK_BYTES + 2
        self.engine.inject(nonce)

    def copy(self) -> "LakeKeyak":
        """An independent session in the same state (e.g. to try a decryption that may fail)."""
        s = object.__new__(LakeKeyak)
        s.engine = self.engine.copy()
        return s

    def _body(self, ad: bytes, data: bytes, unwrap: bool) -> bytes:
        self.engine.inject(ad)
        if data:
            self.engine.end_header(True)
            out = self.engine.crypt(data, unwrap)
            self.engine.end_body()
            return out
        self.engine.end_header(False)
        return b""

    def wrap(self, ad: bytes, plaintext: bytes, tag_len: int = KEYAK_TAG_BYTES) -> tuple[bytes, bytes]:
        """Encrypt one message: returns (ciphertext of len(plaintext) bytes, tag of ``tag_len`` bytes).

        Raises:
            InputError: ad or plaintext not bytes, tag_len not 1..2^24.
        """
        ad = _check_bytes("associated data", ad)
        plaintext = _check_bytes("plaintext", plaintext)
        tag_len = _check_length("tag length", tag_len, 1)
        ct = self._body(ad, plaintext, False)
        return ct, self.engine.extract(tag_len)

    def unwrap(self, ad: bytes, ciphertext: bytes, tag: bytes) -> bytes:
        """Decrypt one message and check its tag (any length >= 1): returns the plaintext.

        Raises:
            InputError: an argument not bytes, an empty tag.
            AuthenticationError: the tag does not match (no plaintext released; the session's
                state has advanced as for the message, so it no longer matches the sender's).
        """
        ad = _check_bytes("associated data", ad)
        ciphertext = _check_bytes("ciphertext", ciphertext)
        tag = _check_bytes("tag", tag)
        if not tag:
            raise InputError("Lake Keyak tag must not be empty")
        pt = self._body(ad, ciphertext, True)
        expected = self.engine.extract(len(tag))
        diff = 0
        for a, b in zip(expected, tag):
            diff |= a ^ b
        if diff:
            raise AuthenticationError("Lake Keyak: tag mismatch, message rejected")
        return pt

    def forget(self) -> None:
        """Make the state irreversible (Engine ``forget``); both sides must call it at the same point."""
        self.engine.forget()


def lake_keyak_encrypt(key: bytes, nonce: bytes, ad: bytes, plaintext: bytes,
                       tag_len: int = KEYAK_TAG_BYTES) -> tuple[bytes, bytes]:
    """One-message Lake Keyak session: (ciphertext, tag). Raises as :class:`LakeKeyak`."""
    return LakeKeyak(key, nonce).wrap(ad, plaintext, tag_len)


def lake_keyak_decrypt(key: bytes, nonce: bytes, ad: bytes, ciphertext: bytes, tag: bytes) -> bytes:
    """One-message Lake Keyak session: the plaintext, or :class:`AuthenticationError`."""
    return LakeKeyak(key, nonce).unwrap(ad, ciphertext, tag)
