"""AES-128 golden model (FIPS-197).

Encryption goes through the ``cryptography`` library (OpenSSL's AES, ECB mode = the bare block
cipher): :func:`encrypt`, :func:`decrypt`. The pieces the RTL is built from are written out here in
pure Python, straight from FIPS-197, and checked against the library in the tests:

- :func:`sbox_table`: the S-box computed as the multiplicative inverse in GF(2^8) modulo
  x^8 + x^4 + x^3 + x + 1 followed by the affine map (FIPS-197 §5.1.1);
- :func:`key_expansion`: the 44-word key schedule (FIPS-197 §5.2), as 11 round keys of 16 bytes;
- :func:`encrypt_rounds`: the cipher of FIPS-197 §5.1 on those pieces (state = 16 bytes in
  column-major order, byte 0 = the first input byte).

Byte/integer convention used by the RTL and the flow: a 128-bit value is the big-endian integer of
its 16 bytes (byte 0 = bits 127..120), as in the FIPS-197 and CAVP hex strings.
"""

from __future__ import annotations

from functools import lru_cache

from .errors import InputError

KEY_BYTES = 16
BLOCK_BYTES = 16


def xtime(b: int) -> int:
    """Multiplication by x in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (FIPS-197 §4.2.1)."""
    b <<= 1
    return (b ^ 0x11B) if b & 0x100 else b


def gmul(a: int, b: int) -> int:
    """Product in GF(2^8) (FIPS-197 §4.2)."""
    r = 0
    while b:
        if b & 1:
            r ^= a
        a = xtime(a)
        b >>= 1
    return r


def _rcon() -> tuple[int, ...]:
    v, out = 1, []
    for _ in range(10):
        out.append(v)
        v = xtime(v)
    return tuple(out)


#: round constants Rcon[1..10] (first byte of the word; FIPS-197 §5.2): x^(i-1) in GF(2^8)
RCON = _rcon()


@lru_cache(maxsize=None)
def sbox_table() -> tuple[int, ...]:
    """The 256-entry S-box: inverse in GF(2^8) (0 -> 0), then the affine map with constant 0x63
    (FIPS-197 §5.1.1, equation 5.1)."""
    inv = [0] * 256
    for a in range(1, 256):
        for b in range(1, 256):
            if gmul(a, b) == 1:
                inv[a] = b
                break
    out = []
    for a in range(256):
        x = inv[a]
        s = x
        for k in range(1, 5):
            s ^= ((x << k) | (x >> (8 - k))) & 0xFF
        out.append(s ^ 0x63)
    return tuple(out)


def parse_hex(text: str, what: str, nbytes: int = 16) -> bytes:
    """Hex text (no prefix, any case) of exactly ``nbytes`` bytes -> bytes.

    Raises:
        InputError: not hex, or the wrong length; the message names the expected size, e.g.
            ``key must be 32 hex digits (128 bits), got 30``.
    """
    t = text.strip()
    if t[:2].lower() == "0x":
        t = t[2:]
    if len(t) != 2 * nbytes:
        raise InputError(f"{what} must be {2 * nbytes} hex digits ({8 * nbytes} bits), got {len(t)}")
    try:
        return bytes.fromhex(t)
    except ValueError:
        raise InputError(f"{what} must be {2 * nbytes} hex digits ({8 * nbytes} bits): not hex") from None


def _check(b: bytes, what: str) -> bytes:
    if not isinstance(b, (bytes, bytearray)) or len(b) != 16:
        n = len(b) if isinstance(b, (bytes, bytearray)) else "?"
        raise InputError(f"{what} must be 16 bytes (128 bits), got {n}")
    return bytes(b)


def _ecb(key: bytes):
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    return Cipher(algorithms.AES(_check(key, "key")), modes.ECB())


def encrypt(key: bytes, block: bytes) -> bytes:
    """AES-128 encryption of one 16-byte block with a 16-byte key (library: ``cryptography``).

    Raises:
        InputError: key or block not 16 bytes.
    """
    e = _ecb(key).encryptor()
    return e.update(_check(block, "plaintext")) + e.finalize()


def decrypt(key: bytes, block: bytes) -> bytes:
    """AES-128 decryption of one 16-byte block (library: ``cryptography``). Raises InputError."""
    d = _ecb(key).decryptor()
    return d.update(_check(block, "ciphertext")) + d.finalize()


def key_expansion(key: bytes) -> list[bytes]:
    """The 11 round keys (16 bytes each) of FIPS-197 §5.2 (words w[4r..4r+3] of round r)."""
    sb = sbox_table()
    w = [list(_check(key, "key")[4 * i:4 * i + 4]) for i in range(4)]
    for i in range(4, 44):
        t = list(w[i - 1])
        if i % 4 == 0:
            t = [sb[b] for b in t[1:] + t[:1]]
            t[0] ^= RCON[i // 4 - 1]
        w.append([a ^ b for a, b in zip(w[i - 4], t)])
    return [bytes(sum(w[4 * r:4 * r + 4], [])) for r in range(11)]


def _mix(s: list[int]) -> list[int]:
    out = []
    for c in range(4):
        a = s[4 * c:4 * c + 4]
        out += [gmul(a[0], 2) ^ gmul(a[1], 3) ^ a[2] ^ a[3],
                a[0] ^ gmul(a[1], 2) ^ gmul(a[2], 3) ^ a[3],
                a[0] ^ a[1] ^ gmul(a[2], 2) ^ gmul(a[3], 3),
                gmul(a[0], 3) ^ a[1] ^ a[2] ^ gmul(a[3], 2)]
    return out


def encrypt_rounds(key: bytes, block: bytes) -> bytes:
    """AES-128 encryption written out from FIPS-197 §5.1 (SubBytes, ShiftRows, MixColumns,
    AddRoundKey) on :func:`sbox_table` and :func:`key_expansion`; equals :func:`encrypt`."""
    sb = sbox_table()
    rk = key_expansion(key)
    s = [a ^ b for a, b in zip(_check(block, "plaintext"), rk[0])]
    for r in range(1, 11):
        s = [sb[b] for b in s]
        s = [s[4 * ((c + row) % 4) + row] for c in range(4) for row in range(4)]   # ShiftRows
        if r != 10:
            s = _mix(s)
        s = [a ^ b for a, b in zip(s, rk[r])]
    return bytes(s)
