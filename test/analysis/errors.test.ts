/**
 * analysis/errors: grouping failed requests into top errors with hints, and the fail-fast rule,
 * as tables of cases.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  contextLimitOf,
  errorGroups,
  errorHint,
  FAIL_FAST_UNSENT,
  failFastClass,
  failFastReason,
  formatErrorGroup,
} from '../../src/analysis/errors.js';
import type { Outcome, RequestRecord } from '../../src/record/types.js';

type R = Pick<RequestRecord, 'outcome' | 'http_status' | 'error'>;
const http = (status: number, message: string): R => ({
  outcome: 'http_error',
  http_status: status,
  error: `HTTP ${status}: ${message}`,
});
const other = (outcome: Outcome, error: string | null = null): R => ({ outcome, http_status: null, error });
const times = (n: number, r: R): R[] => Array.from({ length: n }, () => ({ ...r }));

const VLLM_CTX =
  "This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (2000 in the messages, 100 in the completion). Please reduce the length of the messages or completion.";
const LLAMA_CTX = 'the request exceeds the available context size (1024 tokens), try increasing it';

describe('errorHint', () => {
  const cases: [string, R, RegExp | null][] = [
    [
      '401',
      http(401, 'Invalid or missing API key'),
      /set INFERENCE_API_KEY \(or name the variable with --api-key-env\)/,
    ],
    ['403', http(403, 'forbidden'), /INFERENCE_API_KEY/],
    [
      '404',
      http(404, 'The model `x` does not exist.'),
      /check --model \(GET \/v1\/models lists the served names\) and that --url ends in \/v1/,
    ],
    [
      '400 vLLM context',
      http(400, VLLM_CTX),
      /context limit is 2048 tokens: shorten --input-len\/--output-len or raise the server's max_model_len/,
    ],
    [
      '400 llama.cpp context',
      http(400, LLAMA_CTX),
      /^llama-server's per-slot context is 1024 tokens: shorten --input-len\/--output-len, or raise -c\/--ctx-size \(each of the -np\/--parallel slots/,
    ],
    ['400 other', http(400, 'temperature must be ≥ 0'), null],
    [
      '429',
      http(429, 'slow down'),
      /rate-limits: lower --rate\/--concurrency, or add --retries \(Retry-After is honoured\)/,
    ],
    ['500', http(500, 'boom'), null],
    [
      'ECONNREFUSED',
      other('connect_error', 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:8011'),
      /^is the server running on 127\.0\.0\.1:8011\?$/,
    ],
    ['other connect error', other('connect_error', 'ECONNRESET: socket hang up'), null],
    ['timeout', other('timeout', 'request exceeded 5000 ms (timeout)'), /raise --timeout, or lower the load/],
    ['fail-fast unsent', other('cancelled', `${FAIL_FAST_UNSENT}: 20 × HTTP 401: x`), /--no-fail-fast/],
    ['interrupted', other('cancelled', 'not sent: the run was interrupted'), null],
    ['stream error', other('stream_error', 'stream broken'), null],
  ];
  for (const [name, rec, want] of cases)
    test(name, () => {
      const h = errorHint(rec);
      if (want === null) assert.equal(h, null);
      else assert.match(h ?? '', want);
    });

  test('context limits in the wordings servers use', () => {
    assert.equal(contextLimitOf(VLLM_CTX), 2048);
    assert.equal(contextLimitOf(LLAMA_CTX), 1024);
    assert.equal(contextLimitOf('nothing here'), null);
    assert.equal(contextLimitOf(null), null);
  });
});

describe('errorGroups', () => {
  test('after a fail-fast stop, the errors that caused it come before the unsent requests', () => {
    const g = errorGroups([
      ...times(277, other('cancelled', `${FAIL_FAST_UNSENT}: 20 × HTTP 401: Invalid or missing API key`)),
      ...times(23, http(401, 'Invalid or missing API key')),
    ]);
    assert.deepEqual(
      g.map((x) => [x.count, x.outcome]),
      [
        [23, 'http_error'],
        [277, 'cancelled'],
      ],
    );
  });

  test('groups by class, status and normalised message; counts; top 5 by count then text', () => {
    const finals: R[] = [
      ...times(300, http(401, 'Invalid or missing API key')),
      // Context errors that differ only in the numbers requested: one group.
      http(400, VLLM_CTX),
      http(400, VLLM_CTX.replace('2100', '2200').replace('2000 in', '2100 in')),
      http(400, VLLM_CTX),
      ...times(2, other('timeout', 'request exceeded 5000 ms (timeout)')),
      ...times(2, http(500, 'boom')),
      http(503, 'busy'),
      http(502, 'bad gateway'),
      // Successes never appear.
      ...times(10, other('ok')),
      ...times(3, other('length')),
    ];
    const g = errorGroups(finals);
    assert.equal(g.length, 5);
    assert.deepEqual(
      g.map((x) => [x.count, x.outcome, x.http_status, x.message]),
      [
        [300, 'http_error', 401, 'HTTP 401: Invalid or missing API key'],
        [3, 'http_error', 400, `HTTP 400: ${VLLM_CTX}`],
        [2, 'http_error', 500, 'HTTP 500: boom'],
        [2, 'timeout', null, 'request exceeded 5000 ms (timeout)'],
        [1, 'http_error', 502, 'HTTP 502: bad gateway'],
      ],
    );
    assert.match(g[0].hint ?? '', /INFERENCE_API_KEY/);
    assert.match(g[1].hint ?? '', /2048 tokens/);
    assert.equal(formatErrorGroup(g[0]), '300 × HTTP 401: Invalid or missing API key');
  });

  test('the order does not depend on the order records ended', () => {
    const a: R[] = [http(500, 'b'), http(500, 'a'), other('timeout'), http(404, 'nf'), http(404, 'nf')];
    assert.deepEqual(errorGroups(a), errorGroups([...a].reverse()));
  });

  test('a record without a message is named by its outcome; nothing failed → empty', () => {
    assert.equal(errorGroups([other('no_content')])[0].message, 'no_content');
    assert.deepEqual(errorGroups([other('ok'), other('length')]), []);
    assert.deepEqual(errorGroups([]), []);
  });
});

describe('fail fast', () => {
  test('failFastClass: only failures no retry or less load can fix', () => {
    const cases: [R, string | null][] = [
      [http(401, 'x'), 'HTTP 401'],
      [http(403, 'x'), 'HTTP 403'],
      [http(404, 'x'), 'HTTP 404'],
      [http(400, VLLM_CTX), 'HTTP 400 (context length)'],
      [http(400, LLAMA_CTX), 'HTTP 400 (context length)'],
      [http(400, 'The model `llama` does not exist.'), 'HTTP 400 (model)'],
      [http(400, 'bad temperature'), null],
      [http(429, 'x'), null],
      [http(500, 'x'), null],
      [http(503, 'x'), null],
      [other('connect_error', 'ECONNREFUSED'), null],
      [other('timeout'), null],
      [other('stream_error'), null],
      [other('ok'), null],
    ];
    for (const [r, want] of cases) assert.equal(failFastClass(r), want, JSON.stringify(r));
  });

  const cases: [string, R[], number, string | null][] = [
    [
      '20 × 401 stops',
      times(20, http(401, 'Invalid or missing API key')),
      20,
      '20 × HTTP 401: Invalid or missing API key',
    ],
    ['19 seen of 20: wait', times(19, http(401, 'k')), 20, null],
    ['fewer planned: all of them', times(3, http(404, 'no such model')), 3, '3 × HTTP 404: no such model'],
    ['one success among them: go on', [...times(19, http(401, 'k')), other('ok')], 20, null],
    ['mixed classes: go on', [...times(10, http(401, 'k')), ...times(10, http(404, 'k'))], 20, null],
    ['429s are retryable: go on', times(20, http(429, 'slow')), 20, null],
    ['5xx: go on', times(20, http(503, 'busy')), 20, null],
    ['timeouts: go on', times(20, other('timeout')), 20, null],
    ['refused connections: go on', times(20, other('connect_error', 'ECONNREFUSED')), 20, null],
    [
      'context length, varying numbers: stops',
      [...times(10, http(400, VLLM_CTX)), ...times(10, http(400, VLLM_CTX.replace('2100', '2300')))],
      20,
      `20 × HTTP 400: ${VLLM_CTX}`,
    ],
    ['only the first `after` count', [...times(20, http(401, 'k')), other('ok')], 20, '20 × HTTP 401: k'],
    ['after 0: never', times(5, http(401, 'k')), 0, null],
  ];
  for (const [name, recs, after, want] of cases)
    test(`failFastReason: ${name}`, () => assert.equal(failFastReason(recs, after), want));
});
