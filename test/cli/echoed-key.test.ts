/**
 * A key a server echoes never leaves servelab (issue 28, "redaction at one place"): a server
 * that answers every request 401 with the presented key in its body, bare (no `Bearer` before
 * it, so only the key's value can find it). `run`, `check`, `gate` (console, `--json`,
 * `--junit`) and `report` print and write everything they would, without the key; `k8s render`
 * with a key in the URL and a credential header moves them into a Secret the shards' Job reads.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import '../helpers/node-warnings.js';

const KEY = 'sk-echo-7c1f9e2a4b';
let server: Server;
let url = '';
const dir = mkdtempSync(join(tmpdir(), 'servelab-echo-'));

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
        return;
      }
      const given = String(req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `invalid token: ${given}`, code: 401 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
after(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = { INFERENCE_API_KEY: KEY };

/** Every file under `d`, read as text. */
function filesUnder(d: string): [string, string][] {
  const out: [string, string][] = [];
  for (const name of readdirSync(d)) {
    const p = join(d, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push([p, readFileSync(p, 'latin1')]);
  }
  return out;
}

function assertNoKey(where: string, text: string): void {
  assert.ok(
    !text.includes(KEY),
    `${where} shows the key:\n${text.slice(Math.max(0, text.indexOf(KEY) - 200), text.indexOf(KEY) + 50)}`,
  );
}

it('run, check, gate and report never show a key the server echoes', async () => {
  const out = join(dir, 'out');
  const db = join(dir, 'store.db');
  const run = memoryIo(env);
  await main(
    [
      'run',
      '--url',
      url,
      '--model',
      'm',
      '--prompt',
      'hi',
      '--requests',
      '3',
      '--seed',
      '1',
      '--out',
      out,
      '--db',
      db,
      '--json',
    ],
    run,
  );
  assertNoKey('run console', run.out() + run.err());

  const check = memoryIo(env);
  await main(['check', '--url', url, '--model', 'm', '--json'], check);
  assertNoKey('check console', check.out() + check.err());

  const gate = memoryIo(env);
  const junit = join(dir, 'gate.xml');
  const gateJson = join(dir, 'gate.json');
  await main(
    ['gate', '--url', url, '--model', 'm', '--checks', 'cache', '--json', gateJson, '--junit', junit],
    gate,
  );
  assertNoKey('gate console', gate.out() + gate.err());
  const gate2 = memoryIo(env);
  await main(['gate', '--url', url, '--model', 'm', '--checks', 'cache', '--json'], gate2);
  assert.match(gate2.out(), /invalid token: \[redacted\]/, 'the evidence is kept, redacted');
  assertNoKey('gate --json', gate2.out() + gate2.err());

  const report = memoryIo(env);
  await main(['report', out, '--md', join(dir, 'report.md'), '--html', join(dir, 'report.html')], report);
  assertNoKey('report console', report.out() + report.err());
  for (const [p, text] of filesUnder(dir)) assertNoKey(p, text);
});

it('k8s render puts credentials into a Secret the Job reads, never into the ConfigMap', async () => {
  const io = memoryIo();
  const args = [
    'k8s',
    'render',
    '--shards',
    '2',
    '--start-in',
    '30',
    '--',
    '--url',
    `http://user:${KEY}@engine:8000/v1`,
  ];
  assert.equal(await main([...args, '--header', `X-Api-Key: ${KEY}`, '--rate', '5'], io), 0, io.err());
  const docs = parseAllDocuments(io.out()).map((d) => d.toJS());
  const secret = docs.find((d) => d.kind === 'Secret');
  assert.ok(secret, 'a Secret is emitted');
  for (const d of docs.filter((x) => x.kind !== 'Secret'))
    assertNoKey(`${d.kind} ${d.metadata.name}`, JSON.stringify(d));
  const cm = docs.find((d) => d.kind === 'ConfigMap');
  assert.match(cm.data.SERVELAB_RUN_ARGS, /--rate 5/);
  const shard = docs.find((d) => d.kind === 'Job' && d.metadata.name.endsWith('-shards'));
  const env0 = shard.spec.template.spec.containers[0].env ?? [];
  const ref = env0.find(
    (e: { valueFrom?: { secretKeyRef?: { name: string } } }) => e.valueFrom?.secretKeyRef,
  );
  assert.equal(ref?.valueFrom.secretKeyRef.name, secret.metadata.name);
  const secretText = Buffer.from(secret.data.SERVELAB_SECRET_ARGS, 'base64').toString();
  assert.ok(secretText.includes(`http://user:${KEY}@engine:8000/v1`), 'the Secret carries the URL');
  assert.ok(secretText.includes(`X-Api-Key: ${KEY}`), 'and the header');
  assert.match(shard.spec.template.spec.containers[0].args[0], /\$SERVELAB_RUN_ARGS \$SERVELAB_SECRET_ARGS/);
});
