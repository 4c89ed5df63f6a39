/**
 * A prompt file that is not UTF-8 (Latin-1 bytes, a cut character) was altered without a word
 * (issue 28): its undecodable bytes became U+FFFD in the prompts sent. `run` now warns, in the
 * run's language, naming the file and the offset of its first bad byte.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';
import { decodeUtf8 } from '../../src/workload/files.js';
import '../helpers/node-warnings.js';

let sim: SimServer;
const dir = mkdtempSync(join(tmpdir(), 'servelab-encoding-'));
before(async () => {
  sim = await startSimServer({ model: 'qwen3-8b', gpu: 'h100', port: 0, timeScale: 50 });
});
after(async () => {
  await sim.close();
});

const run = async (file: string, lang: string[] = []) => {
  const io = memoryIo({}, dir);
  const args = ['run', '--url', `${sim.url}/v1`, '--prompts', file, '--requests', '2', '--output-len', '2'];
  const code = await main([...args, '--no-db', '--no-scrape', ...lang], io);
  return { code, err: io.err() };
};

it('a Latin-1 prompt file: run warns with the file and the first bad byte, in English and in zh-CN', async () => {
  const file = join(dir, 'latin1.jsonl');
  // `{"prompt":"caf` is 14 bytes; then é in Latin-1 (0xE9), not UTF-8.
  writeFileSync(
    file,
    Buffer.concat([Buffer.from('{"prompt":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n')]),
  );
  const en = await run(file);
  assert.equal(en.code, 0, en.err);
  assert.ok(en.err.includes(`${file} is not valid UTF-8 (first bad byte at offset 14)`), en.err);
  const zh = await run(file, ['--lang', 'zh-CN']);
  assert.equal(zh.code, 0, zh.err);
  assert.ok(zh.err.includes(`${file} 不是有效的 UTF-8（第一个错误字节位于偏移 14）`), zh.err);
});

it('a valid UTF-8 file, U+FFFD written in it included, gets no warning', async () => {
  const file = join(dir, 'utf8.jsonl');
  writeFileSync(file, '{"prompt":"café \uFFFD 東京"}\n');
  const r = await run(file);
  assert.equal(r.code, 0, r.err);
  assert.doesNotMatch(r.err, /UTF-8/);
});

it('the first bad byte is where its broken sequence starts', () => {
  const at = (bytes: number[]) => decodeUtf8(Uint8Array.from(bytes)).badAt;
  assert.equal(at([0x61, 0x62]), null);
  assert.equal(at([0x61, 0xc3, 0x41]), 1, 'a lead byte followed by ASCII');
  assert.equal(at([0x61, 0x62, 0xe2, 0x82]), 2, 'a character cut at the end');
  assert.equal(at([0xff, 0x61]), 0);
});
