/**
 * @module core/url
 * The few things every command needs to know about a target's base URL, in one place so that
 * `run`, `check`, `exp` and monitoring agree: how to print it without credentials, where the
 * server root is (vLLM and SGLang serve `/metrics`, `/version` and `/tokenize` next to `/v1`,
 * not under it), which `host:port` to name in a hint, and whether the server runs on this
 * machine (so its GPU can be read here).
 */
import { hostname, networkInterfaces } from 'node:os';
import { type T, translator } from '../i18n/index.js';
import { isSecretName, REDACTED } from './redact.js';

/**
 * `url` without `user:password@`, for printing and storing. The trailing slash is kept as
 * written (`new URL` would add one to a bare origin). Text that is not an http(s) URL still
 * loses a leading `user:password@`.
 *
 * @example redactUrl('http://u:p@127.0.0.1:8000/v1') // 'http://127.0.0.1:8000/v1'
 */
export function redactUrl(url: string): string {
  let u: URL | null = null;
  try {
    u = new URL(url);
  } catch {}
  // `user:pw@host/v1` parses too, as scheme `user:` with no userinfo: only http(s) URLs are
  // taken apart; anything else loses a leading `user:password@` by pattern.
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:'))
    return url.replace(/^([^/@]*\/\/)?[^/@]*@/, '$1');
  u.username = '';
  u.password = '';
  // Keys passed in the query string (`?api_key=…`, `&token=…`) are secrets too.
  for (const name of [...u.searchParams.keys()]) if (isSecretName(name)) u.searchParams.set(name, REDACTED);
  return u.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
}

/** A base URL as used, and whether `/v1` was added to it or an endpoint path taken off. */
export interface BaseUrl {
  /** The URL to send to, trailing slashes removed (credentials kept: redact before printing). */
  url: string;
  /** True when the given URL had no path and `/v1` was appended. */
  added: boolean;
  /** The API endpoint path removed from the end of the given URL (`/chat/completions`), when one was. */
  trimmed?: string;
}

/**
 * The OpenAI API paths a user may paste after the base URL: the endpoint a curl example posts to
 * (https://platform.openai.com/docs/api-reference/chat/create, `…/v1/chat/completions`), or the
 * model list. servelab appends its own paths to the base, so they are taken off rather than
 * requested as `…/v1/chat/completions/models`.
 */
const ENDPOINT_PATH =
  /\/(?:chat\/completions|completions|models|embeddings|responses|audio\/(?:speech|transcriptions))\/*$/i;

/**
 * The OpenAI base URL for what a user typed: an OpenAI endpoint path at the end
 * (`/chat/completions`, `/completions`, `/models`, …) is taken off first; then a bare origin
 * (`http://h:8000`, `http://h:8000/`) gets `/v1`, the path vLLM, SGLang and llama.cpp serve the
 * OpenAI API under; any other path (`/v1`, `/openai/v1`, `/api`) is used as given, less trailing
 * slashes. A query string is kept after the path. The one place `run`, `check` and experiment
 * targets read `--url`/`url:`.
 *
 * @example withV1('http://127.0.0.1:8000') // {url: 'http://127.0.0.1:8000/v1', added: true}
 * @example withV1('http://127.0.0.1:8000/v1/') // {url: 'http://127.0.0.1:8000/v1', added: false}
 * @example withV1('http://h:8000/v1/chat/completions') // {url: 'http://h:8000/v1', added: false, trimmed: '/chat/completions'}
 */
export function withV1(raw: string): BaseUrl {
  let given = raw;
  let trimmed: string | undefined;
  const parts = /^(https?:\/\/[^/?#]*)(\/[^?#]*)?([?#].*)?$/i.exec(raw);
  const endpoint = parts?.[2] ? ENDPOINT_PATH.exec(parts[2]) : null;
  if (parts && endpoint) {
    trimmed = endpoint[0].replace(/\/+$/, '');
    given = `${parts[1]}${parts[2].slice(0, endpoint.index)}${parts[3] ?? ''}`;
  }
  const extra = trimmed === undefined ? {} : { trimmed };
  const bare = /^(https?:\/\/[^/?#]*)\/*([?#].*)?$/i.exec(given);
  if (bare) return { url: `${bare[1]}/v1${bare[2] ?? ''}`, added: true, ...extra };
  const m = /^([^?#]*?)\/*([?#].*)?$/.exec(given);
  return { url: m ? `${m[1]}${m[2] ?? ''}` : given, added: false, ...extra };
}

/**
 * The stderr line that says which base URL was used when `/v1` was added or an endpoint path
 * taken off (credentials removed).
 */
export function withV1Note(b: BaseUrl, t: T = translator('en')): string | null {
  const url = redactUrl(b.url);
  if (b.trimmed !== undefined)
    return t(b.added ? 'cli.note.trimmed_endpoint_added_v1' : 'cli.note.trimmed_endpoint', {
      url,
      path: b.trimmed,
    });
  return b.added ? t('cli.note.added_v1', { url }) : null;
}

/**
 * The server root for an OpenAI base URL: trailing slashes and a final `/v1` removed, and no
 * userinfo, query or fragment (`http://u:p@h:8000/v1/` → `http://h:8000`). Safe both to print
 * and to request (undici ignores userinfo anyway). Never throws: text that is not an http(s)
 * URL is trimmed the same way as a string.
 *
 * @example serverRoot('https://api.example.com/openai/v1') // 'https://api.example.com/openai'
 */
export function serverRoot(baseUrl: string): string {
  const clean = redactUrl(baseUrl);
  let u: URL | null = null;
  try {
    u = new URL(clean);
  } catch {}
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:'))
    return clean
      .replace(/[?#].*$/, '')
      .replace(/\/+$/, '')
      .replace(/\/v1$/, '');
  u.search = '';
  u.hash = '';
  u.pathname = u.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return u.toString().replace(/\/+$/, '');
}

/**
 * `host:port` of an http(s) URL, for hints such as "is the server running on 127.0.0.1:8000?";
 * otherwise the text itself, without credentials (`localhost:8000/v1` parses as scheme
 * `localhost:` with no host, which would make an empty hint).
 */
export function hostOf(url: string): string {
  try {
    const u = new URL(url);
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.host;
  } catch {}
  return redactUrl(url);
}

/**
 * True when the URL's host is this machine: a loopback name or address, `0.0.0.0`, this host's
 * name, or one of its interface addresses. Only then can its GPU be read here with nvidia-smi.
 */
export function isLocalUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host === '::1' || host === '0.0.0.0' || host.startsWith('127.')) return true;
  if (host === hostname().toLowerCase()) return true;
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (a.address.toLowerCase() === host) return true;
  return false;
}
