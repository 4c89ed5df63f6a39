/**
 * @module cli/unknown-flags
 * Every unknown flag of a command line at once, each with the nearest known flag as a
 * suggestion: commander stops at the first one, and a user coming from `vllm bench serve` or
 * guidellm often has several.
 */
import type { Command } from '@commander-js/extra-typings';

/** Edit distance (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/** The known flag nearest to `flag`, when it is close enough to be a likely typo. */
export function nearestFlag(flag: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestD = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const d = distance(flag, k);
    if (d < bestD) {
      best = k;
      bestD = d;
    }
  }
  return best !== null && bestD <= Math.max(2, Math.floor(flag.length / 4)) ? best : null;
}

/** The command `argv` names (following subcommands), and the arguments left for it. */
function commandOf(root: Command, argv: readonly string[]): { cmd: Command; rest: string[] } {
  // biome-ignore lint/suspicious/noExplicitAny: commander's typed commands differ in their generics
  let cmd: Command<any, any> = root;
  let i = 0;
  while (i < argv.length) {
    const sub = cmd.commands.find((c) => c.name() === argv[i] || c.aliases().includes(argv[i]));
    if (!sub) break;
    cmd = sub;
    i++;
  }
  return { cmd, rest: argv.slice(i) };
}

/**
 * The `--flags` in `argv` that its command does not declare, each with a suggestion or null.
 * Values of declared flags are skipped, so `--prompt --not-a-flag` is not reported.
 */
export function unknownFlags(
  root: Command,
  argv: readonly string[],
): { command: string; flags: { flag: string; suggestion: string | null }[] } {
  const { cmd, rest } = commandOf(root, argv);
  const command = argv.slice(0, argv.length - rest.length).join(' ');
  if (cmd === root) return { command, flags: [] };
  const options = [...cmd.options, ...root.options];
  const known = [...options.map((o) => o.long).filter((l): l is string => !!l), '--help'];
  const out: { flag: string; suggestion: string | null }[] = [];
  for (let i = 0; i < rest.length; i++) {
    const tok = rest[i];
    if (tok === '--') break;
    if (!tok.startsWith('--')) continue;
    const name = tok.split('=')[0];
    const opt = options.find((o) => o.long === name);
    if (!opt) {
      if (name !== '--help') out.push({ flag: name, suggestion: nearestFlag(name, known) });
      continue;
    }
    if (tok.includes('=') || !(opt.required || opt.optional)) continue;
    // Its value (or values, for a variadic flag) follows.
    if (opt.variadic) while (i + 1 < rest.length && !rest[i + 1].startsWith('--')) i++;
    else if (opt.required || (i + 1 < rest.length && !rest[i + 1].startsWith('--'))) i++;
  }
  return { command, flags: out };
}
