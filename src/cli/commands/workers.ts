/**
 * @module cli/commands/workers
 * `servelab run --workers N|auto`: the sharding of `run --shard i/N` inside one host. The parent
 * starts N child processes of this same CLI (process.execPath + process.execArgv + the script,
 * so it works under tsx and from dist), each `run --shard i/N --start-at T --out TMP/i` with the
 * user's other flags, waits for all, then merges their shard files with `merge --exact`
 * semantics (pipeline/merge) into the user's `--out`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExitCode, type Problem, UsageError } from '../../core/errors.js';
import type { T } from '../../core/i18n/index.js';
import { mergeShards } from '../../pipeline/merge.js';
import {
  type MonitoringResult,
  type MonitoringSettings,
  startMonitoring,
} from '../../pipeline/monitoring.js';
import { shardFiles } from '../../pipeline/shard.js';
import { RealClock, unixNowMs } from '../../runtime/clock.js';

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

/**
 * The start each child is given on its command line, as every shard needs one. The parent
 * replaces it once all children are ready (the handshake below), so it only matters to a child
 * that runs without its parent.
 */
export function workersLeadMs(n: number): number {
  return 4000 + 1000 * n;
}

/**
 * The common start, this long after the last child said it was ready: each child is then idle,
 * waiting on one timer, so it wakes on time even on a busy machine. Starting children (node,
 * imports, the workload, the warm-up) takes seconds and varies; a start fixed before they are
 * up was missed by more than the 1 s late limit when two took over 6 s on a loaded 2-core box.
 */
export const WORKERS_START_MARGIN_MS = 500;

/** Set in a child's environment: tell the parent when ready over IPC and take its start. */
const READY_ENV = 'SERVELAB_WORKER_READY_IPC';

/**
 * In a child that `run --workers` started: says it is ready over IPC and resolves to the common
 * start the parent sends (unix ms). Undefined in any other process. If the parent goes away
 * first, it resolves at once, and the run's own start and late policy apply.
 */
export function startFromParent(
  env: Record<string, string | undefined>,
): (() => Promise<number>) | undefined {
  const send = process.send?.bind(process);
  if (env[READY_ENV] !== '1' || !send) return undefined;
  return () =>
    new Promise<number>((resolve) => {
      const done = (at: number) => {
        process.off('message', onMessage);
        process.off('disconnect', onGone);
        // The channel would keep this process alive after its run.
        if (process.connected) process.disconnect();
        resolve(at);
      };
      const onMessage = (m: unknown) => {
        const at = (m as { start_at_unix_ms?: unknown } | null)?.start_at_unix_ms;
        if (typeof at === 'number' && Number.isFinite(at)) done(at);
      };
      const onGone = () => done(unixNowMs());
      process.on('message', onMessage);
      process.once('disconnect', onGone);
      send({ ready: true });
    });
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

interface Child {
  code: number | null;
  stderr: string;
}

/**
 * This CLI as a child's arguments: node's own flags of this process (`--import tsx` under tsx),
 * less any `-e` launcher code, then `main(argv)` of the CLI module beside this one (main.ts under
 * tsx, main.js from dist), so a child runs the same code however the parent was started.
 */
export function cliCommand(args: readonly string[]): string[] {
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
  const code = `import(${JSON.stringify(mainUrl)}).then((m) => m.main(process.argv.slice(1))).then((c) => { process.exitCode = c; })`;
  return [...own, '--input-type=module', '-e', code, '--', ...args];
}

/**
 * Start the children and hold their common start until every one is ready: the start is then
 * {@link WORKERS_START_MARGIN_MS} after the last ready. A child that ends before it is ready
 * (a usage error, a crash) interrupts the others, which would otherwise wait for it forever.
 */
function runChildren(
  argsOf: readonly string[][],
  env: Record<string, string | undefined>,
  signal: AbortSignal,
): Promise<Child[]> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const procs = argsOf.map((args) =>
    spawn(process.execPath, cliCommand(args), {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...env, [READY_ENV]: '1' },
    }),
  );
  const ready = new Set<number>();
  let started = false;
  const children = procs.map(
    (p, i) =>
      new Promise<Child>((resolve, reject) => {
        const kill = () => {
          p.kill('SIGINT');
          // A child waiting for the common start takes the closed channel as "go now", then stops.
          if (p.connected) p.disconnect();
        };
        stop.signal.addEventListener('abort', kill, { once: true });
        let stderr = '';
        p.stderr?.on('data', (d) => {
          stderr += d;
        });
        p.on('message', (m: { ready?: unknown }) => {
          if (m?.ready !== true || started) return;
          ready.add(i);
          if (ready.size < procs.length) return;
          started = true;
          const at = unixNowMs() + WORKERS_START_MARGIN_MS;
          for (const q of procs) if (q.connected) q.send({ start_at_unix_ms: at });
        });
        p.on('error', reject);
        p.on('close', (code) => {
          stop.signal.removeEventListener('abort', kill);
          if (!started) stop.abort();
          resolve({ code, stderr });
        });
      }),
  );
  return Promise.all(children).finally(() => signal.removeEventListener('abort', onAbort));
}

