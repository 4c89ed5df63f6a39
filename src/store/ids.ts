/**
 * @module store/ids
 * Short printable ids for experiments and runs: 8 characters of Crockford base32 (lower case,
 * no i/l/o/u, so an id read aloud or copied from a terminal is unambiguous) = 40 random bits.
 * The byte source is passed in: `crypto.randomBytes` in production, a seeded {@link Rng} in tests.
 */
import { randomBytes } from 'node:crypto';
import type { Rng } from '../runtime/rng.js';

/** Crockford's base32 alphabet, lower case. */
export const ID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** Length of a generated id in characters (5 bytes = 40 bits = 8 base32 digits). */
export const ID_LENGTH = 8;

/** Returns `n` random bytes. */
export type RandomBytes = (n: number) => Uint8Array;

/** The operating system's CSPRNG (I/O, so it is injectable). */
export const cryptoRandomBytes: RandomBytes = (n) => randomBytes(n);

/** A byte source driven by a seeded generator, for reproducible ids in tests. */
export function rngRandomBytes(rng: Rng): RandomBytes {
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = rng.nextU32() & 0xff;
    return out;
  };
}

/** Encode 5 random bytes from `source` as an 8-character base32 id. */
export function newShortId(source: RandomBytes): string {
  const b = source(5);
  // 40 bits → eight 5-bit groups, most significant first.
  let bits = 0n;
  for (let i = 0; i < 5; i++) bits = (bits << 8n) | BigInt(b[i] ?? 0);
  let out = '';
  for (let i = ID_LENGTH - 1; i >= 0; i--) out += ID_ALPHABET[Number((bits >> BigInt(i * 5)) & 31n)];
  return out;
}

/** True when `s` could be an id or an id prefix (only alphabet characters). */
export function isIdPrefix(s: string): boolean {
  if (s.length === 0 || s.length > ID_LENGTH) return false;
  for (const ch of s) if (!ID_ALPHABET.includes(ch)) return false;
  return true;
}
