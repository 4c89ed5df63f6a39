/**
 * @module bench/plan
 * Scenario 5: the wall time of one `servelab plan` command, Node start-up included: 1,000
 * requests, Llama-3.1-8B on an H100, closed loop at concurrency 64, synthetic 512-token prompts
 * and 256 output tokens. Target: under 2 s on an idle machine. Scenario `plan-fit` times the
 * `plan` command of fit-data experiment 61 the same way (issue 26 item 7). The command runs in a fresh
 * process (`bench/plan-cli.mjs`), from `dist/` when it is built and newer than every source
 * file, else from the TypeScript sources under tsx (which adds ~0.5–1 s of compiling; the case
 * name says which). One unreported run first warms the disk cache; then `runs` timed runs, and
 * the table shows the fastest (the least disturbed by other processes) and the CPU time.
 */
import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RealClock } from '../src/runtime/clock.js';
import { infoRow, logToStderr, type ScenarioResult, targetRow } from './lib.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const PLAN_ARGS = [
  'plan',
  '--model',
  'llama-3.1-8b',
  '--gpu',
  'h100',
  '--no-db',
  '--requests',
  '1000',
  '--concurrency',
  '64',
  '--input-len',
  '512',
  '--output-len',
  '256',
];

/**
 * `servelab plan` on fit-data experiment 61 (`../shared/fit-data/experiments.json`, exp_id 61:
 * Llama-3.1-70B-Instruct, TP 4, H100, vLLM `max_num_batched_tokens` 2048, `max_num_seqs` 128,
 * `max_model_len` 4096; inference-perf's constant load 5 req/s × 600 s then 10 req/s × 600 s,
 * the next stage 1 s after the previous one drains; its `shared_prefix` data as that commit sent
 * it: 10 groups × 10 prompts of 100 + 466 tokens, 247 output tokens with ignore_eos, streamed
 * completions), written as a user types it. Issue 26 item 7: under 8 s of wall time.
 */
export const PLAN_FIT_ARGS = [
  'plan',
  '--model',
  'llama-3.1-70b',
  '--gpu',
  'h100',
  '--tp',
  '4',
  '--max-num-batched-tokens',
  '2048',
  '--max-num-seqs',
  '128',
  '--max-model-len',
  '4096',
  '--endpoint',
  'completions',
  '--stages',
  '5x600,10x600',
  '--stage-pause',
  '1',
  '--arrival',
  'poisson',
  '--shared-prefix-len',
  '100',
  '--num-prefix-groups',
  '10',
  '--prompts-per-group',
  '10',
  '--input-len',
  '566',
  '--output-len',
  '247',
  '--ignore-eos',
  '--seed',
  '1',
  '--no-db',
];

/** Newest modification time under `dir` (ms). */
function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Whether dist/ holds a build at least as new as src/. */
function distFresh(): boolean {
  try {
    return statSync(join(ROOT, 'dist/cli/main.js')).mtimeMs >= newest(join(ROOT, 'src'));
  } catch {
    return false;
  }
}

interface PlanRun {
  wall_ms: number;
  cpu_ms: number | null;
}

function runOnce(useDist: boolean, planArgs: string[] = PLAN_ARGS): Promise<PlanRun> {
  const clock = new RealClock();
  const script = join(ROOT, 'bench/plan-cli.mjs');
  const args = useDist ? [script, ...planArgs] : ['--import', 'tsx', script, ...planArgs];
  const env = useDist ? process.env : { ...process.env, SERVELAB_BENCH_SRC: '1' };
  const t0 = clock.now();
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { cwd: ROOT, env, timeout: 600_000 }, (err, _out, stderr) => {
      const wall = clock.now() - t0;
      if (err) return reject(new Error(`plan failed: ${err.message}\n${stderr.slice(-500)}`));
      const m = /bench-cpu-ms ([\d.]+)\s*$/.exec(stderr);
      resolve({ wall_ms: wall, cpu_ms: m ? Number(m[1]) : null });
    }),
  );
}

export async function benchPlan(o: { runs: number; log?: (line: string) => void }): Promise<ScenarioResult> {
  const useDist = distFresh();
  await runOnce(useDist);
  const runs: PlanRun[] = [];
  for (let i = 0; i < o.runs; i++) runs.push(await runOnce(useDist));
  const best = runs.reduce((a, b) => (b.wall_ms < a.wall_ms ? b : a));
  (o.log ?? logToStderr)(`  plan: ${runs.map((r) => Math.round(r.wall_ms)).join(', ')} ms wall`);
  const S = 'plan';
  const c = `servelab plan (${useDist ? 'dist' : 'tsx: dist missing or stale'}) llama-3.1-8b h100 c64 512/256 ×1000`;
  return {
    name: S,
    rows: [
      targetRow(
        { scenario: S, case: c, metric: 'wall time (fastest run)', value: best.wall_ms / 1000, unit: 's' },
        { below: 2 },
      ),
      infoRow({ scenario: S, case: c, metric: 'CPU time (same run)', value: best.cpu_ms, unit: 'ms' }),
    ],
    details: { args: PLAN_ARGS, dist: useDist, runs },
    notes: useDist
      ? []
      : ['plan: ran from the sources under tsx; `npm run build` first for the real start-up'],
  };
}

/**
 * Scenario `plan-fit`: {@link PLAN_FIT_ARGS} in a fresh process, `runs` times (no warm-up run:
 * one takes seconds, and the disk cache is warm after the first); the fastest run and its CPU.
 */
export async function benchPlanFit(o: {
  runs: number;
  log?: (line: string) => void;
}): Promise<ScenarioResult> {
  const useDist = distFresh();
  const runs: PlanRun[] = [];
  for (let i = 0; i < o.runs; i++) runs.push(await runOnce(useDist, PLAN_FIT_ARGS));
  const best = runs.reduce((a, b) => (b.wall_ms < a.wall_ms ? b : a));
  (o.log ?? logToStderr)(`  plan-fit: ${runs.map((r) => Math.round(r.wall_ms)).join(', ')} ms wall`);
  const S = 'plan-fit';
  const c = `servelab plan (${useDist ? 'dist' : 'tsx: dist missing or stale'}) fit-data exp 61 llama-3.1-70b tp4 5x600,10x600 ×9000`;
  return {
    name: S,
    rows: [
      targetRow(
        { scenario: S, case: c, metric: 'wall time (fastest run)', value: best.wall_ms / 1000, unit: 's' },
        { below: 8 },
      ),
      infoRow({
        scenario: S,
        case: c,
        metric: 'CPU time (same run)',
        value: best.cpu_ms === null ? null : best.cpu_ms / 1000,
        unit: 's',
      }),
    ],
    details: { args: PLAN_FIT_ARGS, dist: useDist, runs },
    notes: useDist
      ? []
      : ['plan-fit: ran from the sources under tsx; `npm run build` first for the real start-up'],
  };
}
