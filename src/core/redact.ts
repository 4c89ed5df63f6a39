/**
 * @module core/redact
 * Keeps secrets out of everything servelab stores, prints or reports, one way everywhere: the
 * store's JSON columns, the configuration in report.json, request headers, the HTML and Markdown
 * reports, URLs (`core/url` redactUrl) and free-text error messages (servers sometimes echo the
 * key back in a 401 body) all use the same name test and the same placeholder.
 */

/** What a redacted value reads as. */
export const REDACTED = '[redacted]';

/**
 * Names (header, query parameter or JSON key) whose values are secret. Three ways to match:
 * - `secret`, `password`/`passwd` or `credential` anywhere: `client_secret`, `DB_PASSWORD`;
 * - the whole name or its last `-`/`_`/`.` segment is `authorization`, `cookie`, `token`, `key`,
 *   `apikey`, `auth`, `signature` or `sig`: `Proxy-Authorization`, `Set-Cookie`, `X-Api-Key`,
 *   `api_key`, `hf_token`, `access_token`, `X-Auth-Token`, `?key=`, `?sig=`;
 * - a camelCase credential: `apiKey`, `accessToken`, `authToken`, `hfToken`.
 * So `tokenization`, `tokenizer`, `max_tokens`, `prompt_tokens`, `kvBytesPerToken`,
 * `X-Keyboard` and `api_key_env` (the *name* of a variable) are kept.
 */
const SECRET_NAME = new RegExp(
  [
    'secret|passw(?:or)?d|credential',
    '(?:^|[-_.])(?:authorization|cookie|token|key|apikey|auth|signature|sig)$',
    '^(?:api|access|auth|bearer|refresh|id|hf|session|private)[-_]?(?:key|token)$',
  ].join('|'),
  'i',
);

/** True when a header, query parameter or JSON key of this name carries a credential. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name.trim());
}

/**
 * A deep copy of `v` with the value of every secret-named key (see {@link isSecretName})
 * replaced by {@link REDACTED}. A safety net: callers should never hand a key to the store or a
 * report, but a header map copied into a config must not leak one.
 *
 * @example redactSecrets({ headers: { Authorization: 'Bearer k' }, max_tokens: 8 })
 * // { headers: { Authorization: '[redacted]' }, max_tokens: 8 }
 */
export function redactSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(redactSecrets);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      out[k] = isSecretName(k) && x != null ? REDACTED : redactSecrets(x);
    return out;
  }
  return v;
}

/**
 * Copy of `h` with the values of credential headers replaced by {@link REDACTED}. Used for every
 * stored configuration.
 *
 * @example redactHeaders({ 'X-Api-Key': 's3cret', Accept: 'x' }) // { 'X-Api-Key': '[redacted]', Accept: 'x' }
 */
export function redactHeaders(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k] = isSecretName(k) ? REDACTED : v;
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
