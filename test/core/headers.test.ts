/**
 * @module test/core/headers
 * One rule for a target's request headers: lower-case names, the key as a Bearer token, and a
 * user-given Authorization winning, as the load client sends them.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { targetHeaders } from '../../src/core/headers.js';

it('targetHeaders lower-cases names, adds the key, and lets a given Authorization win', () => {
  assert.deepEqual(targetHeaders('k', { 'X-Team': 'a' }), { authorization: 'Bearer k', 'x-team': 'a' });
  assert.deepEqual(targetHeaders(undefined), {});
  assert.deepEqual(targetHeaders('k', { Authorization: 'Basic x' }), { authorization: 'Basic x' });
});
