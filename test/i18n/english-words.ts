/**
 * The English words in text meant to be Chinese, for the zh-CN tests: ASCII words of two or
 * more letters left after removing what is not prose, and not in the committed allowlist
 * (`zh-console-allowlist.txt`: metric names, units, engine names and a few proper names).
 *
 * Not prose, by pattern: code in backticks; URLs and paths; flags; snake_case and dotted keys
 * (`ttft_ms`, `usage.completion_tokens`); `key=value` pairs (`c=8`) and counts (`stop:1`);
 * words with a digit (`int4`, `h100`, `p99`); YAML flow maps (`{file: answers.jsonl}`); lists of
 * field names with one in snake_case (`engine_version, interconnect, rocm`); hyphenated names
 * (`as-is`, `empty-tool-args`); `value:ARG` forms (`uniform:A-B`); enumerations of values
 * (`closed | open`); a lowercase value being defined or named in Chinese text (`colocated：…`,
 * `（lpm）`); a field and its value (`valid: false`, `warmup: 0`); a servelab command line; and
 * the caller's own names (ids, target names, models, GPUs, kinds).
 */
import { readFileSync } from 'node:fs';

const ALLOWED = new Set(
  readFileSync(new URL('./zh-console-allowlist.txt', import.meta.url), 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim().toLowerCase())
    .filter(Boolean),
);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` less everything that is not prose (see the module note), `names` included. */
export function stripNonProse(text: string, names: readonly string[] = []): string {
  let s = text;
  for (const n of [...names].sort((a, b) => b.length - a.length))
    s = s.replace(new RegExp(`(?<![\\w-])${escapeRegExp(n)}(?![\\w-])`, 'g'), ' ');
  return s
    .replace(/`[^`]*`/g, ' ')
    .replace(/\b[a-z]+:\/\/\S+/gi, ' ')
    .replace(/\b\w+=\S+/g, ' ')
    .replace(/[\w.<>-]*\/[\w.<>/-]*/g, ' ')
    .replace(/\b[\w-]+\.(?:yaml|yml|db|html|md|json|jsonl|csv|svg)\b/gi, ' ')
    .replace(/(?<![\w-])--?[a-z][a-z0-9-]*/gi, ' ')
    .replace(/\b[a-z_]+: (?:true|false|null|\d[\d.]*)(?![\w.])/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\b[a-z_]+(?:, [a-z_]+)+,?/g, (m) => (m.includes('_') ? ' ' : m))
    .replace(/\b[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+\b/g, ' ')
    .replace(/\b[a-z_]+:\d+\b/g, ' ')
    .replace(/\b[a-z]+:[A-Z][\w,-]*/g, ' ')
    .replace(/[\w.:()-]+(?:\s*\|\s*[\w.:()-]+)+/g, ' ')
    .replace(/\b[A-Za-z]*\d[A-Za-z0-9]*\b/g, ' ')
    .replace(/\b[A-Za-z]+(?:-[A-Za-z]+)+\b/g, ' ')
    .replace(/（[a-z]+）/g, ' ')
    .replace(/\b[a-z]+(?=[：（])/g, ' ')
    .replace(/\bservelab (?:exp )?[a-z]+\b/g, ' ');
}

/** The English words of `text` (each once), not counting `allowed` beyond the allowlist. */
export function englishWords(
  text: string,
  names: readonly string[] = [],
  allowed: ReadonlySet<string> = new Set(),
): string[] {
  const words = [...stripNonProse(text, names).matchAll(/[A-Za-z]{2,}/g)]
    .map((m) => m[0])
    .filter((w) => !ALLOWED.has(w.toLowerCase()) && !allowed.has(w.toLowerCase()));
  return [...new Set(words)];
}
