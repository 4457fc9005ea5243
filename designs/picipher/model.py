"""Golden model of π16-Cipher v2 (16-bit words, R = 3 rounds), 96- and 128-bit keys.

Written from ``shared/vectors/picipher/PI16CIPHER.md`` (the v2 reference by D. Otte, repository
nerilex/pi-cipher-ref); it reproduces all 11,250 official vectors of ``pi16cipher096v2`` and
``pi16cipher128v2``. Standard library only.

Conventions:
    * a *word* is an int 0..0xFFFF; a *chunk* is a 4-tuple of words; a *state* is a 16-tuple of
      words W0..W15 (chunks IS0 = W0..W3, IS1 = W4..W7, IS2 = W8..W11, IS3 = W12..W15);
    * bytes ↔ words are little-endian: word k = byte[2k] | byte[2k+1] << 8;
    * the rate is W0..W3 (bytes 0–7 of a block) and W8..W11 (bytes 8–15);
    * the tag accumulator T is an 8-tuple of words (T[j] belongs to rate word j).

The building blocks the flow needs to compute parameter-derived values are public:
:func:`star`, :func:`pi`, :func:`initialize`, :func:`empty_ad_step`, :func:`process_ad`,
:func:`cis_parameters`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import AuthenticationError, InputError

MASK16 = 0xFFFF
MASK64 = (1 << 64) - 1

#: Key sizes in bytes of the two official variants (pi16cipher096v2, pi16cipher128v2).
KEY_BYTES = (12, 16)
#: Public message number (PMN, "NPUB") size in bytes.
PMN_BYTES = 4
#: Secret message number (SMN, "NSEC") size in bytes, when present.
SMN_BYTES = 16
#: Tag size in bytes.
TAG_BYTES = 16
#: Rate in bytes (one block).
BLOCK_BYTES = 16
#: Number of rounds of π in v2.
ROUNDS = 3

#: Round constants, rows r0..r2 (PI16CIPHER.md): row r = C1 (4 words) then C2 (4 words).
RC = (
    (0xB4B2, 0xB1AC, 0xAAA9, 0xA6A5, 0xA39C, 0x9A99, 0x9695, 0x938E),
    (0x8D8B, 0x8778, 0x7472, 0x716C, 0x6A69, 0x6665, 0x635C, 0x5A59),
    (0x5655, 0x534E, 0x4D4B, 0x473C, 0x3A39, 0x3635, 0x332E, 0x2D2B),
)


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (16 - r))) & MASK16


def mu(x: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The μ transform of a chunk (4 words → 4 words), PI16CIPHER.md "The * operation"."""
    x0, x1, x2, x3 = x
    a0 = _rotl((0xF0E8 + x0 + x1 + x2) & MASK16, 1)
    a1 = _rotl((0xE4E2 + x0 + x1 + x3) & MASK16, 4)
    a2 = _rotl((0xE1D8 + x0 + x2 + x3) & MASK16, 9)
    a3 = _rotl((0xD4D2 + x1 + x2 + x3) & MASK16, 11)
    return (a0 ^ a1 ^ a3, a0 ^ a1 ^ a2, a1 ^ a2 ^ a3, a0 ^ a2 ^ a3)


