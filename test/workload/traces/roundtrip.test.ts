/**
 * Each trace fixture round-trips through `servelab plan` (the whole measurement path on the
 * in-process simulator): fixture → schedule → records whose planned send times are the
 * fixture's timestamps (relative to the first, divided by speedup × rate scale) and whose
 * lengths are the fixture's. The fixtures are read here independently of the parsers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../../src/cli/io.js';
import { main } from '../../../src/cli/main.js';
import '../../helpers/node-warnings.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'traces');
const dir = mkdtempSync(join(tmpdir(), 'servelab-traces-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** One fixture row as its README describes it: time in ms on the trace's clock, lengths in tokens. */
interface Row {
  ms: number;
  input: number | null;
  output: number;
}

const lines = (file: string) =>
  readFileSync(join(FIXTURES, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');

/** The fixtures read by hand: Azure datetimes (ms precision is enough here), BurstGPT seconds, Mooncake and servelab ms. */
const EXPECTED: Record<string, () => Row[]> = {
  'azure.csv': () =>
    lines('azure.csv')
      .slice(1)
      .map((l) => {
        const [ts, ctx, gen] = l.split(',');
        return {
          ms: Date.parse(`${ts.replace(' ', 'T').slice(0, 23)}Z`),
          input: Number(ctx),
          output: Number(gen),
        };
      }),
  'burstgpt.csv': () =>
    lines('burstgpt.csv')
      .slice(1)
      .map((l) => l.split(','))
      .filter((c) => Number(c[3]) > 0)
      .map((c) => ({ ms: Number(c[0]) * 1000, input: Number(c[2]), output: Number(c[3]) })),
  'mooncake.jsonl': () =>
    lines('mooncake.jsonl').map((l) => {
      const v = JSON.parse(l);
      return { ms: v.timestamp, input: v.input_length, output: v.output_length };
    }),
  'servelab.jsonl': () =>
    lines('servelab.jsonl').map((l) => {
      const v = JSON.parse(l);
      return { ms: v.timestamp_ms, input: v.input_len ?? null, output: v.output_len };
    }),
};

interface Rec {
  index: number;
  planned_at_ms: number;
  input_len: number | null;
  output_len: number | null;
  phase: string;
}

async function plan(
  file: string,
  extra: string[] = [],
): Promise<{ records: Rec[]; report: unknown; err: string }> {
  const out = join(dir, `${file}-${extra.join('_')}`);
  const io = memoryIo({}, dir);
  const code = await main(['plan', '--no-db', '--trace', join(FIXTURES, file), '--out', out, ...extra], io);
  assert.equal(code, 0, io.err());
  const records = readFileSync(join(out, 'requests.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec)
    .sort((a, b) => a.index - b.index);
  return { records, report: JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')), err: io.out() };
}

describe('trace round trip through plan', () => {
  for (const file of Object.keys(EXPECTED))
    it(`${file}: records carry the fixture's timestamps and lengths`, async () => {
      const want = EXPECTED[file]();
      const { records } = await plan(file);
      assert.equal(records.length, want.length);
      const t0 = want[0].ms;
      records.forEach((r, i) => {
        assert.equal(r.index, i);
        assert.ok(
          Math.abs(r.planned_at_ms - (want[i].ms - t0)) < 1,
          `request ${i}: ${r.planned_at_ms} vs ${want[i].ms - t0}`,
        );
        assert.equal(r.input_len, want[i].input, `request ${i} input`);
        assert.equal(r.output_len, want[i].output, `request ${i} output`);
      });
    });

  it('a window, a speedup and a rate scale: the window start is time 0, gaps ÷ speedup × scale', async () => {
    const want = EXPECTED['burstgpt.csv']();
    const t0 = want[0].ms;
    const inWindow = want.filter((w) => w.ms - t0 >= 10_000 && w.ms - t0 < 30_000);
    assert.ok(inWindow.length >= 5, 'the fixture has requests in the window');
    const { records, report } = await plan('burstgpt.csv', [
      '--trace-window',
      '10:30',
      '--trace-speedup',
      '2',
      '--trace-rate-scale',
      '2.5',
    ]);
    assert.equal(records.length, inWindow.length);
    records.forEach((r, i) => {
      assert.ok(Math.abs(r.planned_at_ms - (inWindow[i].ms - t0 - 10_000) / 5) < 1e-6);
      assert.equal(r.input_len, inWindow[i].input);
    });
    const trace = (report as { config: { workload: { trace: Record<string, unknown> } } }).config.workload
      .trace;
    assert.equal(trace.format, 'burstgpt');
    assert.deepEqual(trace.skipped, [{ reason: 'trace.skip.burstgpt_failed', count: 2, lines: [8, 19] }]);
    const notes = (report as { config: { workload: { notes: string[] } } }).config.workload.notes;
    assert.ok(
      notes.some((n) => /2 BurstGPT row\(s\) with 0 response tokens .* lines 8, 19/.test(n)),
      notes.join('\n'),
    );
  });
});
