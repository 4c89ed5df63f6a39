/**
 * @module bench/index
 * `npm run bench [-- SCENARIO… ] [--json FILE] [--quick] [--repeat K]`: the performance benchmarks of
 * issues 2 and 3. Scenarios: `client` (streaming client vs a naive fetch client), `first-wave`
 * (the first wave's TTFT against a constant-latency server at c = 100, issue 25), `open-loop`
 * (runner lateness at 200 req/s), `sim-real` (simulator emit-time error in real time), `cold-reset` (a cold request after a prefix-cache reset
 * against the first cold one, issue 26 item 6),
 * `sim-virtual` (simulator throughput in virtual time: the engine fast path and the measurement
 * path), `plan` (the wall time of one `servelab plan` command), `plan-fit` (the `servelab plan`
 * command of fit-data experiment 61, issue 26 item 7), `trace` (a 100k-request Azure
 * trace parsed and scheduled: time and peak memory), `fit-replay` (fit-data experiment 61
 * replayed in virtual time, issue 26), `soak` (a 24-hour streamed soak against a resetting port: first
 * request, RSS, SIGINT; issue 28). With no scenario, all run in that order. Figures go to stdout as one table (progress to
 * stderr); `--json FILE` also writes them as JSON. Benchmarks
 * measure and print: a missed target is shown as MISSED and never fails the process.
 * Everything runs on loopback only. See docs/bench.md for how to read each figure.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchClient } from './client.js';
import { benchColdReset } from './cold-reset.js';
import { benchFirstWave } from './first-wave.js';
import { timeReplay } from './fit-data.js';
import { infoRow, medianRows, type Row, renderTable, type ScenarioResult, targetRow } from './lib.js';
import { benchOpenLoop } from './open-loop.js';
import { benchPlan, benchPlanFit } from './plan.js';
import { benchSimReal } from './sim-real.js';
import { benchSoak } from './soak.js';
import { benchTrace } from './trace.js';
import { benchWorkers } from './workers.js';

const SCENARIOS = [
  'client',
  'first-wave',
  'open-loop',
  'sim-real',
  'cold-reset',
  'sim-virtual',
  'plan',
  'plan-fit',
  'workers',
  'trace',
  'fit-replay',
  'soak',
] as const;
type Scenario = (typeof SCENARIOS)[number];

interface Args {
  scenarios: Scenario[];
  json: string | null;
  quick: boolean;
  /** Runs of each scenario; the table shows the median of each figure. */
  repeat: number;
}

function parseArgs(argv: string[]): Args {
  const scenarios: Scenario[] = [];
  let json: string | null = null;
  let quick = false;
  let repeat = 1;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') {
      json = argv[++i] ?? null;
      if (!json) throw new Error('--json needs a file name, e.g. --json bench.json');
    } else if (a === '--repeat') {
      repeat = Number(argv[++i]);
      if (!Number.isInteger(repeat) || repeat < 1 || repeat > 9)
        throw new Error('--repeat needs a whole number from 1 to 9, e.g. --repeat 3');
    } else if (a === '--quick') quick = true;
    else if ((SCENARIOS as readonly string[]).includes(a)) scenarios.push(a as Scenario);
    else
      throw new Error(
        `unknown argument "${a}"; scenarios: ${SCENARIOS.join(', ')}; options: --json FILE, --quick, --repeat K`,
      );
  }
  return { scenarios: scenarios.length ? scenarios : [...SCENARIOS], json, quick, repeat };
}

/**
 * Scenario 4: run bench/sim-virtual.ts in a child and read its JSON line: the engine fast path
 * (`simulateDetailed`) and the measurement path (`measureOn` on the in-process simulator, what
 * `plan` runs) side by side on one workload.
 */
