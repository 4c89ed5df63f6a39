/**
 * The record writer: one JSON line per record, on disk as each request ends, also when the
 * run is interrupted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openRecordWriter } from '../../src/record/writer.js';
import { runLoad } from '../../src/runner/loops.js';
import { VirtualClock } from '../../src/runtime/clock.js';
import { drive, VirtualTarget } from './virtual-target.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-writer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const specs = [{ index: 0, prompt: 'hi', input_len: 4, output_len: 8 }];
const health = () => ({
  stop: () => ({ event_loop_delay_ms: { mean: null, p50: null, p99: null, max: null }, cpu_percent: null }),
});

function lines(path: string): Record<string, unknown>[] {
  const text = readFileSync(path, 'utf8');
  assert.ok(text === '' || text.endsWith('\n'), 'every line is complete');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

test('each record is on disk as soon as its request ends', async () => {
  const path = join(dir, 'live', 'requests.jsonl');
  const writer = openRecordWriter(path);
  const clock = new VirtualClock();
  const onDisk: number[] = [];
  // A second observer reads the file right after the writer's hook ran for each record.
  const reader = { onRecord: () => onDisk.push(lines(path).length) };
  const target = new VirtualTarget(clock, () => ({ kind: 'ok', latencyMs: 10 }));
  const res = await drive(
    clock,
    runLoad(
      { load: { kind: 'closed', concurrency: 1, requests: 3 }, specs },
      { target, clock, observers: [writer, reader], health },
    ),
  );
  await writer.close();
  assert.deepEqual(onDisk, [1, 2, 3]);
  assert.equal(writer.written, 3);
  assert.deepEqual(
    lines(path).map((l) => l.id),
    res.records.map((r) => r.id),
  );
});

test('an interrupted run leaves one line per planned request', async () => {
  const path = join(dir, 'int', 'requests.jsonl');
  const writer = openRecordWriter(path);
  const clock = new VirtualClock();
  const ac = new AbortController();
  clock.setTimer(() => ac.abort(), 25);
  const target = new VirtualTarget(clock, () => ({ kind: 'ok', latencyMs: 10 }));
  const res = await drive(
    clock,
    runLoad(
      { load: { kind: 'open', arrivalsMs: [0, 10, 20, 30, 40, 50], maxConcurrency: 1 }, specs, warmup: 2 },
      { target, clock, observers: [writer], signal: ac.signal, health },
    ),
  );
  await writer.close();
  const got = lines(path);
  assert.equal(got.length, 8);
  assert.equal(got.length, res.records.length);
  // Warm-up ends at 20; the request planned at 20 is in flight at the interruption (25), the
  // five planned at 30…70 were never sent.
  assert.equal(got.filter((l) => l.outcome === 'cancelled' && l.sent_at_ms === null).length, 5);
  assert.equal(got.filter((l) => l.outcome === 'cancelled' && l.sent_at_ms === 20).length, 1);
  assert.deepEqual(got, JSON.parse(JSON.stringify(res.records)));
});

test('close is idempotent and writing after close fails loudly', async () => {
  const writer = openRecordWriter(join(dir, 'closed.jsonl'));
  await writer.close();
  await writer.close();
  assert.throws(() => writer.write({} as never), /closed/);
});
