/**
 * `npm run fit`: fit the step-time model's coefficients on `../shared/fit-data/` (issue 26;
 * `sim/fidelity/fit-model`), check them by leave-one-experiment-out and bootstrap, and write
 * them with their sources and bands to src/sim/engine/fitted-coefficients.json, which the
 * simulator loads by default. Deterministic from `--seed` (default 1).
 *
 * `npm run fit [-- --seed N] [--search-scale F] [--bootstrap N] [--loss soft-l1|linear] [--out FILE] [--dry-run]`
 *   --search-scale  fraction of each stage replayed during the search (default 0.2)
 *   --loss          soft-l1 (default) or linear least squares of the weighted relative errors
 *   --out           where to write (default src/sim/engine/fitted-coefficients.json)
 *   --bootstrap     bootstrap refits (default 50)
 *   --dry-run       print, do not write the file
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { percentile } from '../src/analysis/stats.js';
import { FITTED_KEYS, type FittedCoefficients } from '../src/sim/engine/fitted.js';
import {
  type FitComparison,
  type FitExperiment,
  fitErrorMedians,
  parseActualCsv,
} from '../src/sim/fidelity/fit-data.js';
import {
  bandQuantiles,
  bootstrap,
  FIT_WEIGHTS,
  fitCoefficients,
  INCOMPLETE_WEIGHT,
  leaveOneOut,
  nestedCoverage,
  PRIOR_LOG_SIGMA,
  PRIORS,
  replayAll,
  SOFT_L1_SCALE,
} from '../src/sim/fidelity/fit-model.js';
import { FIT_DATA_DIR } from './fit-data.js';

/** What each coefficient means physically (docs/sim.md "Fitted step-time model"). */
const READINGS: Record<keyof FittedCoefficients, string> = {
  k_compute:
    'x GEMM and attention FLOP time at the GPU peak x efficiency: kernels below their large-shape efficiency at serving shapes',
  k_weights:
    'x dense weight-read time at 0.8 of peak bandwidth: achieved bandwidth of the weight-streaming GEMMs',
  k_moe_experts: 'x routed-expert weight reads: grouped-GEMM (fused MoE) bandwidth vs dense GEMMs',
  k_kv_decode: 'x decode attention KV reads: paged-attention bandwidth at these batch and context sizes',
  k_tp_comm:
    'x all-reduce time (ring payload / NVLink bandwidth + per-call latency): custom all-reduce vs the model',
  t_step_ms: 'per step: scheduler, input preparation, host-device round trip of the engine core',
  t_layer_ms: 'per decoder layer per step: kernel launches and per-layer host work not hidden by CUDA graphs',
  t_req_ms: 'per scheduled request per step: block tables, positions, slot mapping, sampling metadata',
  t_moe_layer_ms: 'per MoE layer per step: router top-k, token permute/un-permute around the grouped GEMM',
  frontend_overhead_ms:
    'per request, before the engine: HTTP parsing, request ingestion and tokenization in the API server',
  frontend_chunk_ms: 'per streamed output token: incremental detokenization, JSON and the SSE write',
};

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const seed = Number(arg('--seed') ?? 1);
const searchScale = Number(arg('--search-scale') ?? 0.2);
const numBoot = Number(arg('--bootstrap') ?? 50);
const loss = arg('--loss') === 'linear' ? 'linear' : 'soft-l1';
const dir = process.env.SERVELAB_FIT_DATA ?? FIT_DATA_DIR;
if (!existsSync(resolve(dir, 'experiments.json'))) {
  console.log(`fit data: ${dir} not found; npm run fit needs ../shared/fit-data (see issue 26)`);
  process.exit(1);
}
const expText = readFileSync(resolve(dir, 'experiments.json'), 'utf8');
const csvText = readFileSync(resolve(dir, 'actual.csv'), 'utf8');
const experiments = (JSON.parse(expText) as { experiments: FitExperiment[] }).experiments;
const actual = parseActualCsv(csvText);
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const log = (s: string) => console.log(s);
const t0 = performance.now();
const secs = () => ((performance.now() - t0) / 1000).toFixed(0);
const f = (x: number) => (x >= 100 ? x.toFixed(0) : x.toPrecision(3));
const pct = (x: number | null) => (x === null ? 'n/a' : `${x.toFixed(1)}%`);
const sgn = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`;

function table(title: string, rows: FitComparison[]): void {
  log(`\n${title}: error = (simulated − measured) / measured, whole runs`);
  const metrics = Object.keys(FIT_WEIGHTS);
  log(`  ${'experiment'.padEnd(48)}${metrics.map((m) => m.padStart(10)).join('')}`);
  for (const x of experiments) {
    const mine = rows.filter((r) => r.experiment === x.experiment);
    const cells = metrics.map((m) => {
      const r = mine.find((y) => y.metric === m);
      return (r ? sgn(r.errorPct) : '—').padStart(10);
    });
    log(`  ${(x.experiment + (x.complete ? '' : ' *')).slice(0, 47).padEnd(48)}${cells.join('')}`);
  }
  const m = fitErrorMedians(rows, (s) => s === -1);
  log(
    `  median |error|: E2E (mean,p90,p99) ${pct(m.e2e)}, TTFT (mean,p90,p99) ${pct(m.ttft)}, ITL mean ${pct(m.itl)}   (* complete: false)`,
  );
}

log(
  `fit: ${experiments.length} experiments from ${dir}; seed ${seed}; search on ${searchScale} of each stage; ${FITTED_KEYS.length} coefficients; loss ${loss}`,
);
const before = replayAll(experiments, actual, PRIORS, seed, 1);
table('cost model v2 constants (the priors)', before.rows);

log(`\nsearch (Levenberg–Marquardt over log coefficients, finite differences of subsampled replays):`);
const input = { experiments, actual, seed, searchScale, loss, log } as const;
const fit = fitCoefficients(input);
log(`  ${fit.evaluations} replays of all experiments, ${secs()} s`);

const full = replayAll(experiments, actual, fit.coefficients, seed, 1);
table('fitted, in-sample (full replays)', full.rows);
log(
  `  prefix-cache hit rate per experiment: ${experiments.map((x, i) => `${x.exp_id} ${full.hitRates[i] === null ? 'n/a' : `${((full.hitRates[i] as number) * 100).toFixed(0)}%`}`).join(', ')}`,
);

const loo = leaveOneOut(input, fit);
const looRows = loo.flatMap((l) => l.rows);
table('leave-one-experiment-out (fit on the other 12, full replay of the held-out one)', looRows);
const inS = fitErrorMedians(full.rows, (s) => s === -1);
const outS = fitErrorMedians(looRows, (s) => s === -1);
const ratio = (a: number | null, b: number | null) => (a && b ? (b / a).toFixed(2) : 'n/a');
log(
  `  LOO ÷ in-sample medians: E2E ${ratio(inS.e2e, outS.e2e)}, TTFT ${ratio(inS.ttft, outS.ttft)}, ITL ${ratio(inS.itl, outS.itl)} (target ≤ 1.5)`,
);

const boots = bootstrap(fit, experiments.length, numBoot, seed);
log(
  `\nbootstrap: ${numBoot} linearised refits on experiments drawn with replacement; coefficient 80% ranges:`,
);
for (const k of FITTED_KEYS) {
  const v = boots.map((b) => b[k]).sort((a, b) => a - b);
  log(
    `  ${k.padEnd(22)}${f(fit.coefficients[k]).padStart(9)}  [${f(percentile(v, 10) ?? 0)}, ${f(percentile(v, 90) ?? 0)}]  ± ${f(fit.stderr[k])} (LM s.e.)  prior ${PRIORS[k]}`,
  );
}

const bands = bandQuantiles(looRows);
const coverage = nestedCoverage(loo);
log(
  `\nbands: per metric, measured ÷ predicted − 1 over the LOO predictions (split-conformal 80%: low, high):`,
);
for (const [m, b] of Object.entries(bands))
  log(`  ${m.padEnd(10)} ${sgn(b.q10 * 100)} … ${sgn(b.q90 * 100)}  (${b.n})`);
log(
  `  nested coverage: ${(coverage * 100).toFixed(0)}% of held-out measured values inside bands built from the other experiments' LOO errors (target 70–90%)`,
);
log(`\ndone in ${secs()} s`);

