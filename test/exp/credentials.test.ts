/**
 * Experiment files and credentials (issue 28): a header that carries a credential, by its name
 * (X-Api-Key, Cookie) or by its value (`Bearer …`, the API key itself), is refused with a hint to
 * use `api_key_env`; the file text the store keeps is redacted like the parsed spec; and a YAML
 * alias bomb is a clean problem, not a ReferenceError with a stack.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { redactConfigText, rememberSecret } from '../../src/core/redact.js';
import { parseExperiment } from '../../src/exp/schema.js';
import { openStore } from '../../src/store/index.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-exp-cred-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const file = (headers: string) =>
  `kind: baseline\nname: b\nmodel: m\ntargets:\n  v:\n    url: http://127.0.0.1:8000/v1\n    headers: {${headers}}\n`;

function problemsOf(text: string): string {
  try {
    parseExperiment(text, 'e.yaml');
  } catch (e) {
    assert.ok(e instanceof UsageError, String(e));
    return e.message;
  }
  return '';
}

it('refuses a header that carries a credential, by name or by value', () => {
  rememberSecret('sk-known-4242');
  for (const h of [
    'X-Api-Key: abcd1234',
    'api-key: abcd1234',
    'Cookie: "session=abc"',
    'X-Custom: "Bearer abcd1234"',
    'X-Other: sk-known-4242',
  ])
    assert.match(problemsOf(file(h)), /credentials[\s\S]*api_key_env/, h);
  assert.equal(problemsOf(file('X-Tenant: blue')), '');
});

it('stores the file text redacted like the spec', () => {
  const text = `kind: baseline\nname: b\ntargets:\n  v:\n    url: http://u:pw-secret-1@h/v1\n    api_key_env: VLLM_KEY\n    headers:\n      X-Api-Key: abcd-secret-99\n`;
  assert.doesNotMatch(redactConfigText(text), /abcd-secret-99|pw-secret-1/);
  assert.match(redactConfigText(text), /api_key_env: VLLM_KEY/);
  const store = openStore(join(dir, 's.db'));
  try {
    const e = store.createExperiment({ kind: 'baseline', name: 'b', fileText: text, spec: {} });
    assert.doesNotMatch(store.getExperiment(e.id)?.file_text ?? '', /abcd-secret-99|pw-secret-1/);
  } finally {
    store.close();
  }
});

it('a YAML alias bomb is a problem with a hint, not a stack', () => {
  const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 0; i < 8; i++)
    bomb.push(
      `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
        .fill(`*${String.fromCharCode(97 + i)}`)
        .join(', ')}]`,
    );
  const msg = problemsOf(`${bomb.join('\n')}\nkind: baseline\n`);
  assert.match(msg, /YAML aliases/);
});
