/**
 * @module cli/commands/workers
 * The command line's side of `servelab run --workers N|auto` (the orchestration is
 * `pipeline/workers`): the `--workers` flag, which of the user's flags a worker inherits, and how
 * a worker process is started: this same CLI (process.execPath + process.execArgv + the script,
 * so it works under tsx and from dist) as `run --shard i/N --start-at T --out TMP/i` with the
 * user's other flags, its stderr piped and an IPC channel to the parent.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import type { Problem } from '../../core/errors.js';
import type { T } from '../../i18n/index.js';
import {
  startFromParent,
  WORKERS_TMP_ENV,
  type WorkerProcess,
  type WorkerShard,
} from '../../pipeline/workers.js';

/** `--workers N|auto` as a count (auto: one per core); problems for anything else. */
export function parseWorkers(raw: string | undefined, problems: Problem[], t: T): number {
  if (raw === undefined) return 1;
  if (raw === 'auto') return availableParallelism();
  const n = Number(raw);
  if (raw.trim() !== '' && Number.isInteger(n) && n >= 1) return n;
  problems.push({
    path: '--workers',
    message: t('shard.workers.bad', { got: raw }),
    hint: t('shard.workers.hint'),
  });
  return 1;
}

/**
 * The flags a worker must not inherit: the parent owns the workers, the output folder, the
 * --json result, the store and the exporter port (N children cannot share one port).
 * name → whether it takes a value (`optional`: a value when the next word is not a flag).
 */
const PARENT_FLAGS: Record<string, 'value' | 'none' | 'optional'> = {
  '--workers': 'value',
  '--out': 'value',
  '--json': 'optional',
  '--db': 'value',
  '--no-db': 'none',
  '--metrics-port': 'value',
  '--label': 'value',
  // The parent scrapes the shared server once for the whole run; the children do not.
  '--scrape': 'value',
  '--no-scrape': 'none',
  '--scrape-interval': 'value',
};

/** `run`'s own argv (after `run`) less the parent's flags. */
export function workerArgs(runArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < runArgv.length; i++) {
    const a = runArgv[i];
    const name = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    const kind = PARENT_FLAGS[name];
    if (a === '--') {
      out.push(...runArgv.slice(i));
      break;
    }
    if (!kind) {
      out.push(a);
      continue;
    }
    if (a.includes('=') || kind === 'none') continue;
    const next = runArgv[i + 1];
    if (kind === 'value' || (next !== undefined && !next.startsWith('-'))) i++;
  }
  return out;
}

/** `run`'s argv with `--seed`: the run's own, so every worker sends the same requests. */
export function withSeedArg(runArgv: readonly string[], seed: number): string[] {
  const given = runArgv.some((a) => a === '--seed' || a.startsWith('--seed='));
  return given ? [...runArgv] : ['--seed', String(seed), ...runArgv];
}

/** node --test's flags that take their value as the next word (a test's CLI children drop them). */
const TEST_VALUE_FLAGS = new Set([
  '--test-name-pattern',
  '--test-skip-pattern',
  '--test-reporter',
  '--test-reporter-destination',
  '--test-concurrency',
  '--test-shard',
  '--test-timeout',
]);

/**
 * A worker's first lines, before the CLI is even loaded: a worker dies with its parent. When
 * the IPC channel closes (the parent is gone: killed, even with SIGKILL, or crashed; a live
 * parent never closes it) the worker removes the run's temporary folder, which no one else
 * will, and exits 130 at once: nobody is left to merge what it would record. The channel is
 * watched, not held: it does not keep the worker alive (`startFromParent` holds it only while
 * waiting for the start).
 */
const DIE_WITH_PARENT = [
  "import { rmSync as __rm } from 'node:fs';",
  'if (process.channel) {',
  "  process.once('disconnect', () => {",
  `    const d = process.env.${WORKERS_TMP_ENV};`,
  '    if (d && /servelab-workers-/.test(d)) try { __rm(d, { recursive: true, force: true }); } catch {}',
  '    process.exit(130);',
  '  });',
  '  process.channel.unref();',
  '}',
].join('\n');

/**
 * This CLI as a child's arguments: node's own flags of this process (`--import tsx` under tsx),
 * less any `-e` launcher code, then `main(argv)` of the CLI module beside this one (main.ts under
 * tsx, main.js from dist), so a child runs the same code however the parent was started;
 * `prelude` (module code) runs first.
 */
export function cliCommand(args: readonly string[], prelude = ''): string[] {
  const own: string[] = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const a = process.execArgv[i];
    if (a === '-e' || a === '--eval' || a === '-p' || a === '--print') i++;
    else if (TEST_VALUE_FLAGS.has(a)) i++;
    else if (!a.startsWith('--input-type') && !a.startsWith('--eval=') && !a.startsWith('--test'))
      own.push(a);
  }
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const mainUrl = new URL(`../main${ext}`, import.meta.url).href;
  const code = `${prelude}\nimport(${JSON.stringify(mainUrl)}).then((m) => m.main(process.argv.slice(1))).then((c) => { process.exitCode = c; })`;
  return [...own, '--input-type=module', '-e', code, '--', ...args];
}

/**
 * Start the worker of `shard`: `run` with the user's flags less the parent's (`runArgv`, after
 * `run`), and the shard's own; it neither stores nor scrapes (the parent does both for the run).
 */
export function launchWorker(runArgv: readonly string[]) {
  const base = workerArgs(runArgv);
  return (shard: WorkerShard, env: Record<string, string | undefined>): WorkerProcess =>
    spawn(
      process.execPath,
      cliCommand(
        [
          'run',
          ...base,
          ...['--shard', `${shard.index}/${shard.count}`, '--start-at', shard.startAt, '--out', shard.out],
          ...['--no-db', '--no-scrape'],
        ],
        DIE_WITH_PARENT,
      ),
      { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env },
    );
}

/** In a worker that `run --workers` started, the common start from its parent over this process's IPC channel. */
export function startFromParentProcess(env: Record<string, string | undefined>) {
  return startFromParent(env, process);
}
