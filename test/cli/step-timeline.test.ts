/**
 * The step timeline through the CLI, as a user runs it (issue 27, "Done when"): `plan
 * --record-steps` on a mixed-input workload (short and long prompts, chunked prefill) keeps the
 * steps (store and --out steps.jsonl); `report --html` draws the step timeline with the stall's
 * cause; `report --trace-events` and `runs export --format chrome-trace` write a trace that passes
 * the Trace Event Format schema committed in docs/ (ph, ts and dur in µs, pid, tid, name, args),
 * and each step's `dur` equals the simulator's own time for that step, read independently from
 * the engine's per-token times (`timings.token_ms`, `token_steps`) of the requests it decoded.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { RunStepRecord } from '../../src/record/engine-step.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-step-trace-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const schema = JSON.parse(
  readFileSync(new URL('../../docs/trace-event-format.schema.json', import.meta.url), 'utf8'),
) as object;

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args: Record<string, unknown>;
}

async function cli(args: string[]): Promise<ReturnType<typeof memoryIo>> {
  const io = memoryIo({}, dir);
  const code = await main(args, io);
  assert.equal(code, 0, `${args.join(' ')}: ${io.out()}\n${io.err()}`);
  return io;
}

describe('step timeline: plan --record-steps → report / export', () => {
  const db = join(dir, 's.db');
  const out = join(dir, 'out');
  let runId = '';

  it('plan keeps the steps in the store and in steps.jsonl; without the flag there are none', async () => {
    await cli([
      'plan',
      '--model',
      'qwen3-0.6b',
      '--record-steps',
      '--input-len',
      'uniform:64-6000',
      '--output-len',
      '48',
      '--concurrency',
      '6',
      '--requests',
      '24',
      '--max-num-batched-tokens',
      '2048',
      '--max-num-seqs',
      '64',
      '--db',
      db,
      '--out',
      out,
    ]);
    const lines = readFileSync(join(out, 'steps.jsonl'), 'utf8').trim().split('\n');
    const steps = lines.map((l) => JSON.parse(l) as RunStepRecord);
    assert.ok(steps.length > 24);
    assert.ok(
      steps.some((s) => s.prefill.length > 0 && s.decode.length > 0),
      'prefill chunks share steps with decodes',
    );
    const list = await cli(['runs', 'list', '--db', db, '--json']);
    runId = (JSON.parse(list.out()) as { id: string }[])[0].id;
    const off = join(dir, 'off');
    await cli(['plan', '--model', 'qwen3-0.6b', '--requests', '4', '--no-db', '--out', off]);
    assert.throws(() => readFileSync(join(off, 'steps.jsonl')));
  });

  it('report --html draws the step timeline and names the prefill chunk behind the worst stall', async () => {
    await cli(['report', runId, '--db', db, '--html', 'r.html']);
    const html = readFileSync(join(dir, 'r.html'), 'utf8');
    assert.match(html, /Engine steps while \S+ streamed/);
    assert.match(
      html,
      /class="step-causes"><li>Request \S+ waited [\d.]+ ms for token \d+: step \d+ took [\d.]+ ms because it also prefilled \d+ prompt tokens of \S+\./,
    );
    await cli(['report', out, '--html', 'zh.html', '--lang', 'zh-CN', '--request', '0-1']);
    const zh = readFileSync(join(dir, 'zh.html'), 'utf8');
    assert.match(zh, /0-1 流式输出期间的引擎步/);
    const bad = memoryIo({}, dir);
    assert.notEqual(await main(['report', out, '--request', 'nope'], bad), 0);
    assert.match(bad.err(), /--request: no request nope/);
  });

  it('the exported trace passes the Trace Event Format schema; each step lasts the simulator step time', async () => {
    await cli(['report', runId, '--db', db, '--trace-events', 'trace.json']);
    await cli(['runs', 'export', runId, '--db', db, '--format', 'chrome-trace', '--out', 'export.json']);
    const text = readFileSync(join(dir, 'trace.json'), 'utf8');
    assert.equal(readFileSync(join(dir, 'export.json'), 'utf8'), text);
    const trace = JSON.parse(text) as { traceEvents: TraceEvent[] };
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    assert.ok(validate(trace), JSON.stringify(validate.errors?.slice(0, 3)));
    // The schema is not a formality: a trace in ms rather than µs, or a step without dur, fails it.
    assert.equal(validate({ traceEvents: [{ name: 'x', ph: 'X', ts: 0, pid: 1, tid: 1, args: {} }] }), false);

    const stepEvents = new Map<number, TraceEvent>();
    for (const e of trace.traceEvents)
      if (e.ph === 'X' && e.tid === 1) stepEvents.set(e.args.step as number, e);
    const steps = readFileSync(join(out, 'steps.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RunStepRecord);
    assert.equal(stepEvents.size, steps.length);
    // The engine's own account: a request's consecutive tokens from consecutive steps are
    // one step time apart (engine ms), so that step's dur (µs) must be that difference × 1000.
    const records = readFileSync(join(out, 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { timings: { token_ms: number[]; token_steps: number[] } | null });
    let checked = 0;
    for (const r of records) {
      const tm = r.timings;
      if (!tm) continue;
      for (let i = 1; i < tm.token_steps.length; i++) {
        if (tm.token_steps[i] !== tm.token_steps[i - 1] + 1) continue;
        const e = stepEvents.get(tm.token_steps[i]);
        assert.ok(e?.dur !== undefined, `step ${tm.token_steps[i]} in the trace`);
        assert.ok(
          Math.abs(e.dur - (tm.token_ms[i] - tm.token_ms[i - 1]) * 1000) < 0.01,
          `step ${tm.token_steps[i]}: ${e.dur} µs`,
        );
        checked++;
      }
    }
    assert.ok(checked > 500, `${checked} steps checked against the engine's token times`);
    // ts is µs on the run's clock, in step order.
    const ts = steps.map((s) => stepEvents.get(s.step)?.ts as number);
    for (let i = 1; i < ts.length; i++) assert.ok(ts[i] >= ts[i - 1]);
    assert.ok(Math.abs(ts[0] - steps[0].t_ms * 1000) < 0.01);
  });
});
