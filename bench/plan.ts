/**
 * @module bench/plan
 * Scenario 5: the wall time of one `servelab plan` command, Node start-up included: 1,000
 * requests, Llama-3.1-8B on an H100, closed loop at concurrency 64, synthetic 512-token prompts
 * and 256 output tokens. Target: under 2 s on an idle machine. The command runs in a fresh
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

function runOnce(useDist: boolean): Promise<PlanRun> {
  const clock = new RealClock();
  const script = join(ROOT, 'bench/plan-cli.mjs');
  const args = useDist ? [script, ...PLAN_ARGS] : ['--import', 'tsx', script, ...PLAN_ARGS];
  const env = useDist ? process.env : { ...process.env, SERVELAB_BENCH_SRC: '1' };
  const t0 = clock.now();
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { cwd: ROOT, env, timeout: 120_000 }, (err, _out, stderr) => {
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
