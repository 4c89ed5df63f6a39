/** Header redaction and secret scrubbing. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REDACTED, redactHeaders, redactUrl, scrubSecrets } from '../../src/client/redact.js';

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

describe('scrubSecrets', () => {
  it('removes every occurrence of the key and any Bearer token', () => {
    const key = 'sk-abcdef123456';
    assert.equal(
      scrubSecrets(`bad key ${key}; header was Bearer other-token, again ${key}`, [key]),
      `bad key ${REDACTED}; header was Bearer ${REDACTED}, again ${REDACTED}`,
    );
    assert.equal(scrubSecrets('nothing here', [undefined]), 'nothing here');
  });

  it('drops credentials from URLs', () => {
    assert.equal(redactUrl('http://u:p@127.0.0.1:8000/v1'), 'http://127.0.0.1:8000/v1');
    assert.equal(redactUrl('http://127.0.0.1:8000/v1'), 'http://127.0.0.1:8000/v1');
  });
});
