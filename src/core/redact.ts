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
  // A lowercase word or a `<placeholder>` after "Bearer" is prose ("the Bearer token that …",
  // `--api-key <key>`'s help), not a credential: keys carry digits, capitals or symbols, and a
  // remembered key is scrubbed above by its value whatever it looks like.
  return out.replace(/Bearer\s+([^\s"',;]+)/gi, (m, v: string) =>
    /^(?:[a-z]+|<[^>]*>)$/.test(v) ? m : `Bearer ${REDACTED}`,
  );
}

/**
 * The secret values this process has been given (an API key read from its environment
 * variable, a URL's userinfo, a credential header's value): {@link redactText} removes every
 * one of them from any text, whatever header or field name it came under. Process-wide on
 * purpose: a server can echo the key anywhere (a 401 body that becomes a check's evidence, an
 * error message in a record), and every output path (the console streams of `cli/io`, the
 * files of `output/write`, the store's columns) passes through the same function.
 */
const knownSecrets = new Set<string>();

/** Remember `value` as a secret for {@link redactText} (values under 4 characters are ignored). */
export function rememberSecret(value: string | null | undefined): void {
  const v = value?.trim();
  if (!v || v.length < 4) return;
  knownSecrets.add(v);
  const bearer = /^(?:Bearer|Basic|Token)\s+(\S{4,})$/i.exec(v);
  if (bearer) knownSecrets.add(bearer[1]);
  try {
    const enc = encodeURIComponent(v);
    if (enc !== v) knownSecrets.add(enc);
  } catch {}
}

/** Remember the userinfo (user and password) of a URL as secrets. */
export function rememberUrlSecrets(url: string): void {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/@\s]*)@/i.exec(url.trim());
  if (!m) return;
  for (const part of m[1].split(':')) {
    rememberSecret(part);
    try {
      rememberSecret(decodeURIComponent(part));
    } catch {}
  }
}

/** Remember a `Name: value` header's value when the name is a credential's (see {@link isSecretName}). */
export function rememberHeaderSecret(header: string): void {
  const i = header.indexOf(':');
  if (i > 0 && isSecretName(header.slice(0, i))) rememberSecret(header.slice(i + 1));
}

/**
 * Remember the secrets a command line carries: the value of the API key's environment variable
 * (`--api-key-env NAME`, default `INFERENCE_API_KEY`), URL userinfo in any argument, and credential
 * headers (`--header 'X-Api-Key: …'`). An experiment file's `api_key_env` is remembered where it is read.
 */
export function rememberArgvSecrets(argv: readonly string[], env: Record<string, string | undefined>): void {
  rememberSecret(env.INFERENCE_API_KEY);
  argv.forEach((a, i) => {
    const [flag, inline] =
      a.startsWith('--') && a.includes('=')
        ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]
        : [a, undefined];
    const value = inline ?? argv[i + 1];
    if (flag === '--api-key-env' && value) rememberSecret(env[value]);
    if ((flag === '--header' || flag === '-H') && value) rememberHeaderSecret(value);
    if (flag === '--api-key' && value) rememberSecret(value);
    rememberUrlSecrets(inline ?? a);
  });
}

/** Userinfo in a URL anywhere in a text (`http://user:key@host`). */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/@\s"']+@/gi;

/**
 * The one redaction of free text on its way out (console, files, store): every remembered
 * secret (see {@link rememberSecret}), any `Bearer <token>`, and URL userinfo.
 */
export function redactText(text: string): string {
  if (!text) return text;
  return scrubSecrets(text, [...knownSecrets]).replace(URL_USERINFO, '$1');
}

/**
 * {@link redactSecrets} and then {@link redactText} on every string: what a JSON document
 * (report, store column, `--json` result) goes out as.
 */
export function redactForOutput<V>(v: V): V {
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') return redactText(x);
    if (Array.isArray(x)) return x.map(walk);
    if (x !== null && typeof x === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, y] of Object.entries(x)) out[k] = isSecretName(k) && y != null ? REDACTED : walk(y);
      return out;
    }
    return x;
  };
  return walk(v) as V;
}

/**
 * Whether a header value is a credential whatever its header's name: a remembered secret (the
 * API key), or an `Authorization` scheme's value (`Bearer …`, `Basic …`, `Token …`).
 */
export function looksLikeCredential(value: string): boolean {
  const v = value.trim();
  return /^(?:Bearer|Basic|Token|Digest)\s+\S/i.test(v) || [...knownSecrets].some((s) => v.includes(s));
}

/**
 * A configuration file's text (YAML or JSON) as it may be stored: every `name: value` line whose
 * name is a credential's (see {@link isSecretName}) gets {@link REDACTED} for its value, and the
 * rest passes {@link redactText}. The parsed spec is redacted by {@link redactSecrets} the same way.
 */
export function redactConfigText(text: string): string {
  const line = /^([ \t]*-?[ \t]*["']?([A-Za-z0-9_.-]+)["']?[ \t]*:[ \t]*)(\S.*)$/gm;
  return redactText(
    text.replace(line, (whole, head: string, name: string, value: string) =>
      isSecretName(name) && !/^[|>{[]/.test(value) ? `${head}${REDACTED}` : whole,
    ),
  );
}
