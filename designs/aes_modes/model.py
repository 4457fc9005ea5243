"""Golden model of AES-128-CMAC (NIST SP 800-38B) and AES-128-GCM (NIST SP 800-38D), pure Python.

Written from the standards on the block cipher of :mod:`dcsflow.designs.aes128.model`
(:func:`~dcsflow.designs.aes128.model.encrypt_rounds`, FIPS-197 written out in Python; the
tests check the modes against the ``cryptography`` library's CMAC and AESGCM):

- CMAC: subkey generation with dbl() (SP 800-38B §6.1, :func:`dbl`, :func:`cmac_subkeys`), MAC
  generation (§6.2, :func:`cmac`) and verification (§6.3, :func:`cmac_verify`); 128-bit tags.
- GCM: the multiplication in GF(2^128) with GCM's bit-reflected convention (SP 800-38D §6.3,
  Algorithm 1, :func:`gf128_mul`), GHASH (§6.4, :func:`ghash`), GCTR (§6.5, :func:`gctr`),
  authenticated encryption (§7.1, :func:`gcm_encrypt`) and decryption (§7.2,
  :func:`gcm_decrypt`) for 96-bit IVs and 128-bit tags.
- :func:`ghash_matrix`: the 128x128 matrix over GF(2) of the linear map X -> X·H, which the TLUT
  build implements with H as parameter.

Bit and integer convention (as in :mod:`dcsflow.designs.aes128.model`): a 128-bit block is the
big-endian integer of its 16 bytes, so the standards' leftmost bit (bit 0 of a GCM block, the
coefficient of x^0 in GHASH's field; the most significant bit in CMAC's dbl()) is the integer's
bit 127.
"""

from __future__ import annotations

import hmac
from typing import Callable

from ..aes128.model import encrypt_rounds
from .errors import AuthenticationError, InputError

#: bytes of a block, key, GCM IV and tag
BLOCK_BYTES = KEY_BYTES = TAG_BYTES = 16
IV_BYTES = 12
#: R = 11100001 || 0^120 (SP 800-38D §6.3): the reduction constant of the bit-reflected field
R_GCM = 0xE1 << 120
#: R_128 = 0^120 || 10000111 (SP 800-38B §5.3): the constant of dbl()
R_CMAC = 0x87
_MASK = (1 << 128) - 1

#: a block cipher: (16-byte key, 16-byte block) -> 16-byte block
BlockCipher = Callable[[bytes, bytes], bytes]


def _bytes(value, n: int | None, what: str) -> bytes:
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise InputError(f"{what} must be bytes, got {type(value).__name__}")
    value = bytes(value)
    if n is not None and len(value) != n:
        raise InputError(f"{what} must be {n} bytes ({8 * n} bits), got {len(value)}")
    return value


def _int(b: bytes) -> int:
    return int.from_bytes(b, "big")


def _blk(x: int) -> bytes:
    return x.to_bytes(16, "big")


# ---------------------------------------------------------------------------------------- CMAC
def dbl(x: int) -> int:
    """SP 800-38B §6.1 (and §5.3's R_128): the 128-bit ``x`` shifted left by one bit, XOR 0x87 if
    its most significant bit was 1 (multiplication by x in GF(2^128) modulo
    x^128 + x^7 + x^2 + x + 1). Integers in 0 .. 2^128 - 1."""
    return ((x << 1) & _MASK) ^ (R_CMAC if x >> 127 else 0)


def cmac_subkeys(key: bytes, cipher: BlockCipher = encrypt_rounds) -> tuple[bytes, bytes]:
    """SP 800-38B §6.1 SUBK: L = CIPH_K(0^128), K1 = dbl(L), K2 = dbl(K1); 16 bytes each.

    Raises:
        InputError: ``key`` is not 16 bytes.
    """
    key = _bytes(key, KEY_BYTES, "key")
    k1 = dbl(_int(cipher(key, bytes(16))))
    return _blk(k1), _blk(dbl(k1))


