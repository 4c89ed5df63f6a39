/**
 * @module cli/commands/plan
 * `servelab plan`: the same workload and load flags as `run`, pushed through the simulated
 * engine on a virtual clock (no HTTP). It prints the same summary and writes the same
 * report.json schema as `run`; the same seed gives a byte-identical report outside its
 * `environment` block.
 */
import { resolve } from 'node:path';
import { measurementWindow, summarize } from '../../analysis/index.js';
import { evaluateThresholds } from '../../analysis/thresholds.js';
import { type Problem, UsageError } from '../../core/errors.js';
import {
  checkMeasureInput,
  describeConfig,
  loadPlan,
  readBaseline,
  workloadOptions,
} from '../../pipeline/measure.js';
import { targetSettings } from '../../pipeline/settings.js';
import { describeEnvironment } from '../../report/run/environment.js';
import { buildRunReport } from '../../report/run/report.js';
import { formatSummaryTable } from '../../report/run/table.js';
import { writeRunOutputs } from '../../report/run/write.js';
import { describeEngine, type EngineConfig, resolveEngineConfig } from '../../sim/engine/index.js';
import {
  findMaxConcurrency,
  type PlanLoad,
  type PlanRequest,
  planRequestFromSpec,
  simulateDetailed,
} from '../../sim/plan.js';
import { openStore } from '../../store/index.js';
import { type Tokenizer, tokenizerFor } from '../../tokenizer/index.js';
import { buildWorkload, workloadProblems } from '../../workload/index.js';
import type { RequestSpec } from '../../workload/types.js';
import type { Io } from '../io.js';
import { parseCommon, type RawCommon, resolvePaths } from '../options.js';
import { VERSION } from '../version.js';
import { emitJson, formatThresholds, humanStream, measurementExitCode, throwIfProblems } from './common.js';
import { parseSimFlags, type RawSimFlags } from './sim-flags.js';

export interface RawPlan extends RawCommon, RawSimFlags {
  findMaxConcurrency?: boolean;
  db?: string | boolean;
}

/** A request served by `plan` counts as meeting the SLO set when this share of requests is good. */
export const PLAN_SLO_ATTAINMENT = 0.99;

function planRequests(
  specs: readonly RequestSpec[],
  warmup: number,
  total: number,
  tok: Tokenizer,
  cfg: EngineConfig,
  common: ReturnType<typeof parseCommon>,
  serverSeed: number,
): PlanRequest[] {
  const out: PlanRequest[] = [];
  for (let i = 0; i < total; i++) {
    const spec = specs[i % specs.length];
    const phase = i < warmup ? 'warmup' : 'measure';
    try {
      out.push(
        planRequestFromSpec(spec, tok, cfg, `plan-${i + 1}`, {
          endpoint: 'chat',
          phase,
          defaultMaxTokens: common.generation.maxTokens,
          ignoreEos: common.generation.ignoreEos,
          temperature: common.generation.temperature,
          serverSeed,
        }),
      );
    } catch (err) {
      throw new UsageError([
        {
          path: 'workload',
          message: (err as Error).message,
          hint: 'shorten --input-len/--output-len or raise --max-model-len',
        },
      ]);
    }
  }
  return out;
}