if (!process.argv.includes('--dry-run')) {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {}
  const out = {
    servelab_fitted_coefficients: 1,
    note: 'Written by `npm run fit` (bench/fit.ts). Each coefficient: docs/sim.md "Fitted step-time model".',
    sources: {
      data: {
        path: '../shared/fit-data/experiments.json, actual.csv',
        experiments_sha256: sha(expText),
        actual_sha256: sha(csvText),
        origin:
          "public vLLM v0.15.1 runs on H100 (see ../shared/fit-data/README.md and each experiment's sources)",
      },
      fit_code_commit: commit,
      fit_code: 'bench/fit.ts, src/sim/fidelity/fit-model.ts',
      seed,
      search_scale: searchScale,
      loss: loss === 'linear' ? 'least squares' : `soft L1, scale ${SOFT_L1_SCALE}`,
      incomplete_experiments: `66 and 67 (complete: false) used at weight ${INCOMPLETE_WEIGHT}`,
      objective: `weighted relative errors of whole-run ${Object.entries(FIT_WEIGHTS)
        .map(([k, w]) => `${k}×${w}`)
        .join(', ')}; prior ln(p/p0)/${PRIOR_LOG_SIGMA.toFixed(3)}`,
    },
    coefficients: fit.coefficients,
    stderr: fit.stderr,
    readings: READINGS,
    priors: PRIORS,
    in_sample: fitErrorMedians(full.rows, (s) => s === -1),
    leave_one_out: fitErrorMedians(looRows, (s) => s === -1),
    loo_predictions: looRows.map((r) => ({
      experiment: r.experiment,
      metric: r.metric,
      actual: r.actual,
      simulated: Number(r.simulated.toPrecision(6)),
    })),
    bands: {
      method:
        'split-conformal 80% band of measured ÷ predicted − 1 (order statistics floor(0.1(n+1)) and ceil(0.9(n+1))) over the leave-one-experiment-out predictions of the fit data (13 H100 experiments, whole runs)',
      coverage,
      metrics: bands,
    },
  };
  const file = resolve(
    arg('--out') ?? resolve(import.meta.dirname, '../src/sim/engine/fitted-coefficients.json'),
  );
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  log(`wrote ${file}`);
}
