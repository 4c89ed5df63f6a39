/**
 * @module cli/options
 * The flags shared by `run` and `plan` (workload, load, generation, output), made from the
 * run settings' declarations (`config/run-settings`), and their validation into typed
 * settings. Validation collects every problem before failing, each with a hint, so a user
 * fixes a command line in one go; a problem found below `cli/` names a setting's key, and is
 * spelled here as its flag.
 */
import { join, resolve as resolvePath } from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import {
  aliasFlags,
  fieldDefaults,
  fieldsOf,
  freshDefault,
  numberRange,
  type RunFlag,
  type RunSettingKey,
  runFlag,
  runFlags,
  runSetting,
  settingsNeeding,
  spellings,
  spellKey,
} from '../config/run-settings.js';
import { type Problem, UsageError } from '../core/errors.js';
import { parseLang, resolveLang, type T, translator } from '../i18n/index.js';
import type {
  CommonSettings,
  GenerationSettings,
  LoadSettings,
  OutputSettings,
  WorkloadSettings,
} from '../pipeline/settings.js';
import { drawSeed, type SeedSource } from '../runtime/seed.js';
import { type LoadStage, parseStages } from '../schedule/stages.js';
import { jsonOption } from './commands/common.js';
import { applyAliases, applyCompatFlags, COMMON_ALIASES, vllmOptions } from './compat-flags.js';
import { collect, EN, num, type RawCommon } from './raw-flags.js';

/** Declare the flags of a group of run settings, in their declared order. */
function declareFlags<C extends Command<[], Record<string, unknown>>>(
  cmd: C,
  flags: readonly RunFlag[],
  help: (f: RunFlag) => string = (f) => f.help,
): C {
  for (const f of flags) {
    if (f.repeatable) cmd.option(f.flags, help(f), collect);
    else if (f.commanderDefault !== undefined) cmd.option(f.flags, help(f), f.commanderDefault);
    else cmd.option(f.flags, help(f));
  }
  return cmd;
}

/** Declare the generation flags. */
export function addGenerationOptions<C extends Command<[], Record<string, unknown>>>(
  cmd: C,
  withModel = true,
) {
  return declareFlags(
    cmd,
    runFlags('generation').filter((f) => withModel || f.key !== 'model'),
  );
}

/** Declare the workload flags. */
export function addWorkloadOptions<C extends Command<[], Record<string, unknown>>>(cmd: C) {
  return declareFlags(cmd, runFlags('workload'));
}

/** Declare the load flags. */
export function addLoadOptions<C extends Command<[], Record<string, unknown>>>(cmd: C) {
  return declareFlags(cmd, runFlags('load'));
}

/** Declare a target flag of `run` (`--url`, `--extra-body`). */
export function addTargetOption<C extends Command<[], Record<string, unknown>>>(
  cmd: C,
  key: 'url' | 'extra_body',
) {
  return declareFlags(cmd, [runFlag(key)]);
}

/** Declare the vLLM and SGLang names of `run`'s target flags (`--base-url`, `--extra-request-body`). */
export function addTargetAliases<C extends Command<[], Record<string, unknown>>>(cmd: C) {
  for (const a of aliasFlags()) {
    const { arg, group } = runSetting(a.key);
    if (group === 'target')
      cmd.option(`--${a.flag} ${arg}`, `${a.from}: ${a.help ?? spellKey(a.key, 'flag')}`);
  }
  return cmd;
}

/** Declare the request flags of `run` (streaming, timeouts). */
export function addRequestOptions<C extends Command<[], Record<string, unknown>>>(cmd: C) {
  return declareFlags(cmd, runFlags('request'));
}

/** Declare the output flags. */
export function addOutputOptions<C extends Command<[], Record<string, unknown>>>(cmd: C) {
  return declareFlags(cmd, runFlags('output'));
}

/** Declare the `vllm bench serve` and SGLang `bench_serving` names `run` and `plan` read (docs/cli.md). */
export function addCompatOptions<C extends Command<[], Record<string, unknown>>>(cmd: C) {
  cmd.optionsGroup('vLLM and SGLang names (each read as a servelab flag, with a note):');
  for (const a of aliasFlags()) {
    const { arg, group } = runSetting(a.key);
    if (group === 'target') continue;
    cmd.option(`--${a.flag} ${arg}`, `${a.from}: ${a.help ?? spellKey(a.key, 'flag')}`);
  }
  return declareFlags(cmd, runFlags('compat'));
}