export async function planCommand(raw: RawPlan, io: Io): Promise<number> {
  const problems: Problem[] = [];
  const engineOpts = parseSimFlags(raw, problems, 'plan');
  const common = resolvePaths(parseCommon({ ...raw, model: engineOpts.model }, problems), io.cwd);
  if (common.load.mode === 'closed' && common.load.durationS !== null)
    problems.push({
      path: '--duration',
      message: 'plan runs a request count in closed loop',
      hint: 'use --requests N (virtual time makes large counts cheap)',
    });
  const { slo, thresholds } = checkMeasureInput({ target: null as never, common }, problems);
  if (raw.findMaxConcurrency && !slo)
    problems.push({
      path: '--find-max-concurrency',
      message: 'needs the SLOs to meet',
      hint: 'add --slo ttft_ms=1000,tpot_ms=50',
    });
  problems.push(...workloadProblems(workloadOptions(common, engineOpts.model)));
  throwIfProblems(problems);
  const cfg = resolveEngineConfig(engineOpts);
  const model = engineOpts.model;
  const tok = await tokenizerFor(model);
  const baseline = common.output.baseline ? await readBaseline(common.output.baseline) : undefined;
  const warmup = common.load.warmup;
  const wopts = workloadOptions(common, model);
  const workload = await buildWorkload(
    { ...wopts, count: wopts.count !== undefined ? wopts.count + warmup : undefined },
    { tokenizerFor: async () => tok },
  );
  const { load } = loadPlan(common, workload);
  const measured = load.kind === 'open' ? load.arrivalsMs.length : (common.load.requests ?? 100);
  const total = measured + (load.kind === 'closed' ? warmup : 0);
  const ctxFor = (concurrency: number | null) => ({
    target_rate_rps: common.load.mode === 'open' ? common.load.rateRps : null,
    max_concurrency: concurrency,
    slo,
    client: null,
    expect_length: common.generation.ignoreEos,
  });
  const out = humanStream(common.output.json, io);

  let concurrency = load.kind === 'closed' ? load.concurrency : null;
  let search: unknown = null;
  if (raw.findMaxConcurrency && slo) {
    const reqs = planRequests(workload.specs, warmup, total, tok, cfg, common, engineOpts.seed);
    const found = findMaxConcurrency(
      cfg,
      () => reqs,
      (res) => {
        const s = summarize(res.records, ctxFor(null));
        return (s.goodput?.fraction ?? 0) >= PLAN_SLO_ATTAINMENT;
      },
    );
    search = { concurrency: found.concurrency, probes: found.probes, slo, attainment: PLAN_SLO_ATTAINMENT };
    const best = found.concurrency || null;
    out.write(
      best
        ? `largest concurrency meeting the SLOs (≥ ${PLAN_SLO_ATTAINMENT * 100}% good): ${best}\n`
        : 'no concurrency meets the SLOs\n',
    );
    if (best) concurrency = best;
  }

  const planLoad: PlanLoad =
    load.kind === 'closed'
      ? { kind: 'closed', concurrency: concurrency ?? 1 }
      : { kind: 'open', arrivalsMs: [...load.arrivalsMs], maxConcurrency: load.maxConcurrency ?? undefined };
  const reqs = planRequests(
    workload.specs,
    load.kind === 'closed' ? warmup : 0,
    total,
    tok,
    cfg,
    common,
    engineOpts.seed,
  );
  const res = simulateDetailed(cfg, reqs, planLoad);
  const window = measurementWindow(res.records.filter((r) => r.phase === 'measure')) ?? {
    start_ms: 0,
    end_ms: 0,
  };
  const summary = summarize(res.records, { ...ctxFor(concurrency ?? common.load.maxConcurrency), window });
  const thresholdResults = thresholds.length ? evaluateThresholds(summary, thresholds, baseline) : [];
  const input = { target: targetSettings(`sim://${cfg.gpu.name}/${model}`), common };
  const config = {
    ...describeConfig(input, model, workload, slo),
    mode: 'plan',
    engine: {
      ...engineOpts,
      catalogue: undefined,
      memory: cfg.memory,
      max_num_seqs: cfg.maxNumSeqs,
      max_num_batched_tokens: cfg.maxNumBatchedTokens,
      max_model_len: cfg.maxModelLen,
    },
    find_max_concurrency: search,
  };
  const report = buildRunReport({
    config,
    environment: { ...describeEnvironment(VERSION), clock: 'virtual' },
    window,
    // Virtual time has no wall-clock anchor; 0 keeps reports from the same seed identical.
    started_at_unix_ms: 0,
    summary,
    end: { reason: 'completed', interrupted: false },
    records: res.records,
    embedRecords: common.output.embedRecords,
  });
  const st = res.stats;
  (report as unknown as Record<string, unknown>).plan = {
    engine: describeEngine(cfg),
    server: {
      preemptions: st.preemptions,
      prefix_queries: st.prefixQueries,
      prefix_hits: st.prefixHits,
      steps: st.steps,
      prompt_tokens: st.promptTokens,
      generation_tokens: st.generationTokens,
    },
    duration_ms: res.durationMs,
  };

  if (raw.db !== false) {
    const store = openStore(resolve(io.cwd, typeof raw.db === 'string' ? raw.db : 'servelab.db'));
    try {
      const run = store.createRun({
        kind: 'plan',
        startedAtUnixMs: 0,
        config,
        environment: report.environment,
      });
      for (const r of res.records) store.appendRecord(run.id, r);
      store.finishRun(run.id, summary, 'completed', { ...window });
      report.run_id = run.id;
    } finally {
      store.close();
    }
  }
  out.write(
    `\nservelab plan: ${model} on ${cfg.tp > 1 ? `${cfg.tp}× ` : ''}${cfg.gpu.name} (virtual time, ${(res.durationMs / 1000).toFixed(2)} s simulated)${report.run_id ? ` (run ${report.run_id})` : ''}\n`,
  );
  out.write(formatSummaryTable(summary));
  out.write(formatThresholds(thresholdResults));
  if (common.output.out) {
    const dir = resolve(io.cwd, common.output.out);
    const files = await writeRunOutputs(dir, report, { vllm: common.output.formatVllm });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      resolve(dir, 'requests.jsonl'),
      res.records.map((r) => JSON.stringify(r)).join('\n') + '\n',
    );
    out.write(`wrote ${[...files, resolve(dir, 'requests.jsonl')].join(', ')}\n`);
  }
  await emitJson(common.output.json, { ...report, thresholds: thresholdResults }, io);
  return measurementExitCode(summary, thresholdResults, false);
}
