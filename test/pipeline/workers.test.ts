/**
 * `pipeline/workers`: the `run --workers` handshake against injected worker processes (the CLI
 * starts real ones; test/cli/workers.test.ts runs those end to end). Every worker is held until
 * all are ready, then all get one common start; a worker that ends before it is ready stops the
 * others; a worker's failing exit fails the run with its stderr; a worker takes its start from
 * the channel to its parent.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { translator } from '../../src/i18n/index.js';
import {
  type ParentChannel,
  READY_ENV,
  runWorkers,
  startFromParent,
  type WorkerProcess,
  type WorkerShard,
} from '../../src/pipeline/workers.js';

const t = translator('en');

/** A worker process that says it is ready (or ends first), and ends once it gets its start or is killed. */
class FakeWorker extends EventEmitter {
  stderr = new EventEmitter();
  connected = true;
  sent: unknown[] = [];
  killed: string[] = [];
  private ended = false;
  private readonly onStart: number;
  constructor(
    readonly shard: WorkerShard,
    readonly env: Record<string, string | undefined>,
    behaviour: { ready: boolean; exitBeforeReady?: number; onStart?: number },
  ) {
    super();
    this.onStart = behaviour.onStart ?? 1;
    setImmediate(() => {
      if (behaviour.ready) this.emit('message', { ready: true });
      else this.end(behaviour.exitBeforeReady ?? 1, 'bad flag');
    });
  }
  send(m: unknown) {
    this.sent.push(m);
    setImmediate(() => this.end(this.onStart, `worker ${this.shard.index} failed`));
    return true;
  }
  kill(sig: string) {
    this.killed.push(sig);
    setImmediate(() => this.end(130, ''));
    return true;
  }
  disconnect() {
    this.connected = false;
  }
  end(code: number, stderr: string) {
    if (this.ended) return;
    this.ended = true;
    this.stderr.emit('data', stderr);
    this.emit('close', code);
  }
}

function deps(make: (shard: WorkerShard, env: Record<string, string | undefined>) => FakeWorker) {
  const workers: FakeWorker[] = [];
  return {
    workers,
    deps: {
      launch: (shard: WorkerShard, env: Record<string, string | undefined>) => {
        const w = make(shard, env);
        workers.push(w);
        return w as unknown as WorkerProcess;
      },
      env: { JOB_COMPLETION_INDEX: '3', KEEP: 'x' },
      signal: new AbortController().signal,
      log: () => {},
    },
  };
}

test('every worker gets its shard and, once all are ready, the same start; a failing exit fails the run with its stderr', async () => {
  const { workers, deps: d } = deps((shard, env) => new FakeWorker(shard, env, { ready: true }));
  await assert.rejects(runWorkers({ workers: 3 }, d, t), (err: unknown) => {
    assert.ok(err instanceof UsageError);
    assert.equal(err.problems.length, 3);
    assert.match(err.problems[0].message, /worker 0\/3 exited with code 1:\nworker 0 failed/);
    return true;
  });
  assert.deepEqual(
    workers.map((w) => [w.shard.index, w.shard.count]),
    [
      [0, 3],
      [1, 3],
      [2, 3],
    ],
  );
  assert.equal(new Set(workers.map((w) => w.shard.startAt)).size, 1);
  assert.equal(new Set(workers.map((w) => w.shard.out)).size, 3);
  for (const w of workers) {
    assert.equal(w.env[READY_ENV], '1');
    assert.equal(w.env.JOB_COMPLETION_INDEX, undefined); // the shard comes from the flags
    assert.equal(w.env.KEEP, 'x');
    assert.equal(w.sent.length, 1);
  }
  const starts = workers.map((w) => (w.sent[0] as { start_at_unix_ms: number }).start_at_unix_ms);
  assert.equal(new Set(starts).size, 1);
});

test('a worker that ends before it is ready stops the others, which would wait for it forever', async () => {
  const { workers, deps: d } = deps(
    (shard, env) => new FakeWorker(shard, env, { ready: shard.index !== 1, exitBeforeReady: 1 }),
  );
  await assert.rejects(runWorkers({ workers: 3 }, d, t), UsageError);
  assert.deepEqual(
    workers.map((w) => w.sent.length),
    [0, 0, 0],
  );
  assert.deepEqual(workers[0].killed, ['SIGINT']);
  assert.deepEqual(workers[2].killed, ['SIGINT']);
  // The channel stays open: a worker hears its parent go when it closes (the parent never closes it).
  assert.equal(workers[0].connected, true);
});

test('interrupted, the parent interrupts every worker and ends with nothing to merge when none wrote a shard', async () => {
  const ac = new AbortController();
  const { workers, deps: d } = deps(
    (shard, env) => new FakeWorker(shard, env, { ready: false, exitBeforeReady: 130 }),
  );
  ac.abort();
  assert.equal(await runWorkers({ workers: 2 }, { ...d, signal: ac.signal }, t), null);
  assert.equal(workers.length, 0); // aborted before the start: none launched
  const ac2 = new AbortController();
  const slow = deps((shard, env) => new FakeWorker(shard, env, { ready: true, onStart: 130 }));
  const run = runWorkers({ workers: 2 }, { ...slow.deps, signal: ac2.signal }, t);
  ac2.abort();
  // A worker that exits 130 with its parent is no failure; no shard report was written, so null.
  assert.equal(await run, null);
});

/** A worker's channel to a parent that answers `ready` with a start. */
class FakeChannel extends EventEmitter {
  connected = true;
  sent: unknown[] = [];
  refs: string[] = [];
  channel = { ref: () => this.refs.push('ref'), unref: () => this.refs.push('unref') };
  send(m: unknown) {
    this.sent.push(m);
    setImmediate(() => this.emit('message', { start_at_unix_ms: 1234 }));
    return true;
  }
  disconnect() {
    this.connected = false;
  }
}

test('a worker says it is ready over its channel and takes the start its parent sends', async () => {
  const channel = new FakeChannel();
  assert.equal(startFromParent({}, channel as unknown as ParentChannel), undefined);
  const start = startFromParent({ [READY_ENV]: '1' }, channel as unknown as ParentChannel);
  assert.ok(start);
  assert.equal(await start(), 1234);
  assert.deepEqual(channel.sent, [{ ready: true }]);
  // Held while waiting for the start only: open, it tells the worker when its parent is gone.
  assert.equal(channel.connected, true);
  assert.deepEqual(channel.refs, ['ref', 'unref']);
});
