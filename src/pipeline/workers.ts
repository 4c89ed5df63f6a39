/**
 * @module pipeline/workers
 * `run --workers N|auto`: the sharding of `run --shard i/N` inside one host. N worker
 * processes, each one shard of the same run (`--shard i/N --start-at T --out TMP/i`), are
 * started together and held until every one is ready (after its warm-up); the parent scrapes
 * the shared server once over the whole run, checks each worker's exit, merges their shard
 * files exactly (`merge --exact` semantics, `pipeline/merge`), then stores and writes the merged
 * run as one and checks its thresholds.
 *
 * The process boundary stays with the caller: it says how a worker process is started
 * ({@link WorkersDeps.launch}: the CLI starts itself as a child with the shard's flags), and a
 * worker reaches its parent through the channel it is given ({@link startFromParent}).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluateThresholds, type ThresholdResult } from '../analysis/thresholds.js';
import { ExitCode, type Problem, UsageError } from '../core/errors.js';
import type { T } from '../i18n/index.js';
import type { RequestRecord } from '../record/types.js';
import { RealClock, unixNowMs } from '../runtime/clock.js';
import type { Store } from '../store/index.js';
import { checkMeasureInput, type MeasureInput, readBaseline } from './measure-settings.js';
import { type MergedReport, mergeShards, storeMerged, writeMerged } from './merge.js';
import { type MonitoringResult, type MonitoringSettings, startMonitoring } from './monitoring.js';
import { vllmWriteOptions } from './outputs.js';
import { shardFiles } from './shard.js';

/**
 * The start each worker is given on its command line, as every shard needs one. The parent
 * replaces it once all workers are ready (the handshake below), so it only matters to a worker
 * that runs without its parent.
 */
export function workersLeadMs(n: number): number {
  return 4000 + 1000 * n;
}

/**
 * The common start, this long after the last worker said it was ready: each worker is then
 * idle, waiting on one timer, so it wakes on time even on a busy machine. Starting workers
 * (node, imports, the workload, the warm-up) takes seconds and varies; a start fixed before they
 * are up was missed by more than the 1 s late limit when two took over 6 s on a loaded 2-core box.
 */
export const WORKERS_START_MARGIN_MS = 500;

/** Set in a worker's environment: tell the parent when ready over IPC and take its start. */
export const READY_ENV = 'SERVELAB_WORKER_READY_IPC';

/**
 * Set in a worker's environment: the parent's temporary folder (`servelab-workers-*`), which a
 * worker removes when its parent is gone (killed with SIGKILL, say), as no one else will.
 */
export const WORKERS_TMP_ENV = 'SERVELAB_WORKERS_TMP';

/** What a worker runs: its shard of the run, the provisional common start and its own output folder. */
export interface WorkerShard {
  index: number;
  count: number;
  /** ISO 8601, for `--start-at`. */
  startAt: string;
  out: string;
}

/** A started worker: its stderr piped, and an IPC channel to it (`node:child_process` with 'ipc'). */
export type WorkerProcess = Pick<
  ChildProcess,
  'stderr' | 'connected' | 'send' | 'kill' | 'disconnect' | 'on'
>;

/**
 * The worker side of the channel to the parent (`process` in a child that has one). Its
 * `channel` is held (`ref`) only while the worker waits for its start: afterwards the channel
 * stays open, so the worker learns at once when its parent is gone (`disconnect`), without
 * keeping the worker alive after its run.
 */
export type ParentChannel = Pick<NodeJS.Process, 'send' | 'on' | 'off' | 'once' | 'connected'> & {
  channel?: { ref(): void; unref(): void } | undefined;
};

/**
 * In a worker that `run --workers` started: says it is ready over `channel` and resolves to the
 * common start the parent sends (unix ms). Undefined in any other process. If the parent goes
 * away first, it resolves at once, and the run's own start and late policy apply.
 */
