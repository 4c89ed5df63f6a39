/**
 * @module test/k8s/manifests
 * `servelab k8s render`: the printed manifest matches the golden file (regenerate it with
 * UPDATE_GOLDEN=1 after a deliberate change), every object validates against the Kubernetes
 * API schema (kubernetes-models), and the Job has the fail-fast, Guaranteed-QoS settings a
 * sharded run needs. A bad object is refused by the same validation.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
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
