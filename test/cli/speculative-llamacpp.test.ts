/**
 * Speculative decoding against the real llama.cpp server (`../shared/llamacpp`, see
 * test/helpers/llama-server) with a draft model (`-md`, the same tiny model, `--spec-type
 * draft-simple`, at most 4 drafts): servelab's reported acceptance rate equals Σ
 * `timings.draft_n_accepted` / Σ `timings.draft_n` over the run's responses within 3 points,
 * whether it was read from llama-server's `/metrics` or from the timings themselves. Skipped,
 * with the reason, where the shared build is absent; under CI=true it fails.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { speculativeSummary } from '../../src/analysis/speculative.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import {
  LLAMACPP_DIR,
  type LlamaServer,
  llamaServerMissing,
  startLlamaServer,
} from '../helpers/llama-server.js';
import '../helpers/node-warnings.js';

const missing = llamaServerMissing();
const dir = mkdtempSync(join(tmpdir(), 'servelab-spec-ll-'));
const servers: LlamaServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('speculative decoding against llama.cpp with a draft model', { skip: missing ?? false }, () => {
  it("reports Σdraft_n_accepted / Σdraft_n of the responses' timings within 3 points", async () => {
    const server = await startLlamaServer([
      '-md',
      join(LLAMACPP_DIR, 'models', 'qwen2-vocab.gguf'),
      '--spec-type',
      'draft-simple',
      '--spec-draft-n-max',
      '4',
    ]);
    servers.push(server);
    const io = memoryIo({}, dir);
    const code = await main(
      [
        'run',
        '--url',
        `${server.root}/v1`,
        '--concurrency',
        '2',
        '--requests',
        '6',
        '--input-len',
        '32',
        '--output-len',
        '24',
        '--no-db',
        '--embed-records',
        '--json',
      ],
      io,
    );
    assert.equal(code, 0, `${io.err()}\n${server.log().slice(-2000)}`);
    const report = JSON.parse(io.out());
    let draft = 0;
    let accepted = 0;
    for (const r of report.records) {
      draft += r.timings?.draft_n ?? 0;
      accepted += r.timings?.draft_n_accepted ?? 0;
    }
    assert.ok(draft > 0, 'llama-server drafted');
    const expected = accepted / draft;
    const s = report.speculative;
    assert.ok(s.source === 'metrics' || s.source === 'llamacpp_timings', s.source);
    assert.ok(Math.abs(s.acceptance_rate - expected) < 0.03, `${s.acceptance_rate} vs ${expected}`);
    // The same from the timings alone, as with a llama-server whose /metrics is off.
    const fromTimings = speculativeSummary(null, report.records);
    assert.equal(fromTimings.source, 'llamacpp_timings');
    assert.ok(Math.abs((fromTimings.acceptance_rate ?? -1) - expected) < 1e-12);
    assert.equal(fromTimings.mean_accepted_length_tokens, null);
    assert.equal(fromTimings.reason, 'drafts_not_reported');
  });
});