async function benchSimVirtual(quick: boolean): Promise<ScenarioResult> {
  const path = fileURLToPath(new URL('./sim-virtual.ts', import.meta.url));
  const [n, m] = quick ? ['5000', '250'] : ['20000', '1000'];
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', path, n, m], { timeout: 300_000 }, (err, out) =>
      err ? reject(err) : resolve(out),
    ),
  );
  const line = stdout.trim().split('\n').at(-1) ?? '{}';
  type PathFigures = {
    requests: number;
    simulated_requests_per_s: number;
    simulated_requests_per_cpu_s: number;
    mean_tpot_ms: number;
  };
  const r = JSON.parse(line) as PathFigures & {
    measurement_path: PathFigures & { cpu_us_per_chunk: number; fast_path_mean_tpot_ms: number };
  };
  const mp = r.measurement_path;
  const S = 'sim-virtual';
  const shape = 'llama-3.1-8b h100 c64 512/256';
  const cf = `engine fast path ${shape} ×${r.requests}`;
  const cm = `measurement path ${shape} ×${mp.requests}`;
  return {
    name: S,
    rows: [
      targetRow(
        {
          scenario: S,
          case: cf,
          metric: 'simulated req per wall s',
          value: r.simulated_requests_per_s,
          unit: '1/s',
        },
        { min: 20_000 },
      ),
      infoRow({
        scenario: S,
        case: cf,
        metric: 'simulated req per CPU s',
        value: r.simulated_requests_per_cpu_s,
        unit: '1/s',
      }),
      infoRow({ scenario: S, case: cf, metric: 'mean TPOT (simulated)', value: r.mean_tpot_ms, unit: 'ms' }),
      infoRow({
        scenario: S,
        case: cm,
        metric: 'simulated req per wall s',
        value: mp.simulated_requests_per_s,
        unit: '1/s',
      }),
      infoRow({
        scenario: S,
        case: cm,
        metric: 'simulated req per CPU s',
        value: mp.simulated_requests_per_cpu_s,
        unit: '1/s',
      }),
      infoRow({
        scenario: S,
        case: cm,
        metric: 'CPU per token chunk',
        value: mp.cpu_us_per_chunk,
        unit: 'µs',
      }),
      infoRow({ scenario: S, case: cm, metric: 'mean TPOT (simulated)', value: mp.mean_tpot_ms, unit: 'ms' }),
      infoRow({
        scenario: S,
        case: cm,
        metric: 'fast path ÷ measurement path, per CPU s',
        value: +(r.simulated_requests_per_cpu_s / mp.simulated_requests_per_cpu_s).toFixed(1),
        unit: '×',
      }),
    ],
    details: r,
    notes:
      Math.abs(mp.mean_tpot_ms - mp.fast_path_mean_tpot_ms) > 0.01
        ? [
            `sim-virtual: the paths disagree on the same ${mp.requests} requests (mean TPOT ${mp.mean_tpot_ms} vs ${mp.fast_path_mean_tpot_ms} ms)`,
          ]
        : [],
  };
}

async function run(s: Scenario, quick: boolean): Promise<ScenarioResult> {
  switch (s) {
    case 'client':
      return benchClient({
        streamCounts: [100, 1000, 2000],
        intervalMs: 50,
        durationMs: quick ? 2500 : 5000,
        clients: ['servelab', 'fetch'],
      });
    case 'first-wave':
      return benchFirstWave({
        concurrency: 100,
        requests: quick ? 500 : 1000,
        ttftMs: 20,
        rounds: quick ? 1 : 3,
      });
    case 'open-loop':
      return benchOpenLoop({
        rateRps: 200,
        durationS: quick ? 3 : 10,
        arrival: 'poisson',
        chunks: 10,
        intervalMs: 20,
        seed: 1,
      });
    case 'sim-real':
      return benchSimReal({
        streamCounts: [100, 1000, 2000],
        model: 'llama-3.1-8b',
        gpu: 'h100',
        promptWords: 64,
        rampMs: quick ? 1000 : 1500,
        measureMs: quick ? 2000 : 5000,
        // The server's own timing at the engine's pace: with vLLM's default single API server the
        // modelled front-end admits 200 requests/s (2,000 streams need 10 s to reach the engine)
        // and streams ~12.5k chunks/s; 16 admit all of them within the ramp and hold a step's
        // chunks for ≤ 10 ms, so the release path is still exercised (docs/bench.md).
        apiServerCount: 16,
      });
    case 'cold-reset':
      // Issue 26 item 6: a cold request after POST /reset_prefix_cache against the first cold one.
      return benchColdReset({
        timeScales: [1, 5],
        model: 'qwen3-8b',
        gpu: 'h100',
        promptWords: 2000,
        pairs: quick ? 1 : 3,
        realtime: process.env.SL_BENCH_NO_RT !== '1',
      });
    case 'sim-virtual':
      return benchSimVirtual(quick);
    case 'plan':
      return benchPlan({ runs: quick ? 1 : 3 });
    case 'plan-fit':
      // Issue 26 item 7: the `servelab plan` command of fit-data experiment 61 (bench/plan.ts).
      return benchPlanFit({ runs: quick ? 1 : 2 });
    case 'workers':
      return benchWorkers({
        workers: [1, 2, availableParallelism()],
        concurrency: 200,
        requests: quick ? 400 : 1000,
        chunks: 200,
        intervalMs: 10,
      });
    case 'trace':
      return benchTrace({ requests: 100_000 });
    case 'soak':
      return benchSoak({ sendMs: quick ? 3000 : 10_000 });
    case 'fit-replay': {
      // Issue 26 item 7: fit-data experiment 61 replayed in virtual time (bench/fit-data.ts).
      const S = 'fit-replay';
      const r = timeReplay('61');
      if (!r)
        return {
          name: S,
          rows: [],
          details: {},
          notes: ['fit-replay: ../shared/fit-data not found, skipped'],
        };
      const c = `fit-data exp 61 llama-3.1-70b tp4 ×${r.requests}`;
      return {
        name: S,
        rows: [
          targetRow(
            { scenario: S, case: c, metric: 'replay wall time', value: r.wallS, unit: 's' },
            { below: 8 },
          ),
          infoRow({ scenario: S, case: c, metric: 'replay CPU time', value: r.cpuS, unit: 's' }),
        ],
        details: r,
        notes: [],
      };
    }
  }
}