export function startFromParent(
  env: Record<string, string | undefined>,
  channel: ParentChannel,
): (() => Promise<number>) | undefined {
  const send = channel.send?.bind(channel);
  if (env[READY_ENV] !== '1' || !send) return undefined;
  return () =>
    new Promise<number>((resolve) => {
      const done = (at: number) => {
        channel.off('message', onMessage);
        channel.off('disconnect', onGone);
        // Open but not holding the worker: it still hears its parent go (see ParentChannel).
        channel.channel?.unref();
        resolve(at);
      };
      const onMessage = (m: unknown) => {
        const at = (m as { start_at_unix_ms?: unknown } | null)?.start_at_unix_ms;
        if (typeof at === 'number' && Number.isFinite(at)) done(at);
      };
      const onGone = () => done(unixNowMs());
      if (!channel.connected) return done(unixNowMs());
      channel.channel?.ref();
      channel.on('message', onMessage);
      channel.once('disconnect', onGone);
      send({ ready: true });
    });
}

export interface WorkersDeps {
  /**
   * Start one worker: this same measurement as `run --shard` of `shard`, with `env` (which
   * carries {@link READY_ENV}), its stderr piped and an IPC channel open. The worker neither
   * stores, nor scrapes, nor serves the exporter: the parent does those for the whole run.
   */
  launch: (shard: WorkerShard, env: Record<string, string | undefined>) => WorkerProcess;
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  log: (line: string) => void;
}

interface Child {
  code: number | null;
  stderr: string;
}

/**
 * Start the workers and hold their common start until every one is ready: the start is then
 * {@link WORKERS_START_MARGIN_MS} after the last ready. A worker that ends before it is ready
 * (a usage error, a crash) interrupts the others, which would otherwise wait for it forever;
 * so does the parent's own interrupt (SIGINT/SIGTERM), which each worker gets as SIGINT: it
 * records what was in flight and unsent, writes its shard report and exits 130.
 */
