/**
 * Probing: loopback servers pretending to be vLLM, SGLang, llama.cpp and servelab's simulator;
 * a fake nvidia-smi on PATH; the assembled record marks probed/declared/missing.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type EngineProbeResult, probeTarget } from '../../src/client/engine-probe.js';
import { isLocalUrl, serverRoot } from '../../src/core/url.js';
import {
  buildExperimentRecord,
  EXPERIMENT_RECORD_FIELDS,
  type GpuProbe,
  hostInfo,
  makeField,
  nodeExec,
  probeGpu,
  setRecordField,
} from '../../src/exp/experiment-record.js';
import { parseExperiment } from '../../src/exp/schema.js';

type Routes = Record<string, { status?: number; body: unknown; headers?: Record<string, string> }>;

/** A loopback server answering fixed JSON per path, remembering each request's headers. */
async function fakeServer(
  routes: Routes,
  serverHeader?: string,
): Promise<{ url: string; seen: IncomingMessage['headers'][]; server: Server }> {
  const seen: IncomingMessage['headers'][] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(req.headers);
    const r = routes[req.url ?? ''];
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(r?.headers ?? {}) };
    if (serverHeader) headers.server = serverHeader;
    res.writeHead(r ? (r.status ?? 200) : 404, headers);
    res.end(r ? JSON.stringify(r.body) : JSON.stringify({ detail: 'Not Found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, seen, server };
}

const servers: Server[] = [];
after(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});
async function serve(routes: Routes, serverHeader?: string) {
  const s = await fakeServer(routes, serverHeader);
  servers.push(s.server);
  return s;
}

const vllmModels = {
  object: 'list',
  data: [
    {
      id: 'Qwen/Qwen3-8B',
      object: 'model',
      created: 1,
      owned_by: 'vllm',
      root: '/models/qwen3-8b',
      parent: null,
      max_model_len: 40960,
    },
    {
      id: 'my-lora',
      object: 'model',
      created: 1,
      owned_by: 'vllm',
      root: '/loras/x',
      parent: 'Qwen/Qwen3-8B',
      max_model_len: null,
    },
  ],
};

describe('probeTarget', () => {
  it('recognises vLLM from owned_by and reads its version and max_model_len; sends but never returns the key', async () => {
    const s = await serve(
      { '/v1/models': { body: vllmModels }, '/version': { body: { version: '0.11.2' } } },
      'uvicorn',
    );
    const p = await probeTarget(s.url, { apiKey: 'sk-secret-123', headers: { 'X-Team': 'perf' } });
    assert.equal(p.reachable, true);
    assert.equal(p.engine, 'vllm');
    assert.equal(p.engine_version, '0.11.2');
    assert.equal(p.max_model_len, 40960);
    assert.equal(p.server_header, 'uvicorn');
    assert.deepEqual(
      p.models.map((m) => [m.id, m.parent]),
      [
        ['Qwen/Qwen3-8B', null],
        ['my-lora', 'Qwen/Qwen3-8B'],
      ],
    );
    assert.ok(p.evidence.includes('owned_by=vllm on /v1/models'));
    assert.deepEqual(p.errors, []);
    assert.ok(s.seen.every((h) => h.authorization === 'Bearer sk-secret-123' && h['x-team'] === 'perf'));
    assert.doesNotMatch(JSON.stringify(p), /sk-secret/);
  });

  it('recognises llama.cpp from owned_by=llamacpp and takes the version from /props', async () => {
    const s = await serve({
      '/v1/models': {
        body: {
          object: 'list',
          data: [
            {
              id: 'qwen3-8b-q4_k_m.gguf',
              object: 'model',
              owned_by: 'llamacpp',
              meta: { n_ctx_train: 40960 },
            },
          ],
        },
      },
      '/props': { body: { build_info: 'b6123-1a2b3c4', default_generation_settings: { n_ctx: 8192 } } },
    });
    const p = await probeTarget(s.url);
    assert.equal(p.engine, 'llama.cpp');
    assert.equal(p.engine_version, 'b6123-1a2b3c4');
    assert.equal(p.max_model_len, 8192);
    assert.ok(p.errors.includes('/version: HTTP 404'));
  });

  it('recognises SGLang and servelab-sim, and says unknown when nothing tells', async () => {
    const sg = await serve({
      '/v1/models': {
        body: {
          object: 'list',
          data: [{ id: 'm', owned_by: 'sglang', root: 'm', parent: null, max_model_len: 32768 }],
        },
      },
      '/get_server_info': { body: { version: '0.5.3', tp_size: 1 } },
    });
    const p1 = await probeTarget(sg.url);
    assert.deepEqual([p1.engine, p1.engine_version, p1.max_model_len], ['sglang', '0.5.3', 32768]);

    const sim = await serve({
      '/v1/models': {
        body: {
          object: 'list',
          data: [{ id: 'qwen3-0.6b', owned_by: 'servelab-sim', max_model_len: 40960 }],
        },
      },
      '/version': { body: { version: '0.1.0' } },
    });
    const p2 = await probeTarget(`${sim.url}/`);
    assert.deepEqual([p2.engine, p2.engine_version], ['servelab-sim', '0.1.0']);

    const other = await serve({
      '/v1/models': { body: { object: 'list', data: [{ id: 'x', owned_by: 'openai' }] } },
    });
    const p3 = await probeTarget(other.url);
    assert.equal(p3.engine, 'unknown');
    assert.equal(p3.engine_version, null);
  });

  it('does not throw for an unreachable server', async () => {
    const s = await fakeServer({});
    await new Promise((r) => s.server.close(r));
    const p = await probeTarget(s.url, { timeoutMs: 1000 });
    assert.equal(p.reachable, false);
    assert.equal(p.engine, 'unknown');
    assert.ok(p.errors.length >= 2);
  });

  it('asks for the models under the base URL, where run and check ask', async () => {
    const s = await serve({ '/v1/openai/models': { body: vllmModels } });
    const p = await probeTarget(`${s.url}/openai`);
    assert.equal(p.engine, 'vllm');
    assert.deepEqual(
      p.models.map((m) => m.id),
      ['Qwen/Qwen3-8B', 'my-lora'],
    );
    assert.ok(p.evidence.includes('owned_by=vllm on /models'), p.evidence.join('; '));
  });

  it('does not throw for a base URL that is not a URL, and keeps credentials out of it', async () => {
    const p = await probeTarget('http://user:pw@not a host:8000/v1', { timeoutMs: 1000 });
    assert.equal(p.reachable, false);
    assert.equal(p.engine, 'unknown');
    assert.ok(p.errors.length >= 2);
    assert.doesNotMatch(JSON.stringify(p), /pw/);
  });

  it('serverRoot strips /v1 and credentials; isLocalUrl knows loopback', () => {
    assert.equal(serverRoot('http://user:pw@h:8000/v1/'), 'http://h:8000');
    assert.equal(serverRoot('https://api.example.com/openai/v1'), 'https://api.example.com/openai');
    assert.equal(isLocalUrl('http://127.0.0.1:8000/v1'), true);
    assert.equal(isLocalUrl('http://[::1]:8000/v1'), true);
    assert.equal(isLocalUrl('http://gpu-node-17.invalid:8000/v1'), false);
  });
});

describe('probeGpu', () => {
  let bin: string;
  before(() => {
    bin = mkdtempSync(join(tmpdir(), 'servelab-smi-'));
    // Prints what the real nvidia-smi prints for this query on a 2× H100 box, and its banner.
    writeFileSync(
      join(bin, 'nvidia-smi'),
      `#!/bin/sh
case "$1" in
  --query-gpu=name,memory.total,driver_version)
    [ "$2" = "--format=csv,noheader" ] || exit 9
    echo "NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15"
    echo "NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15"
    ;;
  "")
    echo "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |"
    ;;
  *) exit 2 ;;
esac
`,
    );
    chmodSync(join(bin, 'nvidia-smi'), 0o755);
  });
  after(() => rmSync(bin, { recursive: true, force: true }));

  it('reads name, memory and driver from the CSV and CUDA from the banner', async () => {
    const exec = nodeExec({ env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` } });
    const g = await probeGpu(exec);
    assert.ok(g);
    assert.equal(g.count, 2);
    assert.deepEqual(g.gpus[0], {
      name: 'NVIDIA H100 80GB HBM3',
      memory_total_mib: 81559,
      memory_total_gib: 79.65,
      driver_version: '550.54.15',
    });
    assert.equal(g.driver_version, '550.54.15');
    assert.equal(g.cuda_version, '12.4');
  });

  it('is null when nvidia-smi is not installed or fails', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'servelab-nosmi-'));
    try {
      assert.equal(await probeGpu(nodeExec({ env: { PATH: empty } })), null);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    assert.equal(await probeGpu(async () => ({ stdout: '', code: 6 })), null);
  });
});

describe('buildExperimentRecord', () => {
  const host = hostInfo();
  const probe: EngineProbeResult = {
    root_url: 'http://127.0.0.1:8000',
    reachable: true,
    engine: 'vllm',
    engine_version: '0.11.2',
    server_header: 'uvicorn',
    models: [
      { id: 'Qwen/Qwen3-8B', owned_by: 'vllm', max_model_len: 40960, root: '/models/qwen3-8b', parent: null },
    ],
    max_model_len: 40960,
    max_model_len_source: '/v1/models max_model_len',
    evidence: ['owned_by=vllm on /v1/models', 'version 0.11.2 from /version'],
    errors: [],
  };
  const gpu: GpuProbe = {
    gpus: [
      {
        name: 'NVIDIA H100 80GB HBM3',
        memory_total_mib: 81559,
        memory_total_gib: 79.65,
        driver_version: '550.54.15',
      },
    ],
    count: 1,
    driver_version: '550.54.15',
    cuda_version: '12.4',
  };

  it('marks probed, declared and missing fields for a url target', () => {
    const spec = parseExperiment(
      `kind: baseline\nname: b\nmodel: Qwen/Qwen3-8B\ngeneration: {thinking: false, temperature: 0}\ntargets:\n  v:\n    url: http://127.0.0.1:8000/v1\n    declared: {image: "vllm/vllm-openai@sha256:abc", kv_cache_dtype: fp8}\n`,
    );
    const r = buildExperimentRecord({
      spec,
      targetName: 'v',
      probe,
      gpu,
      host,
      tokenizer: { name: 'qwen3', method: 'tokenizer' },
    });
    assert.equal(r.engine.source, 'probed');
    assert.deepEqual([r.engine.value.name, r.engine.value.version], ['vllm', '0.11.2']);
    assert.equal(r.device.source, 'probed');
    assert.equal(r.device.value.gpu, 'NVIDIA H100 80GB HBM3');
    assert.deepEqual(r.device.missing, ['interconnect']);
    assert.equal(r.software.value.cuda, '12.4');
    assert.equal(r.limits.value.max_model_len, 40960);
    assert.equal(r.image.source, 'declared');
    assert.equal(r.image.value.digest, 'vllm/vllm-openai@sha256:abc');
    assert.equal(r.precision.source, 'declared');
    assert.deepEqual(r.precision.missing, ['weights', 'activations']);
    assert.equal(r.generation.value.thinking, false);
    assert.equal(r.quality.source, 'missing');
    assert.equal(r.metrics.source, 'missing');
    assert.equal(r.model.value.root, '/models/qwen3-8b');
    assert.deepEqual(r.model.missing, ['revision']);
    for (const f of EXPERIMENT_RECORD_FIELDS)
      assert.ok(['probed', 'declared', 'missing'].includes(r[f].source), f);
    assert.equal(r.servelab.servelab_version, '0.1.0');
    const withQ = setRecordField(
      r,
      'quality',
      makeField({ samples: [8], successes: [8], truncations: [0], errors: [0] }),
    );
    assert.equal(withQ.quality.source, 'declared');
    assert.equal(r.quality.source, 'missing', 'setRecordField does not mutate');
  });

  it('declares the simulated device and engine of a virtual-clock sim target', () => {
    const spec = parseExperiment(
      `kind: matrix\nname: m\ntargets:\n  s:\n    sim: {model: llama-3.1-8b, gpu: a100-40gb, tp: 2, kv_cache_dtype: fp8, max_num_seqs: 64, clock: virtual}\n`,
    );
    const r = buildExperimentRecord({ spec, targetName: 's', host });
    assert.equal(r.engine.source, 'declared');
    assert.equal(r.engine.value.name, 'servelab-sim');
    assert.deepEqual(
      [r.device.value.gpu, r.device.value.count, r.device.value.simulated],
      ['a100-40gb', 2, true],
    );
    assert.equal(r.precision.value.kv_cache, 'fp8');
    assert.equal(r.limits.value.max_num_seqs, 64);
    assert.equal(r.model.value.id, 'llama-3.1-8b');
    assert.equal(r.image.source, 'missing');
    assert.equal(r.template.source, 'missing');
  });
});
