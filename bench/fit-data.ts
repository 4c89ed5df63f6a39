/**
 * The simulator on the public experiments of `../shared/fit-data/` (issue 26): every experiment
 * replayed in virtual time (`sim/fidelity/fit-data`), simulated vs measured per stage and for
 * the whole run, then the medians of |error|. Skips with a note when the folder is absent.
 * `node --import tsx bench/fit-data.ts [--only ID,ID] [--seed N]`; also run by `npm run fidelity`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  compareReplay,
  type FitComparison,
  type FitExperiment,
  fitErrorMedians,
  parseActualCsv,
  replayExperiment,
  replayExperimentDetailed,
} from '../src/sim/fidelity/fit-data.js';

export const FIT_DATA_DIR = resolve(import.meta.dirname, '../../shared/fit-data');

/** The fit data's experiments, or null when the folder is absent. */
function loadExperiments(dir: string): FitExperiment[] | null {
  if (!existsSync(resolve(dir, 'experiments.json'))) return null;
  return (
    JSON.parse(readFileSync(resolve(dir, 'experiments.json'), 'utf8')) as { experiments: FitExperiment[] }
  ).experiments;
}

/**
 * `npm run bench fit-replay`: wall and CPU seconds of one experiment's replay in virtual time
 * (issue 26 item 7 names experiment 61: Llama-3.1-70B TP4, 9,000 requests in two stages), or
 * null when the fit data is absent.
 */
export function timeReplay(expId: string): { wallS: number; cpuS: number; requests: number } | null {
  const x = loadExperiments(process.env.SERVELAB_FIT_DATA ?? FIT_DATA_DIR)?.find((e) => e.exp_id === expId);
  if (!x) return null;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  replayExperiment(x, 1);
  const cpu = process.cpuUsage(c0);
  return {
    wallS: (performance.now() - t0) / 1000,
    cpuS: (cpu.user + cpu.system) / 1e6,
    requests: x.stages.reduce((n, s) => n + s.num_requests, 0),
  };
}

/** Replay and print; returns the rows, or null when the fit data is absent. */
export function runFitData(opts: { only?: string[]; seed?: number } = {}): FitComparison[] | null {
  const dir = process.env.SERVELAB_FIT_DATA ?? FIT_DATA_DIR;
  if (!existsSync(resolve(dir, 'experiments.json'))) {
    console.log(`fit data: ${dir} not found, skipped (see issue 26)`);
    return null;
  }
  const exps = (
    JSON.parse(readFileSync(resolve(dir, 'experiments.json'), 'utf8')) as { experiments: FitExperiment[] }
  ).experiments;
  const actual = parseActualCsv(readFileSync(resolve(dir, 'actual.csv'), 'utf8'));
  const pad = (s: string, n: number) => s.padEnd(n);
  const f = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
  const rows: FitComparison[] = [];
  console.log(`fit data (${dir}): simulated vs measured, ms; error = (sim − actual) / actual`);
  for (const x of exps) {
    if (opts.only && !opts.only.includes(x.exp_id)) continue;
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const rep = replayExperimentDetailed(x, { seed: opts.seed ?? 1 });
    const cpu = process.cpuUsage(c0);
    const wallS = (performance.now() - t0) / 1000;
    const mine = compareReplay(x, rep.metrics, actual);
    rows.push(...mine);
    const hit = rep.prefixHitRate === null ? 'n/a' : `${(rep.prefixHitRate * 100).toFixed(0)}%`;
    console.log(
      `\n${x.experiment}${x.complete ? '' : ' (complete: false)'}  [replay ${wallS.toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU; prefix-cache hit rate ${hit}]`,
    );
    for (const stage of [...new Set(mine.map((r) => r.stage))]) {
      const cells = mine
        .filter((r) => r.stage === stage)
        .map(
          (r) =>
            `${r.metric} ${f(r.simulated)}/${f(r.actual)} ${r.errorPct >= 0 ? '+' : ''}${r.errorPct.toFixed(0)}%`,
        );
      console.log(`  ${pad(stage === -1 ? 'all' : `stage ${stage}`, 9)}${cells.join('  ')}`);
    }
  }
  const show = (label: string, m: ReturnType<typeof fitErrorMedians>) =>
    console.log(
      `${pad(label, 26)}median |error|: E2E (mean,p90,p99) ${m.e2e?.toFixed(1)}%, TTFT (mean,p90,p99) ${m.ttft?.toFixed(1)}%, ITL mean ${m.itl?.toFixed(1)}%`,
    );
  console.log('');
  show(
    'fit data, whole runs:',
    fitErrorMedians(rows, (s) => s === -1),
  );
  show(
    'fit data, per stage:',
    fitErrorMedians(rows, (s) => s >= 0),
  );
  return rows;
}

if (import.meta.filename === process.argv[1] || process.argv[1]?.endsWith('bench/fit-data.ts')) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  runFitData({ only: arg('--only')?.split(','), seed: arg('--seed') ? Number(arg('--seed')) : undefined });
}