/**
 * Run N shard children from `runArgv` and merge them exactly (every record, on one timeline);
 * the caller stores and writes the merged run. A child that exits with a code a measurement
 * does not give (0, 2, 3), or writes no shard report, fails the run with its stderr.
 */
export async function runWorkers(
  opts: {
    runArgv: readonly string[];
    workers: number;
    env: Record<string, string | undefined>;
    signal: AbortSignal;
    log: (line: string) => void;
    /** Scrape the shared server over the whole run, as `run` does (the children do not). */
    monitoring?: { settings: MonitoringSettings; targetUrl: string } | null;
  },
  t: T,
) {
  const n = opts.workers;
  const startAt = new Date(unixNowMs() + workersLeadMs(n)).toISOString();
  const base = workerArgs(opts.runArgv);
  const tmp = await mkdtemp(join(tmpdir(), 'servelab-workers-'));
  try {
    opts.log(t('shard.workers.start', { n, margin_ms: WORKERS_START_MARGIN_MS }));
    const dirs = Array.from({ length: n }, (_, i) => join(tmp, String(i)));
    // A worker reads its shard from the flags, never from an Indexed Job's environment.
    const env = { ...opts.env, JOB_COMPLETION_INDEX: undefined, SERVELAB_SHARD_COUNT: undefined };
    const clock = new RealClock();
    const m = opts.monitoring;
    const monitor = m
      ? await startMonitoring(
          { ...m.settings, metricsPort: null },
          { targetUrl: m.targetUrl, clock, log: opts.log },
        )
      : null;
    let children: Child[];
    let result: MonitoringResult | null = null;
    try {
      children = await runChildren(
        dirs.map((dir, i) => [
          'run',
          ...base,
          ...['--shard', `${i}/${n}`, '--start-at', startAt, '--out', dir, '--no-db', '--no-scrape'],
        ]),
        env,
        opts.signal,
      );
    } finally {
      result = (await monitor?.stop().catch(() => null)) ?? null;
    }
    const files = dirs.map((dir, i) => join(dir, shardFiles(i, n).report));
    const problems: Problem[] = [];
    children.forEach((c, i) => {
      const ok =
        c.code === ExitCode.ok || c.code === ExitCode.thresholdFailed || c.code === ExitCode.nothingSucceeded;
      if (!ok)
        problems.push({
          path: '--workers',
          message: t('shard.workers.failed', {
            index: i,
            count: n,
            code: String(c.code),
            stderr: c.stderr.trim(),
          }),
          hint: t('shard.workers.failedHint', { index: i, count: n }),
        });
    });
    if (problems.length) throw new UsageError(problems);
    const monitoring = result ? { result, originUnixMs: clock.originUnixMs } : null;
    return await mergeShards({ expect: n, files, out: null, exact: true, monitoring }, t);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