/**
 * The settings `parseCommon` does not read by hand: each fills its field (`config/run-settings`)
 * as given: a number checked against its range, else its default; text or a list as given,
 * else its default; a switch on or off. So a setting that needs nothing more than its flag's
 * value is read here without a line of its own.
 */
const BY_HAND: ReadonlySet<RunSettingKey> = new Set<RunSettingKey>([
  'config',
  'concurrency',
  'requests',
  'duration',
  'rate',
  'arrival',
  'max_concurrency',
  'trace',
  'trace_window',
  'users',
  'ramp_up',
  'session_rate',
  'dataset',
  'shared_prefix_len',
  'num_prefix_groups',
  'documents',
  'doc_popularity',
  'ignore_eos',
  'seed',
  'out',
  'json',
]);

/** The fields of a section that its settings' flags fill as given ({@link BY_HAND} aside). */
function asGiven<S extends object>(section: string, raw: RawCommon, problems: Problem[], t: T): Partial<S> {
  const dflt = fieldDefaults<Record<string, unknown>>(section);
  const out: Record<string, unknown> = {};
  for (const [name, key] of fieldsOf(section)) {
    const d = runSetting(key);
    if (BY_HAND.has(key) || d.flag === null) continue;
    const v = (raw as Record<string, unknown>)[runFlag(key).attribute];
    if (d.arg === undefined) out[name] = !!v;
    else if (numberRange(key)) out[name] = num(problems, key, v as string | undefined, t) ?? dflt[name];
    else out[name] = v ?? dflt[name];
  }
  return out as Partial<S>;
}