def nu(y: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The ν transform of a chunk (4 words → 4 words), PI16CIPHER.md "The * operation"."""
    y0, y1, y2, y3 = y
    e0 = _rotl((0xD1CC + y0 + y2 + y3) & MASK16, 2)
    e1 = _rotl((0xCAC9 + y1 + y2 + y3) & MASK16, 5)
    e2 = _rotl((0xC6C5 + y0 + y1 + y2) & MASK16, 7)
    e3 = _rotl((0xC3B8 + y0 + y1 + y3) & MASK16, 13)
    return (e1 ^ e2 ^ e3, e0 ^ e2 ^ e3, e0 ^ e1 ^ e3, e0 ^ e1 ^ e2)


def star(x: tuple[int, ...], y: tuple[int, ...]) -> tuple[int, int, int, int]:
    """The ARX operation X * Y = σ(μ(X), ν(Y)) on two chunks of 4 16-bit words.

    σ(b, f) = (b1+f1, b2+f2, b3+f3, b0+f0), additions mod 2^16 (PI16CIPHER.md).
    """
    b = mu(tuple(x))
    f = nu(tuple(y))
    return ((b[1] + f[1]) & MASK16, (b[2] + f[2]) & MASK16, (b[3] + f[3]) & MASK16, (b[0] + f[0]) & MASK16)


def pi(state: tuple[int, ...]) -> tuple[int, ...]:
    """The permutation π (R = 3 rounds, 24 * operations) on a 16-word state; returns 16 words.

    Round r: J0 = C1*IS0, J1 = J0*IS1, J2 = J1*IS2, J3 = J2*IS3; K3 = J3*C2, K2 = J2*K3,
    K1 = J1*K2, K0 = J0*K1; new state (K0, K1, K2, K3) (PI16CIPHER.md).
    """
    if len(state) != 16:
        raise ValueError("pi() needs a state of 16 words")
    s = tuple(state)
    for r in range(ROUNDS):
        c1, c2 = RC[r][:4], RC[r][4:]
        is_ = [s[4 * i:4 * i + 4] for i in range(4)]
        j0 = star(c1, is_[0])
        j1 = star(j0, is_[1])
        j2 = star(j1, is_[2])
        j3 = star(j2, is_[3])
        k3 = star(j3, c2)
        k2 = star(j2, k3)
        k1 = star(j1, k2)
        k0 = star(j0, k1)
        s = k0 + k1 + k2 + k3
    return s


def bytes_to_words(b: bytes) -> tuple[int, ...]:
    """Little-endian bytes (even length) → words: word k = b[2k] | b[2k+1] << 8."""
    return tuple(b[2 * k] | (b[2 * k + 1] << 8) for k in range(len(b) // 2))


def words_to_bytes(w) -> bytes:
    """Words → little-endian bytes (inverse of :func:`bytes_to_words`)."""
    return b"".join(bytes((x & 0xFF, x >> 8)) for x in w)


def rate_bytes(state: tuple[int, ...]) -> bytes:
    """The 16 rate bytes of a state: W0..W3 (bytes 0–7) then W8..W11 (bytes 8–15)."""
    return words_to_bytes(state[0:4] + state[8:12])


def with_rate(state: tuple[int, ...], block: bytes) -> tuple[int, ...]:
    """The state with its rate replaced by a 16-byte block."""
    w = bytes_to_words(block)
    return w[0:4] + tuple(state[4:8]) + w[4:8] + tuple(state[12:16])


def pad_block(data: bytes) -> bytes:
    """v2 padding of a final block of 0..15 bytes: data, then 0x01, then zeros, to 16 bytes."""
    if len(data) >= BLOCK_BYTES:
        raise ValueError("pad_block() takes 0..15 bytes")
    return data + b"\x01" + bytes(BLOCK_BYTES - 1 - len(data))


def split_blocks(data: bytes) -> list[bytes]:
    """Split data into v2 blocks: full 16-byte blocks, then one padded final block (always present)."""
    n = len(data) // BLOCK_BYTES
    blocks = [data[BLOCK_BYTES * i:BLOCK_BYTES * (i + 1)] for i in range(n)]
    blocks.append(pad_block(data[BLOCK_BYTES * n:]))
    return blocks


def check_key_pmn(key: bytes, pmn: bytes) -> None:
    """Check the key (12 or 16 bytes) and PMN (4 bytes) sizes.

    Raises:
        InputError: wrong type or length; the message names the expected size.
    """
    if not isinstance(key, (bytes, bytearray)):
        raise InputError(f"key must be bytes (12 or 16 bytes), got {type(key).__name__}")
    if len(key) not in KEY_BYTES:
        raise InputError(f"key must be 12 bytes (96 bits) or 16 bytes (128 bits), got {len(key)} bytes")
    if not isinstance(pmn, (bytes, bytearray)) or len(pmn) != PMN_BYTES:
        got = f"{len(pmn)} bytes" if isinstance(pmn, (bytes, bytearray)) else type(pmn).__name__
        raise InputError(f"PMN (nonce) must be {PMN_BYTES} bytes (32 bits), got {got}")


def initial_state(key: bytes, pmn: bytes) -> tuple[int, ...]:
    """The 16-word state before initialization's π: Key ‖ PMN ‖ 0x01 ‖ zeros (32 bytes).

    Raises:
        InputError: wrong key/PMN size.
    """
    check_key_pmn(key, pmn)
    buf = bytes(key) + bytes(pmn) + b"\x01"
    buf += bytes(32 - len(buf))
    return bytes_to_words(buf)


def initialize(key: bytes, pmn: bytes) -> tuple[tuple[int, ...], int]:
    """Initialization: CIS = π(Key ‖ PMN ‖ 0x01 ‖ 0…), ctr0 = W4 | W5<<16 | W6<<32 | W7<<48 of CIS.

    Returns:
        (cis, ctr0): the 16-word common internal state and the 64-bit counter start value.
        The tag accumulator starts at zero (8 words).
    Raises:
        InputError: wrong key/PMN size (message names the expected size).
    """
    cis = pi(initial_state(bytes(key) if isinstance(key, bytearray) else key,
                           bytes(pmn) if isinstance(pmn, bytearray) else pmn))
    ctr0 = cis[4] | (cis[5] << 16) | (cis[6] << 32) | (cis[7] << 48)
    return cis, ctr0


def inject_counter(cis: tuple[int, ...], ctr: int) -> tuple[int, ...]:
    """CIS with W0..W3 XORed with the 16-bit words of the 64-bit counter, least significant first."""
    ctr &= MASK64
    return tuple(cis[k] ^ ((ctr >> (16 * k)) & MASK16) if k < 4 else cis[k] for k in range(16))


def triplex(cis: tuple[int, ...], ctr: int, block: bytes, tag: tuple[int, ...],
            decrypt: bool = False, length: int = BLOCK_BYTES):
    """One triplex call on a 16-byte (padded) block with counter value ``ctr``.

    Encryption: S = π(CIS ⊕ ctr); rate(S) ^= block (the new rate is the ciphertext block);
    S = π(S); T[j] += rate word j. Decryption (``decrypt=True``, ``block`` = ciphertext padded
    to 16 bytes, ``length`` = number of real ciphertext bytes 0..16): the first ``length`` rate bytes
    become the ciphertext bytes, the rest stays keystream ⊕ padding (0x01 at byte ``length``).

    Returns:
        (out, state, tag): ``out`` the 16 output bytes (ciphertext, or plaintext when decrypting;
        only the first ``length`` are meaningful), the state after the second π, the new tag (8 words).
    """
    s = pi(inject_counter(cis, ctr))
    ks = rate_bytes(s)
    if not decrypt:
        new_rate = bytes(a ^ b for a, b in zip(ks, block))
        out = new_rate
    else:
        out = bytes(a ^ b for a, b in zip(ks[:length], block[:length]))
        rest = bytearray(ks[length:])
        if length < BLOCK_BYTES:
            rest[0] ^= 0x01
        new_rate = bytes(block[:length]) + bytes(rest)
        out = out + bytes(BLOCK_BYTES - length)
    s = pi(with_rate(s, new_rate))
    r = s[0:4] + s[8:12]
    tag = tuple((t + x) & MASK16 for t, x in zip(tag, r))
    return out, s, tag


ZERO_TAG = (0,) * 8


def process_ad(cis: tuple[int, ...], ctr0: int, ad: bytes, tag: tuple[int, ...] = ZERO_TAG):
    """Associated-data processing: blocks i = 1..nAD (nAD = ⌊len/16⌋ + 1) with counter ctr0 + i,
    then ctr = ctr0 + nAD and CIS = π(CIS with its rate XORed with T). T is not reset.

    Returns:
        (cis', ctr, tag): the updated 16-word CIS, the 64-bit counter and the 8-word tag accumulator.
    """
    blocks = split_blocks(bytes(ad))
    for i, b in enumerate(blocks, start=1):
        _, _, tag = triplex(cis, ctr0 + i, b, tag)
    ctr = (ctr0 + len(blocks)) & MASK64
    rate = words_to_bytes(tag)
    cis = pi(with_rate(cis, bytes(a ^ b for a, b in zip(rate_bytes(cis), rate))))
    return cis, ctr, tag


def empty_ad_step(cis: tuple[int, ...], ctr0: int):
    """The v2 empty-AD step: the padding block ``01 00…00`` with counter ctr0 + 1, then the CIS update.

    This is what the message processor (no AD in hardware) computes after initialization.

    Returns:
        (cis', ctr, tag): CIS after the update, ctr = ctr0 + 1, tag accumulator (8 words).
    """
    return process_ad(cis, ctr0, b"")


@dataclass(frozen=True)
class CisParameters:
    """Parameter-derived values of the ``picipher_cis_mp`` variant (state after init + empty-AD step).

    Attributes:
        cis: 16 words W0..W15 of the common internal state after the empty-AD step.
        ctr: 64-bit counter after the empty-AD step (ctr0 + 1); message block j uses ctr + j.
        tag: 8-word tag accumulator after the empty-AD step.
    """

    cis: tuple[int, ...]
    ctr: int
    tag: tuple[int, ...]

    def as_int(self) -> int:
        """The 448-bit value of the ``cis_param`` port: bits [255:0] = W_n at [16n+15:16n],
        [319:256] = ctr, [447:320] = T[j] at [320+16j+15 : 320+16j]."""
        v = 0
        for n, w in enumerate(self.cis):
            v |= w << (16 * n)
        v |= self.ctr << 256
        for j, t in enumerate(self.tag):
            v |= t << (320 + 16 * j)
        return v


def cis_parameters(key: bytes, pmn: bytes) -> CisParameters:
    """Initialization followed by the empty-AD step, for Key ‖ PMN.

    Raises:
        InputError: wrong key/PMN size.
    """
    cis, ctr0 = initialize(key, pmn)
    cis, ctr, tag = empty_ad_step(cis, ctr0)
    return CisParameters(cis, ctr, tag)


def _check_smn(smn) -> None:
    if smn is not None and (not isinstance(smn, (bytes, bytearray)) or len(smn) != SMN_BYTES):
        got = f"{len(smn)} bytes" if isinstance(smn, (bytes, bytearray)) else type(smn).__name__
        raise InputError(f"SMN must be {SMN_BYTES} bytes (128 bits) or absent, got {got}")


def _prologue(key, pmn, ad, smn):
    cis, ctr0 = initialize(key, pmn)
    cis, ctr, tag = process_ad(cis, ctr0, bytes(ad))
    return cis, ctr, tag


def encrypt(key: bytes, pmn: bytes, msg: bytes, ad: bytes = b"", smn: bytes | None = None) -> bytes:
    """π16-Cipher v2 authenticated encryption.

    Args:
        key: 12 bytes (pi16cipher096v2) or 16 bytes (pi16cipher128v2).
        pmn: public message number, 4 bytes.
        msg: plaintext, any length.
        ad: associated data, any length.
        smn: secret message number, 16 bytes, or None.
    Returns:
        [C0 (16 B, encrypted SMN) if smn] ‖ C (len(msg) bytes) ‖ tag (16 bytes) — the official
        ``CIPHER`` field.
    Raises:
        InputError: wrong key / PMN / SMN size.
    """
    _check_smn(smn)
    cis, ctr, tag = _prologue(key, pmn, ad, smn)
    out = b""
    if smn is not None:
        ctr = (ctr + 1) & MASK64
        c0, cis, tag = triplex(cis, ctr, bytes(smn), tag)
        out += c0
    msg = bytes(msg)
    for j, b in enumerate(split_blocks(msg), start=1):
        c, _, tag = triplex(cis, ctr + j, b, tag)
        out += c[:min(BLOCK_BYTES, len(msg) - BLOCK_BYTES * (j - 1))]
    return out + words_to_bytes(tag)


def decrypt(key: bytes, pmn: bytes, cipher: bytes, ad: bytes = b"", with_smn: bool = False):
    """π16-Cipher v2 authenticated decryption; releases nothing unless the tag is right.

    Args:
        key, pmn, ad: as for :func:`encrypt`.
        cipher: the ``CIPHER`` field: [C0 (16 B) if with_smn] ‖ C ‖ tag (16 B).
        with_smn: whether the ciphertext starts with an encrypted SMN.
    Returns:
        plaintext (bytes) if ``with_smn`` is False, else (smn, plaintext).
    Raises:
        InputError: wrong key/PMN size, or a ciphertext shorter than the tag (+ C0).
        AuthenticationError: the tag does not match (no plaintext is returned).
    """
    cipher = bytes(cipher)
    need = TAG_BYTES + (SMN_BYTES if with_smn else 0)
    if len(cipher) < need:
        raise InputError(f"ciphertext must be at least {need} bytes (tag{' + C0' if with_smn else ''}), "
                         f"got {len(cipher)}")
    cis, ctr, tag = _prologue(key, pmn, ad, None)
    pos = 0
    smn = None
    if with_smn:
        ctr = (ctr + 1) & MASK64
        smn, cis, tag = triplex(cis, ctr, cipher[:SMN_BYTES], tag, decrypt=True)
        pos = SMN_BYTES
    body, given = cipher[pos:-TAG_BYTES], cipher[-TAG_BYTES:]
    nfull = len(body) // BLOCK_BYTES
    plain = bytearray()
    for j in range(nfull + 1):
        chunk = body[BLOCK_BYTES * j:BLOCK_BYTES * (j + 1)]
        p, _, tag = triplex(cis, ctr + j + 1, chunk + bytes(BLOCK_BYTES - len(chunk)), tag,
                            decrypt=True, length=len(chunk))
        plain += p[:len(chunk)]
    if not _ct_equal(words_to_bytes(tag), given):
        plain[:] = bytes(len(plain))
        raise AuthenticationError("tag mismatch: ciphertext or associated data not authentic; "
                                  "no plaintext released")
    return (smn, bytes(plain)) if with_smn else bytes(plain)


def _ct_equal(a: bytes, b: bytes) -> bool:
    diff = len(a) ^ len(b)
    for x, y in zip(a, b):
        diff |= x ^ y
    return diff == 0


def parse_hex(text: str, what: str, size: int | tuple[int, ...] | None = None) -> bytes:
    """Parse a hex string (whitespace ignored, optional 0x) into bytes, checking its size.

    Args:
        text: hex digits.
        what: name used in error messages (e.g. "key").
        size: expected length(s) in bytes, or None for any.
    Raises:
        InputError: not hex, odd number of digits, or the wrong size (the message names the
        expected size).
    """
    t = "".join(str(text).split())
    if t[:2].lower() == "0x":
        t = t[2:]
    try:
        if len(t) % 2:
            raise ValueError
        b = bytes.fromhex(t)
    except ValueError:
        exp = _size_text(size)
        raise InputError(f"{what} is not a hex string of whole bytes{exp}: {text!r}") from None
    if size is not None:
        sizes = (size,) if isinstance(size, int) else tuple(size)
        if len(b) not in sizes:
            raise InputError(f"{what} must be{_size_text(size, lead=False)}, got {len(b)} bytes")
    return b


def _size_text(size, lead=True) -> str:
    if size is None:
        return ""
    sizes = (size,) if isinstance(size, int) else tuple(size)
    s = " or ".join(f"{n} bytes ({2 * n} hex digits)" for n in sizes)
    return f" (expected {s})" if lead else f" {s}"
