/**
 * @module test/core/url
 * The base-URL helpers every command shares: credentials never survive, the server root sits
 * next to /v1, and none of them throws on text that is not a URL (a bad `--url` must become a
 * problem with a hint, never a stack trace).
 */
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { describe, it } from 'node:test';
import { hostOf, isLocalUrl, redactUrl, serverRoot } from '../../src/core/url.js';

describe('core/url', () => {
  it('redactUrl hides keys passed in the query string', () => {
    assert.equal(redactUrl('http://h:1/v1?api_key=sk-1&x=2'), 'http://h:1/v1?api_key=%5Bredacted%5D&x=2');
    assert.equal(redactUrl('https://h/metrics?token=abc'), 'https://h/metrics?token=%5Bredacted%5D');
    assert.equal(redactUrl('http://h/v1?model=m'), 'http://h/v1?model=m');
  });

  it('redactUrl drops user:password and keeps the trailing slash as written', () => {
    assert.equal(redactUrl('http://u:p@h:1/metrics'), 'http://h:1/metrics');
    assert.equal(redactUrl('http://u:p@h:1'), 'http://h:1');
    assert.equal(redactUrl('http://h:1/v1/'), 'http://h:1/v1/');
    assert.equal(redactUrl('http://u:p@bad host:1/v1'), 'http://bad host:1/v1');
    assert.equal(redactUrl('u:p@bad host/v1'), 'bad host/v1');
  });

  it('serverRoot strips /v1, slashes, credentials, query and fragment, and never throws', () => {
    assert.equal(serverRoot('http://user:pw@h:8000/v1/'), 'http://h:8000');
    assert.equal(serverRoot('http://h:8000/v1?x=1#f'), 'http://h:8000');
    assert.equal(serverRoot('http://h:30000'), 'http://h:30000');
    assert.equal(serverRoot('https://api.example.com/openai/v1'), 'https://api.example.com/openai');
    assert.equal(serverRoot('http://user:pw@bad host:8000/v1/'), 'http://bad host:8000');
    assert.equal(serverRoot('user:pw@h:8000/v1?x=1'), 'h:8000');
  });

  it('hostOf names host:port, or the text itself', () => {
    assert.equal(hostOf('http://u:p@127.0.0.1:8000/v1'), '127.0.0.1:8000');
    assert.equal(hostOf('nonsense'), 'nonsense');
    assert.equal(hostOf('u:p@localhost:8000/v1'), 'localhost:8000/v1');
  });

  it('isLocalUrl: loopback, 0.0.0.0 and this host are local; other hosts and non-URLs are not', () => {
    for (const u of [
      'http://127.0.0.1:8000/v1',
      'http://localhost:8000',
      'http://[::1]:8000',
      'http://0.0.0.0:1',
    ])
      assert.equal(isLocalUrl(u), true, u);
    assert.equal(isLocalUrl(`http://${hostname()}:8000/v1`), true);
    assert.equal(isLocalUrl('http://gpu-node-17.invalid:8000/v1'), false);
    assert.equal(isLocalUrl('not a url'), false);
  });
});
