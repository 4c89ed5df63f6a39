/**
 * @module i18n/stored
 * Messages kept in English where servelab stores them (the store, report.json, an experiment's
 * results: one language for records, whatever `--lang` said when they were made), shown in the
 * reader's language when they are rendered. The English text is matched against the English
 * catalogue entries under the given key prefixes (placeholders read as wildcards), and the
 * entry is filled in again in the reader's language with the same values.
 */
import { en } from './en/index.js';
import type { MessageKey, T } from './index.js';

interface Pattern {
  key: MessageKey;
  names: string[];
  re: RegExp;
  /** Literal characters of the template: the more, the more specific the match. */
  literal: number;
}

const PLACEHOLDER = /\{(\w+)\}/g;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const cache = new Map<string, Pattern[]>();

function patterns(prefixes: readonly string[]): Pattern[] {
  const id = prefixes.join('|');
  let ps = cache.get(id);
  if (ps) return ps;
  ps = [];
  for (const [key, text] of Object.entries(en) as [MessageKey, string][]) {
    if (!prefixes.some((p) => key.startsWith(p))) continue;
    // split with a capture group alternates literal text and placeholder names
    const parts = text.split(PLACEHOLDER);
    const names = parts.filter((_, i) => i % 2 === 1);
    const src = parts.map((p, i) => (i % 2 === 0 ? escapeRegExp(p) : '([\\s\\S]*?)')).join('');
    const literal = parts.filter((_, i) => i % 2 === 0).join('').length;
    // A template of placeholders alone would match any text.
    if (literal < 3) continue;
    ps.push({ key, names, re: new RegExp(`^${src}$`), literal });
  }
  ps.sort((a, b) => b.literal - a.literal);
  cache.set(id, ps);
  return ps;
}

/**
 * `text`, a message stored in English from a catalogue entry under one of `prefixes`, in `t`'s
 * language; each placeholder's value is translated the same way (a message that nests another,
 * as a knee's reason holds a stop reason). Text that matches no entry is returned as stored.
 */
export function translateStored(text: string, t: T, prefixes: readonly string[]): string {
  if (t.lang === 'en' || text === '') return text;
  for (const p of patterns(prefixes)) {
    const m = p.re.exec(text);
    if (!m) continue;
    const params: Record<string, string> = {};
    p.names.forEach((name, i) => {
      params[name] = translateStored(m[i + 1] ?? '', t, prefixes);
    });
    return t(p.key, params);
  }
  return text;
}
