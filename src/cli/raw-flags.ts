/**
 * @module cli/raw-flags
 * A command line's values as commander hands them over (strings until validated), and the
 * reading of a numeric flag against its setting's declared range: what the shared flags'
 * parsing (`cli/options`) and the reading of vLLM's and SGLang's flags (`cli/compat-flags`)
 * both start from.
 */
import { checkFlagNumber, type RawRunFlags, type RunSettingKey, spellKey } from '../config/run-settings.js';
import type { Problem } from '../core/errors.js';
import { type T, translator } from '../i18n/index.js';

/** Raw values as commander hands them over (strings until validated): the settings' flags and `--lang`. */
export type RawCommon = RawRunFlags & {
  /** `--lang` (see {@link addLangOption}). */
  lang?: string;
};

/** Commander's collector of a repeatable flag's values. */
export const collect = (v: string, prev: string[] | undefined) => [...(prev ?? []), v];

/** English, for callers that have no command translator (tests, library use). */
export const EN = translator('en');

/**
 * A numeric flag's value (null when not given), checked against its setting's range
 * (`config/run-settings`); a problem is spelled as the flag.
 */
export function num(
  problems: Problem[],
  key: RunSettingKey,
  raw: string | undefined,
  t: T = EN,
): number | null {
  const r = checkFlagNumber(key, raw, t);
  if (r.problem) problems.push({ ...r.problem, path: spellKey(key, 'flag') });
  return r.value;
}
