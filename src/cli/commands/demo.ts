/**
 * @module cli/commands/demo
 * `servelab demo`: start the built-in simulator in this process, run a short closed-loop test
 * and a short Poisson open-loop test against it, print both summaries and write their reports.
 * Needs nothing outside the repo; seconds.
 *
 * The simulator runs in virtual time, as `servelab plan` does (the same engine, client, scraping
 * and verdict; no socket): a first demo must end with numbers that bear weight, and a real-time
 * simulator sharing a busy machine's cores with the load generator falls behind (`sim_behind`,
 * generator lateness) and ends NOT VALID through no fault of the engine. The output says which
 * clock it ran on; `servelab sim` with `servelab run` is the same test over HTTP in real time.
 */
import { join, resolve } from 'node:path';
import { ExitCode, type Problem } from '../../core/errors.js';
import { simEndpoint } from '../../pipeline/endpoint.js';
import { type MeasureInput, measure } from '../../pipeline/measure-settings.js';
import { type CommonSettings, commonSettings, targetSettings } from '../../pipeline/settings.js';
import { formatSummaryTable, formatVerdict } from '../../report/run/summary-table.js';
import { openStore } from '../../store/index.js';
import type { Io } from '../io.js';
import { langOf } from '../options.js';
import { VERSION } from '../version.js';
import {
  checkOutputPaths,
  emitJson,
  humanStream,
  jsonOption,
  measurementExitCode,
  throwIfProblems,
} from './common.js';

export interface RawDemo {
  out?: string;
  json?: string | boolean;
  db?: string | boolean;
  lang?: string;
}

/** The demo's simulated deployment: Llama-3.1-8B in bf16 on one H100, vLLM defaults. */
export const DEMO_SIM = { model: 'llama-3.1-8b', gpu: 'h100' } as const;

function settings(load: Partial<CommonSettings['load']>, out: string): CommonSettings {
  return commonSettings({
    load: { concurrency: null, requests: null, warmup: 2, ...load },
    workload: { inputLen: 'uniform:256-1024', outputLen: 'uniform:64-192' },
    generation: { ignoreEos: true },
    output: { out, formatVllm: true, slo: 'ttft_ms=500,tpot_ms=50' },
  });
}

export async function demoCommand(raw: RawDemo, io: Io): Promise<number> {
  const problems: Problem[] = [];
  const t = langOf(raw.lang, io.env, problems);
  throwIfProblems(problems);
  const json = jsonOption(raw.json);
  const out = humanStream(json, io);
  const outDir = resolve(io.cwd, raw.out ?? 'servelab-out/demo');
  checkOutputPaths(io.cwd, [
    [outDir, '--out', 'dir'],
    [json, '--json'],
  ]);
  const log = (line: string) => io.stderr.write(`${line}\n`);
  const sim = await simEndpoint({ ...DEMO_SIM, timeScale: 1 }, { virtual: true });
  out.write(`${t('run.demo.simulator', { model: DEMO_SIM.model, gpu: DEMO_SIM.gpu })}\n`);
  const store =
    raw.db === false ? null : openStore(resolve(io.cwd, typeof raw.db === 'string' ? raw.db : 'servelab.db'));
  const ctrl = new AbortController();
  const off = io.onInterrupt(() => ctrl.abort(new Error('interrupted')));
  const results: Record<string, unknown> = {};
  const codes: number[] = [];
  try {
    const runs: [string, string, Partial<CommonSettings['load']>][] = [
      ['closed', t('run.demo.closed'), { mode: 'closed', concurrency: 8, requests: 48 }],
      [
        'poisson',
        t('run.demo.poisson'),
        // A seed of its own: the closed run's prompts would find the simulator's cache warm.
        { mode: 'open', rateRps: 6, requests: 36, maxConcurrency: 32, seed: 43 },
      ],
    ];
    for (const [name, title, load] of runs) {
      if (ctrl.signal.aborted) break;
      out.write(`\n== ${title}\n`);
      const input: MeasureInput = {
        target: targetSettings(sim.baseUrl, { timeoutS: 60 }),
        common: settings(load, join(outDir, name)),
        label: `demo ${name}`,
      };
      const m = await measure(input, {
        env: io.env,
        progress: io.stderr,
        signal: ctrl.signal,
        version: VERSION,
        store,
        log,
        monitoring: { scrape: 'auto', scrapeIntervalMs: 500, metricsPort: null },
        endpoint: sim,
        config: { mode: 'demo', clock: 'virtual' },
        t,
      });
      out.write(formatSummaryTable(m.summary, t));
      out.write(formatVerdict(m.validity, t));
      out.write(`${t('run.wrote', { files: m.files.join(', ') })}\n`);
      results[name] = {
        run_id: m.report.run_id ?? null,
        clock: 'virtual',
        out: join(outDir, name),
        summary: m.summary,
        monitoring: m.report.monitoring ?? null,
      };
      codes.push(measurementExitCode(m.summary, m.thresholds, m.result.interrupted));
    }
  } finally {
    off();
    store?.close();
    await sim.close();
  }
  // The JSON file before the closing lines; JSON on stdout after them (see run).
  if (json !== true) await emitJson(json, results, io);
  out.write(
    `\n${t('run.demo.next', { file: join(outDir, 'closed', 'report.json') })}\n` +
      '  servelab plan --model llama-3.1-8b --gpu h100 --concurrency 32 --requests 200 --input-len 512 --output-len 256\n' +
      '  servelab exp init concurrency-sweep > sweep.yaml && servelab exp run sweep.yaml\n',
  );
  if (json === true) await emitJson(json, results, io);
  if (ctrl.signal.aborted) return ExitCode.interrupted;
  return Math.max(...codes.filter((c) => c !== 2), 0);
}
