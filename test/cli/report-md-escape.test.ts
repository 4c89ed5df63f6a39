/**
 * `report --md` escapes what the HTML report escapes: a server's model id, a run's label and the
 * title reach the Markdown as text, so `<img src=x onerror=…>` cannot run where it is rendered.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-md-escape-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const XSS = '<img src=x onerror=alert(1)>';

it('report --md writes a hostile model id, label and title as escaped text', async () => {
  const plan = memoryIo({}, dir);
  const args = ['plan', '--requests', '8', '--concurrency', '2', '--input-len', '64', '--output-len', '8'];
  assert.equal(await main([...args, '--no-db', '--out', 'a'], plan), 0, plan.err());
  const file = join(dir, 'a', 'report.json');
  const report = JSON.parse(readFileSync(file, 'utf8'));
  report.config.model = `m${XSS}`;
  report.config.generation.model = `m${XSS}`;
  report.label = `run${XSS}`;
  writeFileSync(file, JSON.stringify(report));

  const io = memoryIo({}, dir);
  assert.equal(
    await main(['report', 'a/report.json', '--md', 'w.md', '--title', `T${XSS}`], io),
    0,
    io.err(),
  );
  const md = readFileSync(join(dir, 'w.md'), 'utf8');
  assert.doesNotMatch(md, /<img/);
  assert.match(md, /^# T&lt;img src=x onerror=alert\(1\)&gt;$/m);
  assert.match(md, /m&lt;img src=x onerror=alert\(1\)&gt;/);
});
