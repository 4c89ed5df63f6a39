/**
 * @module cli/commands/plan
 * `servelab plan`: `run` against the simulated engine in this process, on a virtual clock. It
 * is the same measurement (`pipeline/measure`: the HTTP client, runner, scraping of the engine's
 * /metrics, summary and verdict) with the socket swapped for an in-process dispatcher, so it
 * prints the same summary and writes the same report.json schema as `run`, in seconds. The same
 * seed gives a byte-identical report outside its `environment` block.
 */
import { resolve } from 'node:path';
import { findMaxLevel, type ProbeJudge } from '../../analysis/capacity.js';
import { type Problem, UsageError } from '../../core/errors.js';
import { simEndpoint } from '../../pipeline/endpoint.js';
import { workloadOptions } from '../../pipeline/load-plan.js';
import type { Measurement } from '../../pipeline/measure.js';
import { checkMeasureInput, measure } from '../../pipeline/measure-settings.js';
import { targetSettings } from '../../pipeline/settings.js';
import { formatSessions } from '../../report/run/sessions.js';
import { formatSpeculative, formatSummaryTable, formatVerdict } from '../../report/run/summary-table.js';
import { describeEngine, resolveEngineConfig } from '../../sim/engine/index.js';
import { bandLines, fidelityLine, regimeOf } from '../../sim/fidelity/band.js';
import type { Store } from '../../store/index.js';
import { type StreamedWorkload, workloadProblems } from '../../workload/index.js';
import { withInferencePerfConfig } from '../inference-perf-flags.js';
import type { Io } from '../io.js';
import { langOf, parseCommon, resolvePaths } from '../options.js';
import type { RawCommon } from '../raw-flags.js';
import { VERSION } from '../version.js';
import {
  emitJson,
  formatThresholds,
  formatTraceLines,
  humanStream,
  measurementExitCode,
  throwIfProblems,
} from './common.js';
import { parseEndpoint } from './run.js';
import { parseSimFlags, type RawSimFlags } from './sim-flags.js';

export interface RawPlan extends RawCommon, RawSimFlags {
  /** `--endpoint chat|completions`: the API the simulated server is sent (default chat). */
  endpoint?: string;
  findMaxConcurrency?: boolean;
  findMaxUsers?: boolean;
  db?: string | boolean;
}

/** A request served by `plan` counts as meeting the SLO set when this share of requests is good. */
export const PLAN_SLO_ATTAINMENT = 0.99;

