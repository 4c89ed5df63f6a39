/**
 * @module test/monitor/nvidia-smi
 * nvidia-smi reading through a fake `nvidia-smi` placed first on PATH. The fake checks that it
 * got exactly servelab's query and prints the real `csv,noheader,nounits` format, including a
 * GPU whose utilisation is `[N/A]`.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  execFileText,
  gpuVocab,
  hasNvidiaSmi,
  isLocalUrl,
  localGpuSources,
  NVIDIA_SMI_ARGS,
  nvidiaSmiSource,
  parseNvidiaSmiCsv,
  readNvidiaSmi,
} from '../../src/monitor/nvidia-smi.js';
import { type ScrapePoint, startScraper } from '../../src/monitor/scraper.js';
import { RealClock } from '../../src/runtime/clock.js';

// What nvidia-smi 550 prints for this query on a 2-GPU box (no header, no units, ", " separated).
const CSV = '0, NVIDIA H100 80GB HBM3, 72837, 81559, 96\n1, NVIDIA H100 80GB HBM3, 1024, 81559, [N/A]\n';

describe('nvidia-smi', () => {
  let dir = '';
  const oldPath = process.env.PATH;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'servelab-nvsmi-'));
    const script = join(dir, 'nvidia-smi');
    writeFileSync(
      script,
      [
        '#!/bin/sh',
        `if [ "$1" != "${NVIDIA_SMI_ARGS[0]}" ] || [ "$2" != "${NVIDIA_SMI_ARGS[1]}" ] || [ $# -ne 2 ]; then`,
        '  echo "unexpected arguments: $*" >&2; exit 2',
        'fi',
        `printf '${CSV.replace(/\n/g, '\\n')}'`,
      ].join('\n'),
    );
    chmodSync(script, 0o755);
    process.env.PATH = `${dir}${delimiter}${oldPath ?? ''}`;
  });
  after(() => {
    process.env.PATH = oldPath;
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the fake on PATH and not on an empty PATH', () => {
    assert.equal(hasNvidiaSmi(), true);
    assert.equal(hasNvidiaSmi(join(dir, 'nope')), false);
  });

  it('runs the real query and parses its CSV', async () => {
    const gpus = await readNvidiaSmi();
    assert.deepEqual(gpus, [
      {
        index: 0,
        name: 'NVIDIA H100 80GB HBM3',
        memory_used_mib: 72837,
        memory_total_mib: 81559,
        utilization_gpu_pct: 96,
      },
      {
        index: 1,
        name: 'NVIDIA H100 80GB HBM3',
        memory_used_mib: 1024,
        memory_total_mib: 81559,
        utilization_gpu_pct: null,
      },
    ]);
    assert.deepEqual(gpuVocab(gpus), { gpu_memory_used_mib: 73861, gpu_util_pct: 96 });
  });

  it('rejects when nvidia-smi fails (a driver problem is an error, not zero memory)', async () => {
    // The fake exits 2 on any other arguments, as a broken driver makes nvidia-smi exit non-zero.
    await assert.rejects(readNvidiaSmi((file, args, opts) => execFileText(file, [...args, '--bogus'], opts)));
  });

  it('parses names with commas and rejects garbage', () => {
    assert.equal(parseNvidiaSmiCsv('3, Weird, Name, 10, 20, 30\n')[0].name, 'Weird, Name');
    assert.throws(() => parseNvidiaSmiCsv('No devices were found\n'), /unexpected nvidia-smi line/);
  });

  it('feeds the scraper as a source', async () => {
    const points: ScrapePoint[] = [];
    let resolve = () => {};
    const got = new Promise<void>((r) => {
      resolve = r;
    });
    const s = startScraper({
      clock: new RealClock(),
      intervalMs: 200,
      sources: [nvidiaSmiSource()],
      onPoint: (p) => {
        points.push(p);
        if (points.length >= 2) resolve();
      },
    });
    await got;
    const stats = await s.stop({ final: false });
    assert.deepEqual(
      points.slice(0, 2).map((p) => [p.source, p.name, p.value]),
      [
        ['nvidia-smi', 'gpu_memory_used_mib', 73861],
        ['nvidia-smi', 'gpu_util_pct', 96],
      ],
    );
    assert.equal(stats.failures, 0);
    assert.ok(stats.ok >= 1);
  });

  it('localGpuSources reads nvidia-smi for local targets only', () => {
    assert.deepEqual(
      localGpuSources('http://127.0.0.1:8000/v1').map((s) => s.name),
      ['nvidia-smi'],
    );
    assert.deepEqual(localGpuSources('http://gpu-node-1:8000/v1'), []);
    assert.deepEqual(localGpuSources('http://127.0.0.1:8000/v1', { pathEnv: join(dir, 'nope') }), []);
    // A server reached by this machine's own name runs here too, so its GPU is ours to read
    // (the same rule `exp` uses for the record's device field).
    assert.deepEqual(
      localGpuSources(`http://${hostname()}:8000/v1`).map((s) => s.name),
      ['nvidia-smi'],
    );
  });

  it('isLocalUrl knows loopback targets', () => {
    assert.equal(isLocalUrl('http://127.0.0.1:8000/v1'), true);
    assert.equal(isLocalUrl('http://localhost:8000'), true);
    assert.equal(isLocalUrl('http://[::1]:8000'), true);
    assert.equal(isLocalUrl('http://gpu-node-1:8000'), false);
    assert.equal(isLocalUrl('not a url'), false);
  });
});