/** Validate the shared flags. Pushes every problem found; returns settings (meaningful only if none). */
export function parseCommon(
  input: RawCommon,
  problems: Problem[],
  notes: string[] = [],
  t: T = EN,
  /** Where a seed comes from when --seed is not given (the run's own, drawn fresh). */
  draw: SeedSource = drawSeed,
): CommonSettings {
  const raw = applyCompatFlags(applyAliases(input, COMMON_ALIASES, problems, notes, t), problems, notes, t);
  const concurrency = num(problems, 'concurrency', raw.concurrency, t);
  const requests = num(problems, 'requests', raw.requests, t);
  const durationS = num(problems, 'duration', raw.duration, t);
  const rate =
    raw.rate?.trim().toLowerCase() === 'inf' ? Number.POSITIVE_INFINITY : num(problems, 'rate', raw.rate, t);
  const maxConcurrency = num(problems, 'max_concurrency', raw.maxConcurrency, t);
  const arrival = (raw.arrival ?? 'poisson') as LoadSettings['arrival'];
  if (!['constant', 'poisson', 'gamma'].includes(arrival))
    problems.push({
      path: '--arrival',
      message: t('cli.arrival.unknown', { value: raw.arrival }),
      hint: t('cli.arrival.hint'),
    });
  const trace = raw.trace ?? null;

  if (concurrency !== null && rate !== null)
    problems.push({
      path: '--concurrency/--rate',
      message: t('cli.load_model.many'),
      hint: t('cli.load_model.hint'),
    });
  if (trace && (concurrency !== null || rate !== null))
    problems.push({
      path: '--trace',
      message: t('cli.trace.own_arrivals'),
      hint: t('cli.trace.own_arrivals_hint'),
    });
  if (requests !== null && durationS !== null)
    problems.push({
      path: '--requests/--duration',
      message: t('cli.requests_duration.both'),
      hint: t('cli.requests_duration.hint'),
    });
  const users = num(problems, 'users', raw.users, t);
  const sessionFlags = sessionsProblems(
    raw,
    users,
    { concurrency, rate, trace, durationS, requests },
    problems,
    t,
  );
  // vLLM's reading: --max-concurrency N without a rate is a closed loop of N users.
  const closedAt =
    maxConcurrency !== null && rate === null && !trace && users === null ? maxConcurrency : null;
  if (closedAt !== null && concurrency !== null && concurrency !== closedAt)
    problems.push({
      path: '--concurrency/--max-concurrency',
      message: t('cli.max_concurrency.differ', { concurrency, closedAt }),
      hint: t('cli.give_one'),
    });
  if (rate === Number.POSITIVE_INFINITY && durationS !== null)
    problems.push({
      path: '--rate',
      message: t('cli.rate.inf_duration'),
      hint: t('cli.rate.inf_duration_hint'),
    });

  // Load stages (schedule/stages): an open loop whose arrivals and count they give themselves.
  let stages: LoadStage[] | null = null;
  if (raw.stages !== undefined) {
    if (
      concurrency !== null ||
      rate !== null ||
      requests !== null ||
      durationS !== null ||
      trace ||
      users !== null
    )
      problems.push({ path: '--stages', message: t('cli.stages.alone'), hint: t('cli.stages.alone_hint') });
    try {
      stages = parseStages(String(raw.stages), '--stages', t);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      problems.push(...err.problems);
    }
  }
  const mode: LoadSettings['mode'] =
    users !== null ? 'sessions' : trace ? 'trace' : rate !== null || stages ? 'open' : 'closed';
  const load = {
    ...asGiven<LoadSettings>('load', raw, problems, t),
    mode,
    concurrency: mode === 'closed' ? (concurrency ?? closedAt ?? 1) : null,
    requests:
      requests ?? (durationS === null && mode !== 'trace' && mode !== 'sessions' && !stages ? 100 : null),
    ...(stages ? { stages } : {}),
    durationS,
    rateRps: rate,
    arrival,
    maxConcurrency: closedAt !== null ? null : maxConcurrency,
    traceFile: trace,
    traceWindow: raw.traceWindow !== undefined ? traceWindowOf(raw.traceWindow, problems, t) : null,
    users,
    rampUpS: sessionFlags.rampUpS,
    sessionRateRps: sessionFlags.sessionRateRps,
    // Drawn fresh unless given: a fixed default would replay the same prompts into a warm
    // prefix cache. The run prints and stores it, so --seed reproduces the run.
    seed: freshDefault(num(problems, 'seed', raw.seed, t), draw),
  } as LoadSettings;
  if (mode === 'sessions' && load.warmup > 0)
    problems.push({
      path: '--warmup',
      message: t('sessions.flags.warmup'),
      hint: t('sessions.flags.warmup_hint'),
    });

  let dataset: WorkloadSettings['dataset'] = null;
  if (raw.dataset) {
    const [kind, path, ...rest] = raw.dataset.length === 1 ? raw.dataset[0].split(/[:=]/) : raw.dataset;
    if (kind !== 'sharegpt' || !path || rest.length)
      problems.push({
        path: '--dataset',
        message: t('cli.cannot_read', { value: raw.dataset.join(' ') }),
        hint: t('cli.dataset.hint'),
      });
    else dataset = { kind: 'sharegpt', path };
  }
  const sources = [raw.prompt !== undefined, !!raw.prompts, !!dataset, !!trace].filter(Boolean).length;
  if (sources > 1)
    problems.push({
      path: '--prompt/--prompts/--dataset/--trace',
      message: t('cli.prompt_source.many'),
      hint: t('cli.prompt_source.hint'),
    });
  const sharedPrefixLen = num(problems, 'shared_prefix_len', raw.sharedPrefixLen, t);
  const numPrefixGroups = num(problems, 'num_prefix_groups', raw.numPrefixGroups, t);
  if (numPrefixGroups !== null && sharedPrefixLen === null)
    problems.push({
      path: '--num-prefix-groups',
      message: t('cli.prefix_groups.needs'),
      hint: t('cli.prefix_groups.hint'),
    });

  const workload = {
    ...asGiven<WorkloadSettings>('workload', raw, problems, t),
    dataset,
    sharedPrefixLen,
    numPrefixGroups: sharedPrefixLen !== null ? (numPrefixGroups ?? 1) : null,
    documents: sessionFlags.documents,
    // Its declared default once there are documents to pick from (an experiment file's too).
    docPopularity:
      raw.docPopularity ??
      (sessionFlags.documents !== null ? (runSetting('doc_popularity').default as string) : null),
  } as WorkloadSettings;

  const generation = {
    ...asGiven<GenerationSettings>('generation', raw, problems, t),
    // Sent only when asked (--ignore-eos), as `vllm bench serve` does; SGLang's
    // --disable-ignore-eos is then the default, read for its users' command lines.
    ignoreEos: !raw.disableIgnoreEos && !!raw.ignoreEos,
  } as GenerationSettings;
  if (raw.disableIgnoreEos && raw.ignoreEos)
    problems.push({
      path: '--disable-ignore-eos',
      message: t('cli.ignore_eos.contradicts'),
      hint: t('cli.keep_one'),
    });

  if (raw.format !== undefined && raw.format !== 'vllm')
    problems.push({
      path: '--format',
      message: t('cli.format.unknown', { value: raw.format }),
      hint: t('cli.format.hint'),
    });
  const vllm = vllmOptions(raw, problems, t);
  const out = raw.out ?? (raw.saveResult ? '.' : null);
  if (raw.outputFile !== undefined && (raw.resultFilename !== undefined || raw.saveResult))
    problems.push({
      path: '--output-file',
      message: t('cli.output_file.both'),
      hint: t('cli.keep_one'),
    });
  // --result-filename names the file in --out; SGLang's --output-file is a path, appended to.
  if (raw.outputFile !== undefined) {
    vllm.file = raw.outputFile;
    vllm.append = true;
    notes.push(t('cli.note.output_file', { file: raw.outputFile }));
  } else if (raw.resultFilename !== undefined && out) vllm.file = join(out, raw.resultFilename);
  const output = {
    ...asGiven<OutputSettings>('output', raw, problems, t),
    out,
    formatVllm: raw.format === 'vllm' || !!raw.saveResult || raw.outputFile !== undefined,
    vllm,
    json: jsonOption(raw.json),
  } as OutputSettings;

  if (output.formatVllm && !output.out && !vllm.file)
    problems.push({
      path: '--format',
      message: t('cli.format.needs_out'),
      hint: t('cli.format.needs_out_hint'),
    });
  return { load, workload, generation, output };
}

