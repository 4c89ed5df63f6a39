/**
 * @module exp/run
 * `servelab exp run FILE.yaml`'s engine: {@link runExperiment} starts the experiment's targets
 * (simulators included), records the experiment and every run into the store (printing their
 * ids as they start), runs the kind, computes the kind's results and stops what it started;
 * {@link formatExperimentResult} renders the result for the console. The result is plain JSON
 * (`--json` prints it as is).
 */

import { MIN_SAMPLES_P99, UNRELIABLE_MARK, UNRELIABLE_NOTE } from '../report/table.js';
import { type AbResult, runAb } from './kinds/ab.js';
import { type BaselineResult, runBaseline } from './kinds/baseline.js';
import { ExpContext, type ExpDeps, type RunInfo } from './kinds/context.js';
import { type MatrixResult, runMatrix } from './kinds/matrix.js';
import { type MixedInputResult, runMixedInput } from './kinds/mixed-input.js';
import { fmt, formatPct, pctUnreliable, verdictOf } from './kinds/points.js';
import { type PrefixCacheResult, runPrefixCache } from './kinds/prefix-cache.js';
import { runConcurrencySweep, runRateSweep, type SweepResult } from './kinds/sweep.js';
import { makeField, setRecordField } from './record.js';
import type { ExperimentFile } from './schema.js';

export { type ExpDeps, ExperimentInterrupted, type RunInfo } from './kinds/context.js';

/** What a kind computed. */
export type KindResult =
  | BaselineResult
  | PrefixCacheResult
  | SweepResult
  | MixedInputResult
  | AbResult
  | MatrixResult;

/** The outcome of one experiment (JSON-serialisable). */
export interface ExperimentResult {
  experiment_id: string | null;
  name: string;
  kind: ExperimentFile['kind'];
  /** `time_scale`: how much faster than real time a simulator ran (1 for servers and virtual sims). */
  targets: { name: string; mode: 'http' | 'virtual'; model: string; time_scale: number }[];
  /** Every run, in the order run, with its summary. */
  runs: RunInfo[];
  results: KindResult;
  /** False when a run failed one of the file's `thresholds` (the CLI exits 2). */
  thresholds_passed: boolean;
  /** `fresh`: each level of a sweep or matrix got its own prompts; `reused`: the same at every level. */
  prompts: 'fresh' | 'reused';
  warnings: string[];
}

/** Extra inputs of {@link runExperiment}. */
export interface RunExperimentDeps extends ExpDeps {
  /** The file as read, stored with the experiment so that `exp rerun` can repeat it. */
  file?: { path: string; text: string };
}

/**
 * Run a validated experiment end to end.
 * @throws UsageError for what the file cannot do (e.g. a target that cannot be made cold);
 *   TargetError/other errors from the targets. The store rows are marked failed/interrupted.
 */
export async function runExperiment(exp: ExperimentFile, deps: RunExperimentDeps): Promise<ExperimentResult> {
  const store = deps.store;
  const row = store?.createExperiment({
    kind: exp.kind,
    name: exp.name,
    filePath: deps.file?.path ?? null,
    fileText: deps.file?.text ?? null,
    spec: exp as unknown as Record<string, unknown>,
  });
  deps.log(`experiment ${row?.id ?? '-'}: ${exp.name} (${exp.kind})`);
  const ctx = new ExpContext(exp, deps, row?.id ?? null);
  try {
    await ctx.start();
    if (store && row)
      store.updateExperiment(row.id, {
        record: { targets: Object.fromEntries(ctx.targets.map((t) => [t.name, t.record])) },
      });
    const results = await runKind(ctx);
    if (results.kind === 'ab' && results.quality && store && row) {
      // The fixed quality samples are the record's `quality` for the two sides.
      const q = results.quality;
      const sides: Record<string, typeof q.a> = { [results.a]: q.a, [results.b]: q.b };
      const targets = Object.fromEntries(
        ctx.targets.map((t) => {
          const qs = sides[t.name];
          if (!qs || !t.record) return [t.name, t.record];
          const note = `probed: ${q.checks.join(', ') || 'quality'} on fixed samples`;
          return [
            t.name,
            setRecordField(
              t.record,
              'quality',
              makeField({
                samples: [qs.samples, note],
                successes: [qs.successes, note],
                truncations: [qs.truncations, note],
                errors: [qs.errors, note],
              }),
            ),
          ];
        }),
      );
      store.updateExperiment(row.id, { record: { targets } });
    }
    const result: ExperimentResult = {
      experiment_id: row?.id ?? null,
      name: exp.name,
      kind: exp.kind,
      targets: ctx.targets.map((t) => ({
        name: t.name,
        mode: t.mode,
        model: t.model,
        time_scale: ctx.timeScale(t),
      })),
      runs: ctx.runs,
      results,
      thresholds_passed: ctx.runs.every((x) => x.thresholds.every((t) => t.pass)),
      prompts: exp.workload.reuse_prompts ? 'reused' : 'fresh',
      warnings: ctx.warnings,
    };
    if (store && row)
      store.finishExperiment(row.id, 'completed', {
        results: results as unknown as Record<string, unknown>,
        runs: ctx.runs.map((r) => ({ run_id: r.run_id, target: r.target, label: r.label, level: r.level })),
        warnings: ctx.warnings,
      });
    return result;
  } catch (e) {
    if (store && row) store.finishExperiment(row.id, deps.signal?.aborted ? 'interrupted' : 'failed');
    throw e;
  } finally {
    await ctx.close();
  }
}

