/**
 * @module test/k8s/manifests
 * `servelab k8s render`: the printed manifest matches the golden file (regenerate it with
 * UPDATE_GOLDEN=1 after a deliberate change), every object validates against the Kubernetes
 * API schema (kubernetes-models), and the Job has the fail-fast, Guaranteed-QoS settings a
 * sharded run needs. A bad object is refused by the same validation.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { it } from 'node:test';
import { promisify } from 'node:util';
import { Job } from 'kubernetes-models/batch/v1';
import { ConfigMap, PersistentVolumeClaim } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import '../helpers/node-warnings.js';

const GOLDEN = join(import.meta.dirname, '..', 'fixtures', 'k8s', 'render.golden.yaml');
const ARGS = [
  ...['k8s', 'render', '--shards', '3', '--start-at', '2026-12-01T17:00:00Z', '--image', 'servelab:test'],
  ...[
    '--',
    '--url',
    'http://engine:8000/v1',
    '--rate',
    '200',
    '--duration',
    '300',
    '--prompt',
    "it's a test",
  ],
];

it('renders the golden manifest, and every object validates', async () => {
  const io = memoryIo();
  assert.equal(await main(ARGS, io), 0, io.err());
  if (process.env.UPDATE_GOLDEN) writeFileSync(GOLDEN, io.out());
  assert.equal(io.out(), readFileSync(GOLDEN, 'utf8'));
  const docs = parseAllDocuments(io.out()).map((d) => d.toJS());
  assert.deepEqual(
    docs.map((d) => d.kind),
    ['ConfigMap', 'PersistentVolumeClaim', 'Job', 'Job', 'PodMonitor'],
  );
  new ConfigMap(docs[0]).validate();
  new PersistentVolumeClaim(docs[1]).validate();
  for (const j of [docs[2], docs[3]]) new Job(j).validate();
  const spec = docs[2].spec;
  assert.equal(spec.completionMode, 'Indexed');
  assert.equal(spec.completions, 3);
  assert.equal(spec.parallelism, 3);
  assert.equal(spec.backoffLimitPerIndex, 0);
  assert.equal(spec.maxFailedIndexes, 0);
  assert.equal(spec.podReplacementPolicy, 'Failed');
  const res = spec.template.spec.containers[0].resources;
  assert.deepEqual(res.requests, res.limits);
  assert.equal(docs[0].data.SERVELAB_START_AT, '2026-12-01T17:00:00.000Z');
  assert.match(docs[0].data.SERVELAB_RUN_ARGS, /--prompt 'it'\\''s a test'/);
  assert.match(docs[3].spec.template.spec.containers[0].args[0], /merge --expect 3/);
  // the validation can refuse: a Job whose completions is not an integer
  assert.throws(() => new Job({ ...docs[2], spec: { ...spec, completions: 'three' } }).validate());
});

const RUN = ['--', '--url', 'http://engine:8000/v1', '--rate', '200', '--duration', '300'];

it('--start-in goes into the ConfigMap as SERVELAB_START_IN, not frozen into an instant at render', async () => {
  const io = memoryIo();
  assert.equal(await main(['k8s', 'render', '--shards', '4', '--start-in', '120', ...RUN], io), 0, io.err());
  const docs = parseAllDocuments(io.out()).map((d) => d.toJS());
  new ConfigMap(docs[0]).validate();
  new Job(docs[2]).validate();
  assert.equal(docs[0].data.SERVELAB_START_IN, '120');
  assert.equal(docs[0].data.SERVELAB_START_AT, undefined);
  const shard = docs[2].spec.template.spec.containers[0];
  // the Job's uid from the downward API names the start file, so a re-applied Job gets its own
  assert.deepEqual(shard.env, [
    {
      name: 'SERVELAB_JOB_UID',
      valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/controller-uid']" } },
    },
  ]);
  assert.match(shard.args[0], /--start-at \$SERVELAB_START_AT /);
});

it("--start-in: shards coming up at different times agree on the first one's start", async () => {
  const io = memoryIo();
  assert.equal(await main(['k8s', 'render', '--shards', '4', '--start-in', '120', ...RUN], io), 0, io.err());
  const script: string = parseAllDocuments(io.out())[2].toJS().spec.template.spec.containers[0].args[0];
  const lines = script.split('\n');
  assert.match(lines.at(-1) ?? '', /^eval "exec servelab run /);
  // The shard's own lines up to `servelab run`, on a temporary folder for the shared volume,
  // saying the start they agreed on.
  const dir = mkdtempSync(join(tmpdir(), 'servelab-k8s-start-'));
  const prelude = [...lines.slice(0, -1), 'printf %s "$SERVELAB_START_AT"']
    .join('\n')
    .replaceAll('/results', dir);
  const path = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
  const shard = async (uid: string, index: number, startIn: number) =>
    (
      await promisify(execFile)('sh', ['-c', prelude], {
        env: {
          PATH: path,
          SERVELAB_JOB_UID: uid,
          JOB_COMPLETION_INDEX: String(index),
          SERVELAB_START_IN: String(startIn),
        },
      })
    ).stdout;
  try {
    const before = Math.floor(Date.now() / 1000) * 1000; // the shell counts whole seconds
    const first = await shard('job-a', 0, 120);
    assert.ok(Date.parse(first) >= before + 120_000, `${first} is not 120 s after the first shard came up`);
    // A shard up later (here asked for another delay, so its own reckoning would differ) takes
    // the first one's start.
    assert.equal(await shard('job-a', 1, 999), first);
    // Four shards at once: one start between them, and only the shared file left behind.
    const together = await Promise.all([0, 1, 2, 3].map((i) => shard('job-b', i, 60)));
    assert.equal(new Set(together).size, 1, together.join(', '));
    assert.notEqual(together[0], first);
    assert.deepEqual(readdirSync(dir).sort(), ['start-at.job-a', 'start-at.job-b']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("run's flags before -- are named as run's, and the hint puts them after --", async () => {
  const io = memoryIo();
  const argv = ['k8s', 'render', '--shards', '4', '--url', 'http://u:pw@engine:8000/v1', '--rate', '50'];
  assert.equal(await main([...argv, '--start-in', '120'], io), 1);
  const err = io.err();
  assert.match(err, /- --url \(a flag of run: run's flags go after --\)/);
  assert.match(err, /- --rate \(a flag of run: /);
  assert.doesNotMatch(err, /did you mean/);
  assert.match(
    err,
    /hint: run's flags follow --: servelab k8s render --shards 4 --start-in 120 -- --url http:\/\/engine:8000\/v1 --rate 50\n/,
  );
  assert.doesNotMatch(err, /pw/);
});

it('needs a common start', async () => {
  const io = memoryIo();
  assert.notEqual(await main(['k8s', 'render', '--shards', '3'], io), 0);
  assert.match(io.err(), /common start/);
});

it("a shard's exporter labels every series with shard and run_id, which the shards dashboard sums by", async () => {
  const { createExporter } = await import('../../src/monitor/exporter.js');
  const text = await createExporter({ shard: '2', run_id: 'abc123' }).registry.metrics();
  assert.match(text, /servelab_requests_in_flight\{shard="2",run_id="abc123"\} 0/);
  const board = JSON.parse(
    readFileSync(join(import.meta.dirname, '..', '..', 'deploy', 'grafana-shards-dashboard.json'), 'utf8'),
  ) as { panels: { targets: { expr: string }[] }[] };
  for (const p of board.panels)
    for (const t of p.targets) {
      assert.match(t.expr, /by \(run_id\)/);
      const names = [...t.expr.matchAll(/servelab_[a-z_]+/g)].map((m) => m[0]);
      for (const n of names) assert.match(text, new RegExp(`^# TYPE ${n} `, 'm'), n);
    }
});
