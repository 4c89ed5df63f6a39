/**
 * @module bench/cold-reset
 * Issue 26 item 6: the real-time simulator keeps its own CPU work out of the latencies it
 * serves. The simulated server (`bench/sim-server-child.ts`, a child process as `servelab sim`
 * runs) gets one long prompt cold, then `POST /reset_prefix_cache`, then the same prompt again:
 * the engine's prefix cache is empty both times, so the modelled TTFT is the same, but the
 * simulator's tokenizer memo already knows the text the second time. Before the fix the first
 * request also paid, in served time, the wall time of tokenising it (0.44× at the issue's
 * measurement). The figure is TTFT(cold after reset) ÷ TTFT(first cold), at `--time-scale` 1
 * and 5; target: within 10% of 1.
 *
 * The reader is node:http, warmed on `GET /v1/models` first so that its own first-request cost
 * does not enter the first TTFT; the server is not warmed beyond what it does at start.
 */
import { Agent, request } from 'node:http';
import { infoRow, logToStderr, type Row, type ScenarioResult, startChild, targetRow } from './lib.js';

export interface ColdResetBenchOptions {
  /** `--time-scale` values to measure. */
  timeScales: number[];
  /** A model with a real tokenizer (the costly one): Qwen3's. */
  model: string;
  gpu: string;
  /** Words in the prompt (~4 tokens each with Qwen3's tokenizer on the text below). */
  promptWords: number;
  /** Cold pairs per time scale (first cold in a fresh server, then cold after reset); the median ratio is shown. */
  pairs: number;
  log?: (line: string) => void;
}

const WORDS = [
  'latency',
  'throughput',
  'Scheduler',
  'prefill',
  '解码',
  'KV-cache',
  'token',
  'batch,',
  '0.75',
  'GPU',
];

/** A prompt no earlier request used: `salt` changes every word's number. */
function promptOf(words: number, salt: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(`${WORDS[i % WORDS.length]}${(i * 7919 + salt * 104729) % 10007}`);
  return out.join(' ');
}

/** TTFT seen by the reader, ms: request sent → first chunk with generated text. */
function ttftMs(agent: Agent, port: number, prompt: string): Promise<number> {
  const body = JSON.stringify({
    messages: [{ role: 'user', content: prompt }],
    max_tokens: 2,
    stream: true,
  });
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first = -1;
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (first < 0 && /"(reasoning_)?content":"[^"]/.test(chunk)) first = performance.now() - t0;
        });
        res.on('end', () =>
          first >= 0 ? resolve(first) : reject(new Error(`no token (HTTP ${res.statusCode})`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function plain(agent: Agent, port: number, method: string, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ agent, host: '127.0.0.1', port, method, path }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end();
  });
}

/** One pair in a fresh server: the first cold TTFT and the cold-after-reset TTFT. */
async function pair(o: ColdResetBenchOptions, timeScale: number, salt: number): Promise<[number, number]> {
  const { child, ready } = await startChild<{ port: number }>(
    './sim-server-child.ts',
    [JSON.stringify({ model: o.model, gpu: o.gpu, timeScale, seed: 1 })],
    'port',
  );
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await plain(agent, ready.port, 'GET', '/v1/models');
    const prompt = promptOf(o.promptWords, salt);
    const first = await ttftMs(agent, ready.port, prompt);
    await plain(agent, ready.port, 'POST', '/reset_prefix_cache');
    const again = await ttftMs(agent, ready.port, prompt);
    return [first, again];
  } finally {
    agent.destroy();
    await child.stop();
  }
}

export async function benchColdReset(o: ColdResetBenchOptions): Promise<ScenarioResult> {
  const log = o.log ?? logToStderr;
  const S = 'cold-reset';
  const rows: Row[] = [];
  const details: Record<string, unknown> = {};
  for (const ts of o.timeScales) {
    const ratios: number[] = [];
    const pairs: [number, number][] = [];
    for (let k = 0; k < o.pairs; k++) {
      const p = await pair(o, ts, k);
      pairs.push(p);
      ratios.push(p[1] / p[0]);
      log(`cold-reset ×${ts}: first ${p[0].toFixed(1)} ms, after reset ${p[1].toFixed(1)} ms`);
    }
    const sorted = [...ratios].sort((a, b) => a - b);
    const ratio = sorted[Math.floor(sorted.length / 2)];
    const c = `${o.model} ${o.gpu} --time-scale ${ts}, ${o.promptWords}-word prompt`;
    rows.push(
      targetRow(
        {
          scenario: S,
          case: c,
          metric: '|TTFT after reset ÷ first cold − 1|',
          value: +Math.abs(ratio - 1).toFixed(3),
          unit: '',
        },
        { max: 0.1 },
      ),
      infoRow({
        scenario: S,
        case: c,
        metric: 'TTFT after reset ÷ first cold',
        value: +ratio.toFixed(3),
        unit: '×',
      }),
    );
    details[`time_scale_${ts}`] = { pairs, ratios };
  }
  return { name: S, rows, details, notes: [] };
}
