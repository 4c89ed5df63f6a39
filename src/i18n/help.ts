/**
 * @module i18n/help
 * The descriptions `--help` shows for options and arguments, in the reader's language. English
 * is what the declarations say (`config/run-settings`, `sim/settings`, the commands in `cli/`),
 * which docs/cli.md is made from too; each other language has a table keyed by that English
 * text (`zh-CN/help-text.ts`). A key may hold `{name}` for text built from data (a list of the
 * catalogue's models): it matches any text there, which is filled into the translation's
 * `{name}`. Commands' descriptions are ordinary catalogue entries (`cli.cmd.*`).
 */
import type { Lang } from './index.js';
import { HELP_TEXT_ZH_CN } from './zh-CN/help-text.js';

/** The table of each language other than English. */
export const HELP_TEXTS: Readonly<Record<Exclude<Lang, 'en'>, Readonly<Record<string, string>>>> = {
  'zh-CN': HELP_TEXT_ZH_CN,
};

interface HelpPattern {
  key: string;
  names: string[];
  re: RegExp;
}

const PLACEHOLDER = /\{(\w+)\}/g;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const patternCache = new Map<Lang, HelpPattern[]>();

/** The keys of `lang`'s table that hold a placeholder, as patterns. */
function patterns(lang: Exclude<Lang, 'en'>): HelpPattern[] {
  let ps = patternCache.get(lang);
  if (ps) return ps;
  ps = [];
  for (const key of Object.keys(HELP_TEXTS[lang])) {
    const parts = key.split(PLACEHOLDER);
    if (parts.length === 1) continue;
    const names = parts.filter((_, i) => i % 2 === 1);
    const src = parts.map((p, i) => (i % 2 === 0 ? escapeRegExp(p) : '([\\s\\S]*?)')).join('');
    ps.push({ key, names, re: new RegExp(`^${src}$`) });
  }
  patternCache.set(lang, ps);
  return ps;
}

/**
 * The key of `lang`'s table that translates `english` (the text itself, or a key whose
 * placeholders match it), with the placeholders' values; undefined when there is none.
 */
export function helpTextEntry(
  english: string,
  lang: Exclude<Lang, 'en'>,
): { key: string; values: Record<string, string> } | undefined {
  if (Object.hasOwn(HELP_TEXTS[lang], english)) return { key: english, values: {} };
  for (const p of patterns(lang)) {
    const m = p.re.exec(english);
    if (!m) continue;
    const values: Record<string, string> = {};
    p.names.forEach((name, i) => {
      values[name] = m[i + 1] ?? '';
    });
    return { key: p.key, values };
  }
  return undefined;
}

/** `english`, a description from `--help`, in `lang`; undefined when `lang`'s table lacks it. */
export function translateHelpText(english: string, lang: Lang): string | undefined {
  if (lang === 'en') return english;
  const entry = helpTextEntry(english, lang);
  if (!entry) return undefined;
  return (HELP_TEXTS[lang][entry.key] as string).replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(entry.values, name) ? (entry.values[name] as string) : whole,
  );
}
