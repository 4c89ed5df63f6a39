/** The one redaction scheme: which names are secret, header redaction, deep redaction, scrubbing. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSecretName, REDACTED, redactHeaders, redactSecrets, scrubSecrets } from '../../src/core/redact.js';
import { redactUrl } from '../../src/core/url.js';

describe('isSecretName', () => {
  const secret = [
    'authorization',
    'Authorization',
    'Proxy-Authorization',
    'X-Forwarded-Authorization',
    'cookie',
    'Set-Cookie',
    'api_key',
    'api-key',
    'apikey',
    'apiKey',
    'x-api-key',
    'X-Goog-Api-Key',
    'Ocp-Apim-Subscription-Key',
    'key',
    'secret',
    'client_secret',
    'X-Secret-Value',
    'password',
    'DB_PASSWORD',
    'passwd',
    'credentials',
    'token',
    'access_token',
    'accessToken',
    'auth_token',
    'authToken',
    'hf_token',
    'HF_TOKEN',
    'bearer_token',
    'X-Auth-Token',
    'refresh_token',
    'auth',
    'sig',
    'signature',
  ];
  const kept = [
    'tokenization',
    'tokenizer',
    'tokenizer_mode',
    'max_tokens',
    'prompt_tokens',
    'completion_tokens',
    'cached_tokens',
    'tokens',
    'num_tokens',
    'maxTokens',
    'kvBytesPerToken',
    'first_token_at_ms',
    'num_key_value_heads',
    'api_key_env',
    'apiKeyEnv',
    'X-Keyboard',
    'monkey',
    'author',
    'Accept',
    'model',
  ];
  for (const name of secret) it(`redacts ${name}`, () => assert.equal(isSecretName(name), true));
  for (const name of kept) it(`keeps ${name}`, () => assert.equal(isSecretName(name), false));
});

describe('redactHeaders', () => {
  it('redacts Authorization, *-Key, *-Token and Cookie, case-insensitively', () => {
    assert.deepEqual(
      redactHeaders({
        Authorization: 'Bearer x',
        'x-api-key': 'k',
        'X-Auth-Token': 't',
        COOKIE: 'c',
        Accept: 'text/event-stream',
        'X-Keyboard': 'not a key',
      }),
      {
        Authorization: REDACTED,
        'x-api-key': REDACTED,
        'X-Auth-Token': REDACTED,
        COOKIE: REDACTED,
        Accept: 'text/event-stream',
        'X-Keyboard': 'not a key',
      },
    );
  });
});

describe('redactSecrets', () => {
  it('replaces values under secret names at any depth and keeps token counts and variable names', () => {
    assert.deepEqual(
      redactSecrets({
        target: { headers: [{ Authorization: 'Bearer sk-1' }], api_key: 'sk-2', api_key_env: 'MY_KEY' },
        credentials: { user: 'u', pass: 'p' },
        generation: { max_tokens: 8 },
        workload: { tokenization: 'remote', prompt_tokens: 100 },
        hf_token: null,
      }),
      {
        target: { headers: [{ Authorization: REDACTED }], api_key: REDACTED, api_key_env: 'MY_KEY' },
        credentials: REDACTED,
        generation: { max_tokens: 8 },
        workload: { tokenization: 'remote', prompt_tokens: 100 },
        hf_token: null,
      },
    );
  });
});

describe('scrubSecrets', () => {
  it('removes every occurrence of the key and any Bearer token', () => {
    const key = 'sk-abcdef123456';
    assert.equal(
      scrubSecrets(`bad key ${key}; header was Bearer other-token, again ${key}`, [key]),
      `bad key ${REDACTED}; header was Bearer ${REDACTED}, again ${REDACTED}`,
    );
    assert.equal(scrubSecrets('nothing here', [undefined]), 'nothing here');
  });

  it('drops credentials from URLs, with the same placeholder for keys in the query', () => {
    assert.equal(redactUrl('http://u:p@127.0.0.1:8000/v1'), 'http://127.0.0.1:8000/v1');
    assert.equal(redactUrl('http://127.0.0.1:8000/v1'), 'http://127.0.0.1:8000/v1');
    const u = new URL(redactUrl('http://h/v1?key=k1&hf_token=k2&max_tokens=5'));
    assert.equal(u.searchParams.get('key'), REDACTED);
    assert.equal(u.searchParams.get('hf_token'), REDACTED);
    assert.equal(u.searchParams.get('max_tokens'), '5');
  });
});