async function main(): Promise<void> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`bench: ${(err as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const machine = {
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    loadavg_1m: loadavg()[0],
  };
  process.stderr.write(
    `bench: ${args.scenarios.join(', ')} on ${machine.cpus}× ${machine.cpu_model}, node ${machine.node}, load ${machine.loadavg_1m.toFixed(2)}\n`,
  );
  const results: ScenarioResult[] = [];
  const rows: Row[] = [];
  const failures: { scenario: string; error: string }[] = [];
  for (const s of args.scenarios) {
    const runs: ScenarioResult[] = [];
    for (let k = 1; k <= args.repeat; k++) {
      process.stderr.write(`bench: ${s}${args.repeat > 1 ? ` (run ${k}/${args.repeat})` : ''}…\n`);
      try {
        runs.push(await run(s, args.quick));
      } catch (err) {
        // One broken scenario must not hide the others' figures.
        const msg = err instanceof Error ? err.message : String(err);
        failures.push({ scenario: s, error: msg });
        process.stderr.write(`bench: ${s} failed: ${msg}\n`);
      }
    }
    results.push(...runs);
    rows.push(...medianRows(runs.map((r) => r.rows)));
  }
  process.stdout.write(`${renderTable(rows)}\n`);
  const notes = [
    ...results.flatMap((r) => r.notes),
    ...failures.map((f) => `${f.scenario}: FAILED to run: ${f.error}`),
  ];
  if (args.repeat > 1)
    notes.unshift(`each value is the median of ${args.repeat} runs (per-run figures in --json)`);
  const busy = rows.filter((r) => r.metric === 'other processes' && r.value !== null && r.value > 0.5);
  if (busy.length)
    notes.push(
      `other processes used > 0.5 core in ${busy.length} measured case(s) (up to ${Math.max(...busy.map((r) => r.value as number)).toFixed(2)} of ${machine.cpus}): latency figures there measure CPU starvation more than our code`,
    );
  const missed = rows.filter((r) => r.pass === false);
  if (missed.length)
    notes.push(`targets missed: ${missed.map((r) => `${r.scenario} ${r.case} ${r.metric}`).join('; ')}`);
  for (const n of new Set(notes)) process.stdout.write(`note: ${n}\n`);
  if (args.json) {
    writeFileSync(
      args.json,
      `${JSON.stringify({ schema: 'servelab-bench/1', machine, quick: args.quick, repeat: args.repeat, rows, results, failures }, null, 2)}\n`,
    );
    process.stderr.write(`bench: wrote ${args.json}\n`);
  }
  if (failures.length) process.exitCode = 1;
}

await main();
// A scenario that failed half-way can leave sockets open; do not hang on them once the table is out.
setTimeout(() => process.exit(), 2_000).unref();