/** `--trace-window START:END` (seconds; END may be empty: to the end of the trace). */
function traceWindowOf(raw: string, problems: Problem[], t: T): LoadSettings['traceWindow'] {
  const m = /^\s*([0-9.]+)\s*:\s*([0-9.]*)\s*$/.exec(raw);
  const startS = m ? Number(m[1]) : Number.NaN;
  const endS = m && m[2] !== '' ? Number(m[2]) : null;
  if (!Number.isFinite(startS) || (endS !== null && !(Number.isFinite(endS) && endS > startS))) {
    problems.push({
      path: '--trace-window',
      message: t('trace.window.bad', { got: raw }),
      hint: t('trace.window.hint'),
    });
    return null;
  }
  return { startS, endS };
}

/**
 * The sessions flags' problems against the other load flags: sessions are their own load model
 * (each user a closed loop), so `--concurrency`, `--rate`, `--trace`, `--duration` and
 * `--requests` do not combine with `--users`; the session flags need `--users`.
 */
function sessionsProblems(
  raw: RawCommon,
  users: number | null,
  other: {
    concurrency: number | null;
    rate: number | null;
    trace: string | null;
    durationS: number | null;
    requests: number | null;
  },
  problems: Problem[],
  t: T,
): { rampUpS: number | null; sessionRateRps: number | null; documents: number | null } {
  const rampUpS = num(problems, 'ramp_up', raw.rampUp, t);
  const sessionRateRps = num(problems, 'session_rate', raw.sessionRate, t);
  const documents = num(problems, 'documents', raw.documents, t);
  if (users === null) {
    // The sessions' settings (declared as needing users), as given.
    const given = settingsNeeding('users')
      .map(
        (key) => [spellKey(key, 'flag'), (raw as Record<string, unknown>)[runFlag(key).attribute]] as const,
      )
      .filter(([, v]) => v !== undefined);
    if (given.length && raw.users === undefined)
      problems.push({
        path: given[0][0],
        message: t('sessions.flags.needs_users', {
          ...spellings('flag'),
          flag: given.map((g) => g[0]).join(', '),
        }),
        hint: t('sessions.flags.needs_users_hint'),
      });
    return { rampUpS, sessionRateRps, documents };
  }
  const clash = (
    [
      ['--concurrency', other.concurrency],
      ['--rate', other.rate],
      ['--trace', other.trace],
      ['--duration', other.durationS],
      ['--requests', other.requests],
    ] as const
  ).filter(([, v]) => v !== null);
  if (clash.length)
    problems.push({
      path: '--users',
      message: t('sessions.flags.clash', { ...spellings('flag'), flags: clash.map((c) => c[0]).join(', ') }),
      hint: t('sessions.flags.clash_hint', spellings('flag')),
    });
  if (rampUpS !== null && sessionRateRps !== null)
    problems.push({
      path: '--ramp-up/--session-rate',
      message: t('sessions.flags.start_both', spellings('flag')),
      hint: t('cli.keep_one'),
    });
  return { rampUpS, sessionRateRps, documents };
}

