/**
 * `servelab exp init KIND > f.yaml && servelab exp run f.yaml` works for every kind on a fresh
 * machine (the templates target the built-in simulator, in virtual time) with every level valid,
 * the result lands in the store, and a stored experiment can be rerun from its record.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { EXPERIMENT_KINDS } from '../../src/exp/index.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-exp-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The seed each kind's experiment printed (the templates leave it out: drawn fresh). */
const seeds: Record<string, string> = {};

describe('servelab exp', () => {
  for (const kind of EXPERIMENT_KINDS) {
    it(`runs the ${kind} template as-is against the simulator`, async () => {
      const init = memoryIo({}, dir);
      assert.equal(await main(['exp', 'init', kind], init), 0);
      writeFileSync(join(dir, `${kind}.yaml`), init.out());
      const io = memoryIo({}, dir);
      const code = await main(['exp', 'run', `${kind}.yaml`, '--json'], io);
      assert.equal(code, 0, io.err().slice(-3000));
      const result = JSON.parse(io.out());
      assert.equal(result.kind, kind);
      assert.ok(result.experiment_id, 'stored');
      assert.ok(result.runs.length >= 1);
      const head = new RegExp(`experiment ${result.experiment_id}: .*, seed (\\d+)`).exec(io.err());
      assert.ok(head, 'the first line prints the seed');
      seeds[kind] = head[1];
      assert.equal(result.seed, Number(head[1]), '--json says it too');
      // As shipped, every level is valid: the simulator runs in virtual time, so a busy machine
      // cannot make it fall behind, and no level may end NOT VALID on a learner's first try.
      const clocks = [...init.out().matchAll(/^ {6}clock: (\w+)/gm)].map((m) => m[1]);
      assert.ok(clocks.length >= 1, 'every sim target states its clock');
      assert.deepEqual(new Set(clocks), new Set(['virtual']));
      for (const r of result.runs)
        assert.deepEqual(r.validity, [], `${kind} ${r.target} ${r.label}: ${JSON.stringify(r.validity)}`);
      // The shipped rate sweep reaches past the simulator's capacity: it finds its knee, not
      // "throughput still rising: extend the levels".
      if (kind === 'rate-sweep')
        for (const t of result.results.targets as {
          target: string;
          knee_determined: boolean;
          knee: number | null;
        }[])
          assert.ok(
            t.knee_determined && t.knee !== null,
            `${t.target}: the knee is reached (${JSON.stringify(t)})`,
          );
      // A file with SLOs gets goodput in every run's summary.
      if (/^slo:/m.test(init.out()))
        for (const r of result.runs)
          assert.equal(typeof r.summary.goodput?.fraction, 'number', JSON.stringify(r.summary.goodput));
    });
  }

  it('lists stored experiments, reruns one, and rejects a broken file with every problem', async () => {
    const list = memoryIo({}, dir);
    assert.equal(await main(['exp', 'list', '--json'], list), 0);
    const exps = JSON.parse(list.out()) as { id: string; kind: string }[];
    // exactly the experiments the kind tests above stored, one per kind
    assert.deepEqual(exps.map((e) => e.kind).sort(), [...EXPERIMENT_KINDS].sort());
    const baseline = exps.find((e) => e.kind === 'baseline');
    assert.ok(baseline);
    const rerun = memoryIo({}, dir);
    assert.equal(await main(['exp', 'rerun', baseline.id], rerun), 0, rerun.err());
    // The seed drawn for the stored experiment was stored in its file: the rerun repeats it.
    assert.match(rerun.err(), new RegExp(`, seed ${seeds.baseline}\n`));
    writeFileSync(
      join(dir, 'bad.yaml'),
      'kind: concurrency-sweep\nname: 3\ntargets: {}\nload: {concurrency: [4, -1]}\nrepeats: 0\n',
    );
    const bad = memoryIo({}, dir);
    assert.equal(await main(['exp', 'run', 'bad.yaml'], bad), 1);
    assert.ok((bad.err().match(/bad\.yaml/g) ?? []).length >= 3, bad.err());
    const unknown = memoryIo({}, dir);
    assert.equal(await main(['exp', 'init', 'nope'], unknown), 1);
    assert.match(unknown.err(), /baseline, prefix-cache/);
  });
});