export async function planCommand(raw: RawPlan, io: Io): Promise<number> {
  const problems: Problem[] = [];
  const t = langOf(raw.lang, io.env, problems);
  const engineOpts = parseSimFlags(raw, problems, 'plan', io.cwd, t);
  const notes: string[] = [];
  raw = withInferencePerfConfig(raw, io.cwd, problems, notes, t);
  const common = resolvePaths(parseCommon({ ...raw, model: engineOpts.model }, problems, notes, t), io.cwd);
  const endpoint = parseEndpoint(raw, problems, notes, t);
  for (const n of notes) io.stderr.write(`${n}\n`);
  if (common.load.mode === 'closed' && common.load.durationS !== null)
    problems.push({
      path: '--duration',
      message: t('cli.plan.duration'),
      hint: t('cli.plan.duration_hint'),
    });
  const model = engineOpts.model ?? 'qwen3-8b';
  const cfg = (() => {
    try {
      return resolveEngineConfig(engineOpts);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      // The engine checks the flags' rules again, in English; a flag the flags' check already
      // reported on (in the command's language) is not reported twice.
      const seen = new Set(problems.map((p) => p.path));
      problems.push(...err.problems.filter((p) => !seen.has(p.path)));
      return null;
    }
  })();
  const input = {
    target: targetSettings(`sim://${cfg?.gpu.name ?? engineOpts.gpu}/${model}`, { endpoint }),
    common,
  };
  const { slo } = checkMeasureInput(input, problems);
  if (raw.findMaxConcurrency && !slo)
    problems.push({
      path: '--find-max-concurrency',
      message: t('cli.plan.needs_slo'),
      hint: t('cli.plan.needs_slo_hint'),
    });
  if (raw.findMaxUsers && !slo)
    problems.push({
      path: '--find-max-users',
      message: t('cli.plan.needs_slo'),
      hint: t('cli.plan.needs_slo_hint'),
    });
  if (raw.findMaxUsers && common.load.mode !== 'sessions')
    problems.push({
      path: '--find-max-users',
      message: t('sessions.plan.needs_users'),
      hint: t('sessions.plan.needs_users_hint'),
    });
  if (raw.findMaxUsers && raw.findMaxConcurrency)
    problems.push({
      path: '--find-max-users',
      message: t('sessions.plan.both_searches'),
      hint: t('cli.keep_one'),
    });
  problems.push(...workloadProblems(workloadOptions(common, model, t), t));
  throwIfProblems(problems);
  const engine = cfg as NonNullable<typeof cfg>;
  const out = humanStream(common.output.json, io);
  // The engine's own times ride along in each response (`timings`), as under `sim --expose-timings`,
  // so every record carries its server-side queue and prefill (`record/server-times`); the
  // per-chunk stamps nothing here reads are left out (about a quarter of a long plan's CPU).
  const simOpts = { ...engineOpts, timeScale: 1, exposeTimings: true, unstampedChunks: true };
  const engineConfig = {
    ...engineOpts,
    catalogue: undefined,
    memory: engine.memory,
    max_num_seqs: engine.maxNumSeqs,
    max_num_batched_tokens: engine.maxNumBatchedTokens,
    max_model_len: engine.maxModelLen,
    description: describeEngine(engine),
  };
  /** One measurement on a fresh simulated engine (an empty cache), as `run` would make it. */
  const measureOnce = async (
    c: typeof common,
    extra: Record<string, unknown>,
    store: Store | null = null,
  ): Promise<Measurement & { workload: StreamedWorkload }> => {
    const endpoint = await simEndpoint(simOpts, { virtual: true });
    try {
      return await measure(
        { target: input.target, common: c },
        {
          env: {},
          version: VERSION,
          endpoint,
          monitoring: { scrape: 'auto', scrapeIntervalMs: 1000, metricsPort: null },
          config: { mode: 'plan', engine: engineConfig, ...extra },
          store,
          runKind: 'plan',
          t,
        },
      );
    } finally {
      await endpoint.close();
    }
  };

  /** One probe of a capacity search: `common` at `load`, no files written, no thresholds. */
  const probeOnce = (load: typeof common.load) =>
    measureOnce(
      { ...common, load, output: { ...common.output, out: null, thresholds: [], baseline: null } },
      {},
    );
  /** A probe meets the SLO set when PLAN_SLO_ATTAINMENT of its requests are good; its numbers are taken as they are. */
  const planJudge: ProbeJudge = { rule: { attainment: PLAN_SLO_ATTAINMENT }, invalid: null };

  let c = common;
  let search: unknown = null;
  if (raw.findMaxConcurrency && slo) {
    const requests = common.load.requests ?? 100;
    const found = await findMaxLevel(
      (concurrency) => probeOnce({ ...common.load, mode: 'closed', concurrency, requests }),
      planJudge,
      { max: engine.maxNumSeqs * 4 },
    );
    search = {
      concurrency: found.level,
      probes: found.probes.map((p) => ({ concurrency: p.level, ok: p.ok, attainment: p.attainment })),
      slo,
      attainment: PLAN_SLO_ATTAINMENT,
    };
    out.write(
      `${
        found.level
          ? t('run.plan.max_concurrency', { pct: PLAN_SLO_ATTAINMENT * 100, c: found.level })
          : t('run.plan.no_concurrency')
      }\n`,
    );
    if (found.level)
      c = { ...common, load: { ...common.load, mode: 'closed', concurrency: found.level, requests } };
  }

  if (raw.findMaxUsers && slo && common.load.mode === 'sessions') {
    const most = common.load.users ?? 1;
    const found = await findMaxLevel((users) => probeOnce({ ...common.load, users }), planJudge, {
      max: most,
    });
    search = {
      users: found.level,
      probes: found.probes.map((p) => ({ users: p.level, ok: p.ok, attainment: p.attainment })),
      slo,
      attainment: PLAN_SLO_ATTAINMENT,
      searched_up_to: most,
    };
    const think = common.load.thinkTime ?? '0';
    out.write(
      `${
        found.level
          ? t(found.level === most ? 'sessions.plan.max_users_all' : 'sessions.plan.max_users', {
              pct: PLAN_SLO_ATTAINMENT * 100,
              users: found.level,
              think,
              most,
            })
          : t('sessions.plan.no_users', { pct: PLAN_SLO_ATTAINMENT * 100, think })
      }\n`,
    );
    if (found.level) c = { ...common, load: { ...common.load, users: found.level } };
  }

  // The store (and its native SQLite binding) is loaded only when the run is stored: not with --no-db.
  const store =
    raw.db !== false
      ? (await import('../../store/index.js')).openStore(
          resolve(io.cwd, typeof raw.db === 'string' ? raw.db : 'servelab.db'),
        )
      : null;
  let m: Measurement & { workload: StreamedWorkload };
  try {
    m = await measureOnce(
      c,
      { [raw.findMaxUsers ? 'find_max_users' : 'find_max_concurrency']: search },
      store,
    );
  } finally {
    store?.close();
  }
  const report = m.report;
  // Every file before the summary (measure wrote --out), JSON on stdout after it: see run.
  const result = { ...report, thresholds: m.thresholds };
  if (common.output.json !== true) await emitJson(common.output.json, result, io);
  const head = {
    model,
    gpu: `${engine.tp > 1 ? `${engine.tp}× ` : ''}${engine.gpu.name}`,
    s: ((m.result.window.end_ms - m.result.window.start_ms) / 1000).toFixed(2),
    id: report.run_id,
    seed: c.load.seed,
  };
  out.write(`\n${t(report.run_id ? 'run.plan.header_run' : 'run.plan.header', head)}\n`);
  out.write(formatTraceLines(m.workload.trace, t));
  out.write(formatSummaryTable(m.summary, t));
  out.write(formatSessions(report.sessions ?? null, t));
  out.write(formatSpeculative(report.speculative, t));
  // Every headline number with its 80% band (issue 26; docs/fidelity.md "Error bands"); the
  // regime-wide line only when no fit stored bands.
  const sm = m.summary;
  const bands = bandLines(
    {
      ttft_mean: sm.ttft_ms.mean,
      ttft_p90: sm.ttft_ms.p90,
      ttft_p99: sm.ttft_ms.p99,
      e2e_mean: sm.e2e_ms.mean,
      e2e_p90: sm.e2e_ms.p90,
      e2e_p99: sm.e2e_ms.p99,
      itl_mean: sm.tpot_ms.mean,
    },
    t,
  );
  out.write(
    bands.length
      ? `${bands.join('\n')}\n`
      : `${fidelityLine(regimeOf(sm.ttft_ms.p50, sm.tpot_ms.p50, report.series), t)}\n`,
  );
  out.write(formatVerdict(m.validity, t));
  out.write(formatThresholds(m.thresholds, t));
  if (m.files.length) out.write(`${t('run.wrote', { files: m.files.join(', ') })}\n`);
  if (common.output.json === true) await emitJson(true, result, io);
  return measurementExitCode(m.summary, m.thresholds, false);
}