function runChildren(
  shards: readonly WorkerShard[],
  env: Record<string, string | undefined>,
  deps: Pick<WorkersDeps, 'launch' | 'signal'>,
): Promise<Child[]> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  deps.signal.addEventListener('abort', onAbort, { once: true });
  const procs = shards.map((shard) => deps.launch(shard, { ...env, [READY_ENV]: '1' }));
  const ready = new Set<number>();
  let started = false;
  const children = procs.map(
    (p, i) =>
      new Promise<Child>((resolve, reject) => {
        const kill = () => p.kill('SIGINT');
        stop.signal.addEventListener('abort', kill, { once: true });
        let stderr = '';
        let exit: number | null | undefined;
        let stderrDone = !p.stderr;
        let ended = false;
        // Ended when the process exited and its stderr was read to the end. Not 'close', which
        // also waits for the IPC channel and, for a worker killed while it started, never came
        // (the parent then sat with nothing left to wait on).
        const end = () => {
          if (ended || exit === undefined || !stderrDone) return;
          ended = true;
          stop.signal.removeEventListener('abort', kill);
          if (!started) stop.abort();
          resolve({ code: exit, stderr });
        };
        p.stderr?.on('data', (d) => {
          stderr += d;
        });
        p.stderr?.once('close', () => {
          stderrDone = true;
          end();
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
        p.on('exit', (code) => {
          exit = code ?? null;
          end();
        });
        p.on('close', (code) => {
          exit = exit === undefined ? code : exit;
          stderrDone = true;
          end();
        });
      }),
  );
  return Promise.all(children).finally(() => deps.signal.removeEventListener('abort', onAbort));
}

/**
 * Run N shard workers and merge them exactly (every record, on one timeline); the caller stores
 * and writes the merged run. A worker that exits with a code a measurement does not give (0, 2,
 * 3), or writes no shard report, fails the run with its stderr. Interrupted (`deps.signal`),
 * every worker is interrupted too and what they recorded is merged (130 is then their code; a
 * worker stopped before it wrote anything counts its requests `lost`); null when none had
 * written a shard report yet. The temporary folder is removed on every way out.
 */
export async function runWorkers(
  opts: {
    workers: number;
    /** Scrape the shared server over the whole run, as `run` does (the workers do not). */
    monitoring?: { settings: MonitoringSettings; targetUrl: string } | null;
  },
  deps: WorkersDeps,
  t: T,
) {
  const n = opts.workers;
  const startAt = new Date(unixNowMs() + workersLeadMs(n)).toISOString();
  const tmp = await mkdtemp(join(tmpdir(), 'servelab-workers-'));
  try {
    if (deps.signal.aborted) return null;
    deps.log(t('shard.workers.start', { n, margin_ms: WORKERS_START_MARGIN_MS }));
    const dirs = Array.from({ length: n }, (_, i) => join(tmp, String(i)));
    // A worker reads its shard from the flags, never from an Indexed Job's environment.
    const env = {
      ...deps.env,
      JOB_COMPLETION_INDEX: undefined,
      SERVELAB_SHARD_COUNT: undefined,
      [WORKERS_TMP_ENV]: tmp,
    };
    const clock = new RealClock();
    const m = opts.monitoring;
    const monitor = m
      ? await startMonitoring(
          { ...m.settings, metricsPort: null },
          { targetUrl: m.targetUrl, clock, log: deps.log },
        )
      : null;
    let children: Child[];
    let result: MonitoringResult | null = null;
    try {
      children = deps.signal.aborted
        ? []
        : await runChildren(
            dirs.map((dir, i) => ({ index: i, count: n, startAt, out: dir })),
            env,
            deps,
          );
    } finally {
      result = (await monitor?.stop().catch(() => null)) ?? null;
    }
    const files = dirs.map((dir, i) => join(dir, shardFiles(i, n).report));
    const interrupted = deps.signal.aborted;
    const problems: Problem[] = [];
    children.forEach((c, i) => {
      const ok =
        c.code === ExitCode.ok ||
        c.code === ExitCode.thresholdFailed ||
        c.code === ExitCode.nothingSucceeded ||
        // Interrupted with its parent: its shard report has what it recorded (if it got that far).
        interrupted;
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
    const written = interrupted ? files.filter((f) => existsSync(f)) : files;
    if (written.length === 0) return null;
    const monitoring = result ? { result, originUnixMs: clock.originUnixMs } : null;
    return await mergeShards(
      { expect: n, files: written, out: null, exact: true, monitoring, allowMissing: interrupted },
      t,
    );
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** What `run --workers` measured: the merged run, as one run's report, files and thresholds. */
export interface WorkersMeasurement {
  /** null: interrupted before any worker wrote its shard report (nothing recorded, nothing written). */
  report: MergedReport | null;
  records: RequestRecord[] | null;
  /** Files written under `--out` (and vllm.json's own file). */
  files: string[];
  thresholds: ThresholdResult[];
}

/**
 * `run --workers N`: N shard workers on this host, merged exactly; the merged run stored (when
 * `openStore` is given and every record came back) and written to `--out` as one run, and its
 * thresholds checked against the merged summary.
 */
export async function measureWithWorkers(
  input: MeasureInput & { monitoring: MonitoringSettings },
  workers: number,
  deps: WorkersDeps & { openStore?: (() => Store) | null },
  t: T,
): Promise<WorkersMeasurement> {
  const { thresholds } = checkMeasureInput(input, []);
  const baseline = input.common.output.baseline
    ? await readBaseline(input.common.output.baseline)
    : undefined;
  const merged = await runWorkers(
    { workers, monitoring: { settings: input.monitoring, targetUrl: input.target.url } },
    deps,
    t,
  );
  if (!merged) return { report: null, records: null, files: [], thresholds: [] };
  const { report, records } = merged;
  // Stored and written as one run: the store's id, report.json, requests.jsonl, vllm.json.
  if (deps.openStore && records) {
    const store = deps.openStore();
    try {
      storeMerged(store, report, records, input.label ?? null);
    } finally {
      store.close();
    }
  }
  const files = await writeMerged(
    input.common.output.out,
    report,
    records,
    vllmWriteOptions(input.common.output),
  );
  const results = thresholds.length ? evaluateThresholds(report.summary, [...thresholds], baseline) : [];
  return { report, records, files, thresholds: results };
}