def cmac(key: bytes, msg: bytes, cipher: BlockCipher = encrypt_rounds) -> bytes:
    """AES-128-CMAC (SP 800-38B §6.2, Tlen = 128) of a message of any byte length (0 allowed):
    the last block is XORed with K1 if complete, else padded with 10..0 and XORed with K2; the
    tag is the last CBC-MAC block. Returns the 16-byte tag.

    Raises:
        InputError: ``key`` is not 16 bytes, ``msg`` not bytes.
    """
    key = _bytes(key, KEY_BYTES, "key")
    msg = _bytes(msg, None, "message")
    k1, k2 = cmac_subkeys(key, cipher)
    n = max(1, -(-len(msg) // 16))                               # step 2: n = ceil(Mlen/b), 1 if empty
    blocks = [msg[16 * i:16 * i + 16] for i in range(n)]
    last = blocks[-1]
    if len(last) == 16 and msg:                                  # step 4: complete final block
        blocks[-1] = bytes(a ^ b for a, b in zip(last, k1))
    else:                                                        # Mn* || 10^j, XOR K2
        padded = last + b"\x80" + bytes(15 - len(last))
        blocks[-1] = bytes(a ^ b for a, b in zip(padded, k2))
    c = bytes(16)                                                # step 5: C0 = 0^b
    for m in blocks:                                             # step 6: Ci = CIPH_K(C_{i-1} ^ Mi)
        c = cipher(key, bytes(a ^ b for a, b in zip(c, m)))
    return c                                                     # step 7: T = MSB_128(Cn)


def cmac_verify(key: bytes, msg: bytes, tag: bytes, cipher: BlockCipher = encrypt_rounds) -> bool:
    """SP 800-38B §6.3: whether ``tag`` (16 bytes) is the CMAC of ``msg`` (constant-time compare).

    Raises:
        InputError: ``key`` or ``tag`` not 16 bytes.
    """
    tag = _bytes(tag, TAG_BYTES, "tag")
    return hmac.compare_digest(cmac(key, msg, cipher), tag)


# ----------------------------------------------------------------------------------------- GCM
def gf128_mul(x: int, y: int) -> int:
    """X·Y in GF(2^128) as SP 800-38D §6.3 Algorithm 1 defines it: bit 0 (leftmost, the integer's
    bit 127) is the coefficient of x^0, reduction by x^128 + x^7 + x^2 + x + 1 (R = 0xE1 || 0^120).
    Integers in 0 .. 2^128 - 1 (big-endian value of the 16-byte block)."""
    z, v = 0, y
    for i in range(128):
        if (x >> (127 - i)) & 1:                                 # x_i = 1: Z ^= V
            z ^= v
        v = (v >> 1) ^ R_GCM if v & 1 else v >> 1                # V = rightshift(V) (^ R if LSB1(V))
    return z


def ghash(h: bytes, x: bytes) -> bytes:
    """GHASH_H(X) (SP 800-38D §6.4): Y0 = 0, Yi = (Y_{i-1} ^ Xi)·H over the 16-byte blocks of ``x``;
    returns Ym (16 bytes).

    Raises:
        InputError: ``h`` not 16 bytes, ``x`` not a multiple of 16 bytes.
    """
    hi = _int(_bytes(h, BLOCK_BYTES, "H"))
    x = _bytes(x, None, "GHASH input")
    if len(x) % 16:
        raise InputError(f"GHASH input must be a multiple of 16 bytes, got {len(x)}")
    y = 0
    for i in range(0, len(x), 16):
        y = gf128_mul(y ^ _int(x[i:i + 16]), hi)
    return _blk(y)


def inc32(block: bytes) -> bytes:
    """inc_32 (SP 800-38D §6.2): the last 32 bits of the 16-byte ``block`` incremented mod 2^32."""
    return block[:12] + ((_int(block[12:]) + 1) & 0xFFFFFFFF).to_bytes(4, "big")


def gctr(key: bytes, icb: bytes, x: bytes, cipher: BlockCipher = encrypt_rounds) -> bytes:
    """GCTR_K(ICB, X) (SP 800-38D §6.5): X XOR the key stream CIPH_K(CB1) CIPH_K(CB2) ... with
    CB1 = ICB and CBi = inc32(CB_{i-1}); the last partial block uses the key stream's leading
    bytes. Same length as ``x`` (empty for empty ``x``).

    Raises:
        InputError: ``key`` or ``icb`` not 16 bytes.
    """
    key = _bytes(key, KEY_BYTES, "key")
    cb = _bytes(icb, BLOCK_BYTES, "initial counter block")
    x = _bytes(x, None, "GCTR input")
    out = bytearray()
    for i in range(0, len(x), 16):
        ks = cipher(key, cb)
        out += bytes(a ^ b for a, b in zip(x[i:i + 16], ks))
        cb = inc32(cb)
    return bytes(out)


def _pad16(b: bytes) -> bytes:
    return b + bytes(-len(b) % 16)


def _gcm_tag(key: bytes, iv: bytes, ct: bytes, aad: bytes, cipher: BlockCipher) -> bytes:
    """Steps 1, 2, 4-6 of §7.1 (and 2, 3, 5-7 of §7.2): H, J0, S, T."""
    h = cipher(key, bytes(16))                                   # H = CIPH_K(0^128)
    j0 = iv + b"\0\0\0\x01"                                      # J0 = IV || 0^31 || 1 (len(IV) = 96)
    lens = (8 * len(aad)).to_bytes(8, "big") + (8 * len(ct)).to_bytes(8, "big")
    s = ghash(h, _pad16(aad) + _pad16(ct) + lens)                # S = GHASH_H(A||0^v||C||0^u||[len(A)]64||[len(C)]64)
    return gctr(key, j0, s, cipher)                              # T = MSB_128(GCTR_K(J0, S))


def _gcm_args(key, iv, data, aad, what: str) -> tuple[bytes, bytes, bytes, bytes]:
    key = _bytes(key, KEY_BYTES, "key")
    iv = _bytes(iv, IV_BYTES, "IV")
    data = _bytes(data, None, what)
    aad = _bytes(aad, None, "additional authenticated data")
    # SP 800-38D §5.2.1.1: len(P) <= 2^39 - 256 bits, len(A) <= 2^64 - 1 bits
    if 8 * len(data) > (1 << 39) - 256 or 8 * len(aad) > (1 << 64) - 1:
        raise InputError(f"{what} or additional data longer than SP 800-38D §5.2.1.1 allows")
    return key, iv, data, aad


def gcm_encrypt(key: bytes, iv: bytes, pt: bytes, aad: bytes = b"",
                cipher: BlockCipher = encrypt_rounds) -> tuple[bytes, bytes]:
    """GCM-AE_K(IV, P, A) (SP 800-38D §7.1) for a 16-byte key, a 12-byte (96-bit) IV and a 128-bit
    tag: C = GCTR_K(inc32(J0), P), T as in §7.1 steps 5-6. Returns (ciphertext of len(pt) bytes,
    16-byte tag).

    Raises:
        InputError: key not 16 bytes, IV not 12 bytes, a value that is not bytes, lengths beyond
            §5.2.1.1.
    """
    key, iv, pt, aad = _gcm_args(key, iv, pt, aad, "plaintext")
    ct = gctr(key, inc32(iv + b"\0\0\0\x01"), pt, cipher)
    return ct, _gcm_tag(key, iv, ct, aad, cipher)


def gcm_decrypt(key: bytes, iv: bytes, ct: bytes, tag: bytes, aad: bytes = b"",
                cipher: BlockCipher = encrypt_rounds) -> bytes:
    """GCM-AD_K(IV, C, A, T) (SP 800-38D §7.2) for a 16-byte key, a 12-byte IV and a 16-byte tag:
    the tag is recomputed from C and A and compared (constant time); only if it matches is
    P = GCTR_K(inc32(J0), C) computed and returned (len(ct) bytes).

    Raises:
        AuthenticationError: the tag does not match (§7.2 step 8: FAIL); no plaintext.
        InputError: key not 16 bytes, IV not 12 bytes, tag not 16 bytes, a value that is not bytes.
    """
    key, iv, ct, aad = _gcm_args(key, iv, ct, aad, "ciphertext")
    tag = _bytes(tag, TAG_BYTES, "tag")
    if not hmac.compare_digest(_gcm_tag(key, iv, ct, aad, cipher), tag):
        raise AuthenticationError("GCM tag mismatch: the ciphertext or additional data is not authentic")
    return gctr(key, inc32(iv + b"\0\0\0\x01"), ct, cipher)


def gcm_hash_key(key: bytes, cipher: BlockCipher = encrypt_rounds) -> bytes:
    """The hash subkey H = CIPH_K(0^128) (SP 800-38D §7.1 step 1), 16 bytes.

    Raises:
        InputError: ``key`` is not 16 bytes.
    """
    return cipher(_bytes(key, KEY_BYTES, "key"), bytes(16))


# ------------------------------------------------------------------------- the map X -> X·H
def ghash_matrix(h: bytes | int) -> tuple[int, ...]:
    """The 128x128 matrix M over GF(2) of the linear map X -> X·H (SP 800-38D §6.3 product) for a
    fixed H (16 bytes or its big-endian integer): ``M[i]`` is the row of output bit i as a 128-bit
    mask over the input bits, both in the standard's bit numbering (bit 0 = leftmost = the
    integer's bit 127). Output bit i of X·H is the parity of ``M[i] & X`` (:func:`matrix_apply`):
    each product bit is the XOR of the input bits its row selects — what the TLUT build
    implements with H as parameter. Column j is e_j·H = H·x^j (H shifted right j times with
    reduction).

    Raises:
        InputError: ``h`` neither 16 bytes nor an integer in 0 .. 2^128 - 1.
    """
    if isinstance(h, int) and not isinstance(h, bool):
        if not 0 <= h <= _MASK:
            raise InputError("H must be a 128-bit value (0 .. 2^128 - 1)")
        v = h
    else:
        v = _int(_bytes(h, BLOCK_BYTES, "H"))
    rows = [0] * 128
    for j in range(128):                                          # column j = H·x^j
        for i in range(128):
            if (v >> (127 - i)) & 1:
                rows[i] |= 1 << (127 - j)
        v = (v >> 1) ^ R_GCM if v & 1 else v >> 1
    return tuple(rows)


def matrix_apply(m: tuple[int, ...], x: int) -> int:
    """M·X over GF(2) for a matrix of :func:`ghash_matrix` (128 row masks) and a 128-bit integer X
    (same bit convention); returns the 128-bit result.

    Raises:
        InputError: ``m`` does not have 128 rows.
    """
    if len(m) != 128:
        raise InputError(f"a GHASH matrix has 128 rows, got {len(m)}")
    y = 0
    for i, row in enumerate(m):
        y |= (bin(row & x).count("1") & 1) << (127 - i)
    return y
