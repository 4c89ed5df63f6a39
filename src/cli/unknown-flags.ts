/**
 * @module cli/unknown-flags
 * Every unknown flag of a command line at once, each with the nearest known flag as a
 * suggestion: commander stops at the first one, and a user coming from `vllm bench serve` or
 * guidellm often has several.
 */
import type { Command } from '@commander-js/extra-typings';
import { isSecretName, REDACTED } from '../core/redact.js';
import { redactUrl } from '../core/url.js';

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

/** A flag given before `--` that belongs to the command whose flags go after it. */
export interface PassedFlag {
  flag: string;
  /** The command it belongs to (`run` for `k8s render`). */
  command: string;
}

/** What {@link unknownFlags} found. */
export interface UnknownFlags {
  /** The command line's command (`k8s render`). */
  command: string;
  /** Flags no command here declares, each with the nearest known one or null. */
  flags: { flag: string; suggestion: string | null; passed?: PassedFlag }[];
  /**
   * When some of them are flags of the command this one passes through after `--`: the command
   * line again with those flags and their values moved after `--` (secrets and URL credentials
   * masked), for the hint. Null otherwise.
   */
  rewritten: string[] | null;
}

// biome-ignore lint/suspicious/noExplicitAny: commander's typed commands differ in their generics
type AnyCommand = Command<any, any>;

/**
 * The command `cmd` passes flags through to after `--`: its variadic argument is named after a
 * top-level command (`k8s render [run...]` passes `run`'s flags), or null.
 */
function passThroughOf(root: Command, cmd: AnyCommand): AnyCommand | null {
  for (const arg of cmd.registeredArguments) {
    if (!arg.variadic) continue;
    const target = root.commands.find((c) => c.name() === arg.name());
    if (target) return target;
  }
  return null;
}

/** `value` as it may be echoed in a hint: a secret flag's value masked, URL credentials removed. */
function echoValue(flag: string, value: string): string {
  return isSecretName(flag.replace(/^--/, '')) ? REDACTED : redactUrl(value);
}

/**
 * The `--flags` in `argv` that its command does not declare, each with a suggestion or null.
 * Values of declared flags are skipped, so `--prompt --not-a-flag` is not reported. A flag of
 * the command this one passes through after `--` is marked as such, with the line rewritten.
 */
export function unknownFlags(root: Command, argv: readonly string[]): UnknownFlags {
  const { cmd, rest } = commandOf(root, argv);
  const command = argv.slice(0, argv.length - rest.length).join(' ');
  if (cmd === root) return { command, flags: [], rewritten: null };
  const options = [...cmd.options, ...root.options];
  const known = [...options.map((o) => o.long).filter((l): l is string => !!l), '--help'];
  const pass = passThroughOf(root, cmd);
  const out: UnknownFlags['flags'] = [];
  const own: string[] = [];
  const moved: string[] = [];
  const after: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const tok = rest[i];
    if (tok === '--') {
      after.push(...rest.slice(i + 1));
      break;
    }
    if (!tok.startsWith('--')) {
      own.push(tok);
      continue;
    }
    const name = tok.split('=')[0];
    const opt = options.find((o) => o.long === name);
    const passOpt = opt ? undefined : pass?.options.find((o) => o.long === name);
    if (!opt && !passOpt) {
      if (name !== '--help') out.push({ flag: name, suggestion: nearestFlag(name, known) });
      own.push(tok.includes('=') ? `${name}=${echoValue(name, tok.slice(name.length + 1))}` : tok);
      // a secret's value, if it has one, stays out of the hint too
      if (
        !tok.includes('=') &&
        isSecretName(name.replace(/^--/, '')) &&
        i + 1 < rest.length &&
        !rest[i + 1].startsWith('--')
      )
        own.push(echoValue(name, rest[++i]));
      continue;
    }
    const o = (opt ?? passOpt) as NonNullable<typeof opt>;
    const into = opt ? own : moved;
    if (passOpt && pass)
      out.push({ flag: name, suggestion: null, passed: { flag: name, command: pass.name() } });
    into.push(tok.includes('=') ? `${name}=${echoValue(name, tok.slice(name.length + 1))}` : tok);
    if (tok.includes('=') || !(o.required || o.optional)) continue;
    // Its value (or values, for a variadic flag) follows.
    if (o.variadic)
      while (i + 1 < rest.length && !rest[i + 1].startsWith('--')) into.push(echoValue(name, rest[++i]));
    else if (o.required || (i + 1 < rest.length && !rest[i + 1].startsWith('--')))
      into.push(echoValue(name, rest[++i]));
  }
  const rewritten = moved.length ? [...command.split(' '), ...own, '--', ...moved, ...after] : null;
  return { command, flags: out, rewritten };
}
