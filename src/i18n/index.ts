/**
 * @module i18n
 * The message catalogues: every sentence servelab prints or writes for a person goes through
 * {@link translator}, so a learner can read it in English or Chinese. There is one catalogue per
 * language (`en/`, `zh-CN/`), each assembled from one section per stage so that work on
 * different stages never edits the same file; the English catalogue defines the keys and the
 * Chinese one must have every key (the compiler checks it, and `i18n.test.ts` checks that the
 * placeholders match too).
 *
 * Metric names and record keys (`ttft_ms`) are not prose: they stay as they are in both
 * languages, and are passed in as placeholder values.
 */
import { en } from './en/index.js';
import { zhCN } from './zh-CN/index.js';

/** The languages servelab speaks. */
export const LANGS = ['en', 'zh-CN'] as const;
export type Lang = (typeof LANGS)[number];

/** Every message key, as the English catalogue defines them. */
export type MessageKey = keyof typeof en;
/** A catalogue: one string per key, with `{name}` placeholders. */
export type MessageCatalogue = Record<MessageKey, string>;

export const CATALOGUES: Record<Lang, MessageCatalogue> = { en, 'zh-CN': zhCN };

/** Placeholder values; numbers are printed as given (round them before). */
export type MessageParams = Record<string, string | number | boolean | null | undefined>;

/** A translator bound to one language. */
export interface T {
  (key: MessageKey, params?: MessageParams): string;
  readonly lang: Lang;
}

const PLACEHOLDER = /\{(\w+)\}/g;

/** The placeholder names in a message, sorted (the test compares them across languages). */
export function placeholders(message: string): string[] {
  return [...new Set([...message.matchAll(PLACEHOLDER)].map((m) => m[1] as string))].sort();
}

/** Fill `{name}` placeholders; a missing value is a bug, and is shown as `{name}` rather than hidden. */
export function format(message: string, params: MessageParams = {}): string {
  return message.replace(PLACEHOLDER, (whole, name: string) => {
    const v = params[name];
    return v === undefined ? whole : String(v);
  });
}

/** A translator for `lang`. */
export function translator(lang: Lang): T {
  const cat = CATALOGUES[lang];
  const t = ((key: MessageKey, params?: MessageParams) => format(cat[key] ?? en[key] ?? key, params)) as T;
  Object.defineProperty(t, 'lang', { value: lang });
  return t;
}

/** Whether `s` names a language servelab speaks (case-insensitive; `zh`, `zh_CN`, `zh-Hans` read as zh-CN). */
export function parseLang(s: string): Lang | undefined {
  const v = s.trim().toLowerCase().replace('_', '-');
  if (v === 'en' || v.startsWith('en-')) return 'en';
  if (v === 'zh' || v === 'zh-cn' || v === 'zh-hans' || v.startsWith('zh-hans') || v === 'zh-sg')
    return 'zh-CN';
  return undefined;
}

/**
 * The language to speak: the `--lang` flag, else the locale (`LC_ALL`, then `LC_MESSAGES`,
 * then `LANG`, as POSIX orders them), else English. A locale servelab does not speak (`C`,
 * `de_DE.UTF-8`) reads as English; an unknown `--lang` is the caller's usage error (see
 * {@link parseLang}).
 */
export function resolveLang(flag: string | undefined, env: Record<string, string | undefined>): Lang {
  if (flag !== undefined) return parseLang(flag) ?? 'en';
  for (const name of ['LC_ALL', 'LC_MESSAGES', 'LANG']) {
    const v = env[name];
    if (!v) continue;
    // POSIX: the first non-empty of these decides, even when it is C.
    return parseLang(v.split('.')[0] ?? '') ?? 'en';
  }
  return 'en';
}
