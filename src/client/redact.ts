/**
 * @module client/redact
 * Keeps secrets out of everything servelab stores or prints: header values that carry
 * credentials are replaced before a configuration is stored, and free-text error messages are
 * scrubbed of the API key (servers sometimes echo the key back in a 401 body).
 */

/** What a redacted value reads as. */
export const REDACTED = '<redacted>';

/** Header names whose values are secret: Authorization, Cookie, `*-Key`, `*-Token` (case-insensitive). */
const SECRET_HEADER = /^(?:authorization|proxy-authorization|cookie|set-cookie|.*-key|.*-token)$/i;

/** True when a header of this name carries a credential. */
export function isSecretHeader(name: string): boolean {
  return SECRET_HEADER.test(name.trim());
}

/**
 * Copy of `h` with the values of credential headers (`Authorization`, `*-Key`, `*-Token`,
 * `Cookie`; case-insensitive) replaced by `<redacted>`. Used for every stored configuration.
 *
 * @example redactHeaders({ 'X-Api-Key': 's3cret', Accept: 'x' }) // { 'X-Api-Key': '<redacted>', Accept: 'x' }
 */
export function redactHeaders(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k] = isSecretHeader(k) ? REDACTED : v;
  return out;
}

/**
 * Remove secrets from a message: every occurrence of each given secret, and any
 * `Bearer <token>` text. Secrets shorter than 4 characters are not searched for (they would
 * shred ordinary words) but still never enter a message through servelab's own code.
 */
export function scrubSecrets(message: string, secrets: readonly (string | undefined)[]): string {
  let out = message;
  for (const s of secrets) {
    if (s && s.length >= 4) out = out.split(s).join(REDACTED);
  }
  return out.replace(/Bearer\s+[^\s"',;]+/gi, `Bearer ${REDACTED}`);
}

/** Kept here too so that `client` users find it with the other redaction helpers. */
export { redactUrl } from '../core/url.js';
