/**
 * @module scripts/make-trace-fixtures
 * Writes the small synthetic trace fixtures under test/fixtures/traces/, one per format servelab
 * reads, and documents each format from its public README. Nothing here comes from a real
 * trace: lengths and times are drawn from a fixed seed, so rerunning the script rewrites the
 * same bytes. Users supply the real files (see docs/traces.md for where they are published).
 *
 *   node --import tsx scripts/make-trace-fixtures.ts            # rewrite the fixtures
 *   node --import tsx scripts/make-trace-fixtures.ts --azure-requests 36000 --rate 10 --out big.csv
 *                                                               # a larger synthetic Azure trace
 *
 * The formats:
 * - **azure** (Azure/AzurePublicDataset: AzureLLMInferenceDataset2023.md, ...2024.md): CSV,
 *   header `TIMESTAMP,ContextTokens,GeneratedTokens`; TIMESTAMP is the invocation time as a
 *   datetime with seven fractional digits (`2023-11-16 18:15:46.6805900`), ContextTokens the
 *   prompt's tokens, GeneratedTokens the output's.
 * - **burstgpt** (HPMLL/BurstGPT: README.md): CSV, header
 *   `Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type`; Timestamp in seconds
 *   from the start of the collection, Model `ChatGPT` or `GPT-4`, Log Type `Conversation log` or
 *   `API log`. The files "with some failure" have rows whose Response tokens are 0; the fixture
 *   has two such rows, which servelab skips and counts.
 * - **mooncake** (kvcache-ai/Mooncake: FAST25-release/README.md, FAST25-release/traces/): JSONL,
 *   `{"timestamp": MS, "input_length": N, "output_length": N, "hash_ids": [...]}`, timestamp in
 *   ms since the first request, one hash per 512-token block, chained, so equal leading
 *   hash_ids mean an equal prefix. The fixture's requests share a common first block (as every
 *   request of the published conversation trace shares hash 0) and one of four "documents"
 *   of 1–3 blocks, then end in blocks of their own.
 * - **servelab** (docs/traces.md): JSONL, `{"timestamp_ms", "input_len" | "prompt" | "messages",
 *   "output_len"}`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng } from '../src/runtime/rng.js';

const DIR = join(import.meta.dirname, '..', 'test', 'fixtures', 'traces');
const SEED = 15;

/** `2023-11-16 18:15:46.6805900` for ms since the epoch (UTC), with seven fractional digits as Azure writes them. */
export function azureDatetime(ms: number): string {
  const d = new Date(Math.floor(ms));
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const frac = Math.round((ms / 1000 - Math.floor(ms / 1000)) * 1e7);
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(Math.min(frac, 9_999_999), 7)}`;
}

/**
 * A synthetic Azure-format trace: Poisson arrivals at `rateRps` from 2023-11-16 18:15:46 UTC,
 * context tokens log-uniform in 64–4096 and generated tokens in 8–512.
 */
export function syntheticAzureCsv(requests: number, rateRps: number, seed = SEED): string {
  const rng = new Rng(seed);
  const start = Date.UTC(2023, 10, 16, 18, 15, 46);
  const lines = ['TIMESTAMP,ContextTokens,GeneratedTokens'];
  let t = start;
  for (let i = 0; i < requests; i++) {
    const input = Math.round(64 * 64 ** rng.next());
    const output = Math.round(8 * 64 ** rng.next());
    lines.push(`${azureDatetime(t)},${input},${output}`);
    t += rng.exponential(1000 / rateRps);
  }
  return `${lines.join('\n')}\n`;
}

function burstGptCsv(): string {
  const rng = new Rng(SEED + 1);
  const lines = ['Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type'];
  let t = 5;
  for (let i = 0; i < 24; i++) {
    const model = rng.next() < 0.7 ? 'ChatGPT' : 'GPT-4';
    const log = rng.next() < 0.8 ? 'Conversation log' : 'API log';
    const req = 20 + rng.int(0, 700);
    // Rows 6 and 17 failed in the "original": 0 response tokens, as in BurstGPT_1.csv.
    const res = i === 6 || i === 17 ? 0 : 10 + rng.int(0, 300);
    lines.push(`${t},${model},${req},${res},${req + res},${log}`);
    t += rng.int(0, 4);
  }
  return `${lines.join('\n')}\n`;
}

/** Block size of the Mooncake fixture: the published traces' 512. */
const MOONCAKE_BLOCK = 512;

function mooncakeJsonl(): string {
  const rng = new Rng(SEED + 2);
  // Hash 0: the block every request starts with; documents 1–4 are chains of 1–3 blocks.
  let next = 1;
  const docs = [1, 2, 3, 2].map((n) => Array.from({ length: n }, () => next++));
  const lines: string[] = [];
  let ts = 0;
  for (let i = 0; i < 24; i++) {
    const doc = docs[rng.int(0, docs.length - 1)];
    const own = 1 + rng.int(0, 1);
    const ids = [0, ...doc, ...Array.from({ length: own }, () => next++)];
    const last = 64 + rng.int(0, MOONCAKE_BLOCK - 64);
    const input = (ids.length - 1) * MOONCAKE_BLOCK + last;
    const output = 16 + rng.int(0, 48);
    lines.push(JSON.stringify({ timestamp: ts, input_length: input, output_length: output, hash_ids: ids }));
    // Requests 3 s apart, so each one's prefix is in the cache when the next arrives.
    ts += 3000;
  }
  return `${lines.join('\n')}\n`;
}

function servelabJsonl(): string {
  const rng = new Rng(SEED + 3);
  const lines: string[] = [];
  let ts = 0;
  for (let i = 0; i < 12; i++) {
    const line =
      i === 4
        ? { timestamp_ms: ts, prompt: 'Summarise the design review in three sentences.', output_len: 48 }
        : { timestamp_ms: ts, input_len: 32 + rng.int(0, 480), output_len: 8 + rng.int(0, 120) };
    lines.push(JSON.stringify(line));
    ts += rng.int(0, 2500);
  }
  return `${lines.join('\n')}\n`;
}

function main(argv: string[]): void {
  const at = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const big = at('--azure-requests');
  if (big !== undefined) {
    const out = at('--out');
    const rate = Number(at('--rate') ?? '10');
    if (!out || !(Number(big) >= 1) || !(rate > 0))
      throw new Error('usage: --azure-requests N [--rate R] --out FILE');
    writeFileSync(out, syntheticAzureCsv(Number(big), rate));
    console.log(`wrote ${out}`);
    return;
  }
  // Azure: 30 requests at ~0.5 req/s (about a minute).
  const files: [string, string][] = [
    ['azure.csv', syntheticAzureCsv(30, 0.5)],
    ['burstgpt.csv', burstGptCsv()],
    ['mooncake.jsonl', mooncakeJsonl()],
    ['servelab.jsonl', servelabJsonl()],
  ];
  for (const [name, text] of files) {
    writeFileSync(join(DIR, name), text);
    console.log(`wrote ${join(DIR, name)}`);
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) main(process.argv.slice(2));