/** Make every file path in the settings absolute against the command's working directory. */
export function resolvePaths(c: CommonSettings, cwd: string): CommonSettings {
  const abs = (p: string | null) => (p === null ? null : resolvePath(cwd, p));
  return {
    ...c,
    load: { ...c.load, traceFile: abs(c.load.traceFile) },
    workload: {
      ...c.workload,
      promptsFile: abs(c.workload.promptsFile),
      dataset: c.workload.dataset
        ? { ...c.workload.dataset, path: resolvePath(cwd, c.workload.dataset.path) }
        : null,
    },
    output: {
      ...c.output,
      out: abs(c.output.out),
      vllm: { ...c.output.vllm, file: abs(c.output.vllm.file) },
      baseline: abs(c.output.baseline),
      json: typeof c.output.json === 'string' ? resolvePath(cwd, c.output.json) : c.output.json,
    },
  };
}

/** `--lang`'s help text (for commands that take arguments, which {@link addLangOption} cannot type). */
export const LANG_OPTION_HELP = 'language of prose: en or zh-CN (default: from LC_ALL / LANG)';

/** Declare `--lang` on a command that prints or writes prose (docs/cli.md). */
export function addLangOption<A extends unknown[], O extends Record<string, unknown>>(cmd: Command<A, O>) {
  return cmd.option('--lang <lang>', LANG_OPTION_HELP);
}

/**
 * The translator for a command: `--lang` if given (an unknown one is a usage problem, with a
 * hint), else the locale, else English.
 */
export function langOf(
  flag: string | undefined,
  env: Record<string, string | undefined>,
  problems: Problem[],
): T {
  if (flag !== undefined && parseLang(flag) === undefined) {
    const t = translator(resolveLang(undefined, env));
    problems.push({
      path: '--lang',
      message: t('common.lang.unknown', { value: flag }),
      hint: t('common.lang.hint'),
    });
  }
  return translator(resolveLang(flag, env));
}

/**
 * `argv` with `--lang` given where commander looks for it. Before the command
 * (`servelab --lang zh-CN run --help`), it is moved after the command's name, so it reaches the
 * command that declares it rather than leaving the program with an unknown option (and the
 * program's help). On a group of commands (`servelab exp --help --lang zh-CN`), which takes no
 * `--lang` and can only show its help or an error, and with `--help` on a command without
 * `--lang` (`runs export`), it is dropped: their language was already read from argv (`main`'s
 * framing). Anything after `--` is left alone.
 */
export function placeLangFlag(program: Command, argv: readonly string[]): string[] {
  const end = argv.includes('--') ? argv.indexOf('--') : argv.length;
  const at = argv.slice(0, end).findIndex((a) => a === '--lang' || a.startsWith('--lang='));
  if (at < 0) return [...argv];
  const width = argv[at] === '--lang' && at + 1 < end ? 2 : 1;
  const flag = argv.slice(at, at + width);
  const rest = [...argv.slice(0, at), ...argv.slice(at + width)];
  // The command the words before any flag name.
  let cmd = program;
  let depth = 0;
  for (;;) {
    const sub = cmd.commands.find((c) => c.name() === rest[depth]);
    if (!sub) break;
    cmd = sub as unknown as Command;
    depth++;
  }
  const declared = cmd.options.some((o) => o.long === '--lang');
  const help = rest.slice(0, end - width).some((a) => a === '--help' || a === '-h');
  if (cmd.commands.length > 0 || (!declared && help)) return rest;
  if (at >= depth || !declared) return [...argv];
  return [...rest.slice(0, depth), ...flag, ...rest.slice(depth)];
}