function runKind(ctx: ExpContext): Promise<KindResult> {
  switch (ctx.exp.kind) {
    case 'baseline':
      return runBaseline(ctx);
    case 'prefix-cache':
      return runPrefixCache(ctx);
    case 'concurrency-sweep':
      return runConcurrencySweep(ctx);
    case 'rate-sweep':
      return runRateSweep(ctx);
    case 'mixed-input':
      return runMixedInput(ctx);
    case 'ab':
      return runAb(ctx);
    case 'matrix':
      return runMatrix(ctx);
  }
}

// ---- console rendering ----------------------------------------------------------------------

function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

const pct = (v: number | null | undefined) =>
  v === null || v === undefined ? '-' : `${(v * 100).toFixed(1)}%`;

/** The result as text for the console (a table per target, the kind's verdicts). */
export function formatExperimentResult(r: ExperimentResult): string {
  const out: string[] = [
    `experiment ${r.experiment_id ?? '-'}: ${r.name} (${r.kind}), ${r.runs.length} runs`,
  ];
  const res = r.results;
  switch (res.kind) {
    case 'baseline':
      out.push(
        table(
          ['target', 'cold TTFT ms', 'warm TTFT ms', 'warm E2E ms', 'TPOT ms', 'finish', 'problems'],
          res.targets.map((t) => [
            t.target,
            fmt(t.cold?.ttft_ms),
            fmt(t.warm.ttft_ms_mean),
            fmt(t.warm.e2e_ms_mean),
            fmt(t.warm.tpot_ms_mean, 2),
            Object.entries(t.correctness.finish_reasons)
              .map(([k, v]) => `${k}:${v}`)
              .join(' '),
            t.correctness.problems.join('; ') || 'none',
          ]),
        ),
      );
      break;
    case 'prefix-cache':
      for (const t of res.targets) {
        out.push(
          `${t.target} (cold state: ${t.cold_state}; hits as expected: ${t.hits_as_expected ? 'yes' : 'NO'})`,
        );
        out.push(
          table(
            [
              'phase',
              'prompt tok',
              'cached tok',
              'hit',
              'TTFT p50 ms',
              'prefill p50 ms',
              'prefill tok/s',
              'expected',
              'ok',
            ],
            t.phases.map((p) => [
              p.phase,
              fmt(p.prompt_tokens_mean, 0),
              fmt(p.cached_tokens_mean, 0),
              pct(p.hit_ratio),
              fmt(p.ttft_ms_p50),
              `${fmt(p.prefill_ms_p50)} (${p.prefill_source})`,
              fmt(p.prefill_tok_s, 0),
              p.expected,
              p.as_expected === null ? '-' : p.as_expected ? 'yes' : 'NO',
            ]),
          ),
        );
      }
      break;
    case 'concurrency-sweep':
    case 'rate-sweep':
      for (const t of res.targets) {
        out.push(`${t.target}${t.capacity_rps ? ` (capacity ${fmt(t.capacity_rps, 2)} req/s)` : ''}`);
        out.push(
          table(
            [
              t.factor === 'concurrency' ? 'concurrency' : 'rate req/s',
              'req/s',
              'out tok/s',
              'server tok/s',
              'TTFT p50/p95/p99 ms',
              'E2E p50/p95/p99 ms',
              'TPOT p50',
              'errors',
              'cache hit',
              'verdict',
              'stop',
            ],
            t.points.map((p) => [
              String(p.level),
              fmt(p.request_throughput_rps, 2),
              fmt(p.output_throughput_tok_s),
              fmt(p.server_tokens_per_s),
              formatPct(p.ttft_ms),
              formatPct(p.e2e_ms),
              fmt(p.tpot_ms.p50, 2),
              pct(p.error_rate),
              pct(p.cache_hit_rate),
              verdictOf(p),
              p.stopped ?? '',
            ]),
          ),
        );
        if (t.points.some((p) => pctUnreliable(p.ttft_ms) || pctUnreliable(p.e2e_ms)))
          out.push(UNRELIABLE_NOTE);
        if (r.prompts === 'reused')
          out.push(
            'prompts: the same at every level (workload.reuse_prompts): on an engine with a prefix cache the later levels run warm (see the cache hit column)',
          );
        const leftOut = t.left_out.length
          ? `; left out: ${t.left_out.map((l) => `${l.level} (${l.reasons.join(', ')})`).join(', ')}`
          : '';
        out.push(
          t.knee_determined
            ? `knee: ${t.knee} (${t.knee_reason}${leftOut})`
            : t.left_out.length && t.points.length - t.left_out.length < 2
              ? `knee: undetermined (${t.knee_reason}${leftOut})`
              : `knee: not reached (${t.knee_reason}${leftOut})`,
        );
        if (t.max_concurrency)
          out.push(
            t.max_concurrency.concurrency === null
              ? `max concurrency meeting the SLO (p90): undetermined (${t.max_concurrency.undetermined})`
              : `max concurrency meeting the SLO (p90): ${t.max_concurrency.concurrency}${t.max_concurrency.bounded ? '' : ' (or more: the SLO still held at the largest level tried)'}`,
          );
      }
      break;
    case 'mixed-input':
      for (const t of res.targets) {
        out.push(t.target);
        out.push(
          table(
            [
              'order',
              'overlap gaps n',
              'mean ms',
              'p99 ms',
              'clean gaps n',
              'mean ms',
              'p99 ms',
              'stall ratio',
            ],
            t.orders.map((o) => [
              o.order,
              String(o.gaps_overlapping_ms.n),
              fmt(o.gaps_overlapping_ms.mean, 2),
              fmt(o.gaps_overlapping_ms.p99, 2),
              String(o.gaps_clean_ms.n),
              fmt(o.gaps_clean_ms.mean, 2),
              fmt(o.gaps_clean_ms.p99, 2),
              fmt(o.stall_ratio, 2),
            ]),
          ),
        );
      }
      break;
    case 'ab':
      out.push(
        `A = ${res.a}, B = ${res.b}, switch: ${res.switch}; significant = Holm-adjusted p < ${res.alpha} and |Δ| ≥ ${res.min_effect_pct}%`,
      );
      out.push(
        table(
          ['metric', 'A mean', 'B mean', 'Δ', 'Δ%', '95% CI', 'p (Holm)', 'verdict'],
          res.metrics.map((m) => [
            m.metric,
            fmt(m.mean_a, 2),
            fmt(m.mean_b, 2),
            fmt(m.delta, 2),
            fmt(m.delta_pct),
            `[${fmt(m.ci_low, 2)}, ${fmt(m.ci_high, 2)}]`,
            m.p_holm.toFixed(4),
            m.significant ? `${m.better === 'b' ? 'B' : 'A'} better` : 'no significant difference',
          ]),
        ),
      );
      if (res.quality) {
        const q = res.quality;
        const side = (name: string, s: typeof q.a) =>
          `${name}: ${s.successes}/${s.samples} answered, ${s.truncations} truncated, ${s.errors} errors, ${s.exact_mismatches} exact mismatches, ${s.regex_failures} regex, ${s.schema_failures} schema failures`;
        out.push(`quality (${q.checks.join(', ')}): ${q.passed ? 'passed' : 'FAILED'}`);
        out.push(`  ${side(`A ${res.a}`, q.a)}`);
        out.push(`  ${side(`B ${res.b}`, q.b)}`);
      }
      break;
    case 'matrix':
      for (const t of res.targets) {
        out.push(t.target);
        out.push(
          table(
            [
              'cell',
              'in',
              'out',
              'conc',
              'TTFT p50 ms',
              'TTFT p99 ms',
              'TPOT p50 ms',
              'E2E p50 ms',
              'out tok/s',
              'errors',
            ],
            t.cells.map((c) => [
              c.cell,
              c.input_len,
              c.output_len,
              String(c.concurrency),
              fmt(c.ttft_ms.p50),
              `${fmt(c.ttft_ms.p99)}${c.ttft_ms.p99 !== null && c.ttft_ms.n < MIN_SAMPLES_P99 ? UNRELIABLE_MARK : ''}`,
              fmt(c.tpot_ms.p50, 2),
              fmt(c.e2e_ms.p50),
              fmt(c.output_throughput_tok_s),
              pct(c.error_rate),
            ]),
          ),
        );
        if (t.cells.some((c) => c.ttft_ms.p99 !== null && c.ttft_ms.n < MIN_SAMPLES_P99))
          out.push(UNRELIABLE_NOTE);
      }
      break;
  }
  for (const run of r.runs)
    for (const t of run.thresholds)
      if (!t.pass)
        out.push(
          `threshold failed on ${run.target} ${run.label}: ${t.threshold} (actual ${fmt(t.actual, 2)}${t.reason ? `, ${t.reason}` : ''})`,
        );
  for (const t of r.targets)
    if (t.time_scale !== 1)
      out.push(
        `note: ${t.name} is a simulator at time scale ${t.time_scale}: its ms and req/s are wall-clock (engine ms / ${t.time_scale}); schedules (rates, spacing) are in simulated time`,
      );
  for (const w of r.warnings) out.push(`warning: ${w}`);
  // Every run's verdict, whatever the kind: a conclusion drawn from an invalid run says so here.
  out.push(
    `runs: ${r.runs.map((x) => `${x.run_id ?? '-'} (${x.target} ${x.label}: ${verdictOf(x)})`).join(', ')}`,
  );
  const invalid = r.runs.filter((x) => x.validity.length > 0);
  for (const x of invalid)
    for (const v of x.validity) out.push(`  ${x.target} ${x.label} ${v.code}: ${v.message}`);
  return out.join('\n');
}
