/**
 * Mooncake's hash_ids replayed as shared tokens: each hash's block is built once, requests with
 * equal leading hashes begin with exactly the same token ids, and on the simulator the
 * prefix-cache hit rate equals the trace's prefix-sharing ratio within 5%.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { seriesSummary } from '../../../src/analysis/series.js';
import { prefixSharing } from '../../../src/analysis/trace-stats.js';
import { memoryIo } from '../../../src/cli/io.js';
import { main } from '../../../src/cli/main.js';
import type { ScrapePoint } from '../../../src/monitor/index.js';
import { tokenizerFor } from '../../../src/tokenizer/index.js';
import { approximateCounter, type TokenCounter, tokenizerCounter } from '../../../src/workload/exact.js';
import { blockTexts } from '../../../src/workload/traces/blocks.js';
import { parseTrace } from '../../../src/workload/traces/index.js';
import '../../helpers/node-warnings.js';

const FIXTURE = join(import.meta.dirname, '..', '..', 'fixtures', 'traces', 'mooncake.jsonl');
const dir = mkdtempSync(join(tmpdir(), 'servelab-mooncake-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A counter that counts its calls, to see each block built once. */
function counting(inner: TokenCounter): TokenCounter & { calls: number } {
  const c = {
    method: inner.method,
    calls: 0,
    count: async (text: string) => {
      c.calls++;
      return inner.count(text);
    },
  };
  return c;
}

describe('Mooncake blocks', () => {
  const entries = [
    { timestamp_ms: 0, input_len: 2 * 64 + 20, output_len: 1, hash_ids: [0, 1, 2] },
    { timestamp_ms: 1, input_len: 2 * 64 + 40, output_len: 1, hash_ids: [0, 1, 3] },
    { timestamp_ms: 2, input_len: 64 + 30, output_len: 1, hash_ids: [0, 4] },
    { timestamp_ms: 3, input_len: 2 * 64 + 20, output_len: 1, hash_ids: [0, 1, 2] },
  ];

  it('shares exactly the blocks of equal leading hashes, as Qwen3 token ids, and each prompt is input_length tokens', async () => {
    const tok = await tokenizerFor('qwen3-8b');
    const { texts, inexact } = await blockTexts(entries, 64, tokenizerCounter(tok), 42);
    assert.equal(inexact, 0);
    const ids = texts.map((s) => tok.encode(s));
    assert.deepEqual(
      ids.map((x) => x.length),
      entries.map((e) => e.input_len),
    );
    const common = (a: number[], b: number[]) => {
      let k = 0;
      while (k < a.length && k < b.length && a[k] === b[k]) k++;
      return k;
    };
    // [0,1,2] vs [0,1,3]: the first two blocks (128 tokens) and no more.
    assert.equal(common(ids[0], ids[1]), 128);
    // [0,1,2] vs [0,4]: one block.
    assert.equal(common(ids[0], ids[2]), 64);
    assert.equal(texts[3], texts[0]);
  });

  it('builds each block once per hash (and length), however many requests carry it', async () => {
    const c = counting(approximateCounter);
    const once = await blockTexts(entries, 64, c, 42);
    // Keys: 0, 1, 2:20, 3:40, 4:30 — five blocks, the repeated request builds none.
    assert.equal(once.blocks, 5);
    const callsForFive = c.calls;
    const c2 = counting(approximateCounter);
    await blockTexts([...entries, ...entries, ...entries], 64, c2, 42);
    assert.equal(c2.calls, callsForFive);
  });
});

/** Plan a Mooncake trace; its prefix-cache hit rate and its intended sharing ratio. */
async function hitRate(file: string): Promise<{ hit: number; intended: number }> {
  const io = memoryIo({}, dir);
  const json = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  assert.equal(await main(['plan', '--no-db', '--trace', file, '--json', json], io), 0, io.err());
  const report = JSON.parse(readFileSync(json, 'utf8')) as { series: ScrapePoint[] };
  const parsed = parseTrace(readFileSync(file, 'utf8'), file);
  const intended = prefixSharing(parsed.entries, 512)?.ratio ?? Number.NaN;
  return { hit: seriesSummary(report.series).prefix_hit_rate ?? Number.NaN, intended };
}

describe('Mooncake on the simulator', () => {
  it("gives a prefix-cache hit rate equal to the fixture's shared fraction, within 5%", async () => {
    const { hit, intended } = await hitRate(FIXTURE);
    assert.ok(intended > 0.3, `the fixture shares a good part of its prompts (${intended})`);
    assert.ok(Math.abs(hit - intended) <= 0.05 * intended, `hit rate ${hit} vs shared fraction ${intended}`);
  });

  it('the same lengths with every hash distinct give no hits', async () => {
    let next = 1_000_000;
    const distinct = readFileSync(FIXTURE, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const v = JSON.parse(l);
        return JSON.stringify({ ...v, hash_ids: v.hash_ids.map(() => next++) });
      })
      .join('\n');
    const file = join(dir, 'distinct.jsonl');
    writeFileSync(file, distinct);
    const { hit, intended } = await hitRate(file);
    assert.equal(intended, 0);
    assert.ok(hit < 0.01, `hit rate ${hit}`);
  });
});
