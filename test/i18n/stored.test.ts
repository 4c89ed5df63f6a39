/**
 * Messages stored in English (validity reasons, a sweep's stop and knee reasons) are shown in
 * the reader's language: matched against the English catalogue, filled in again with the same
 * values; a nested reason is translated too, and text that matches no entry is left as stored.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { translator } from '../../src/i18n/index.js';
import { translateStored } from '../../src/i18n/stored.js';

const en = translator('en');
const zh = translator('zh-CN');

test('a stored English reason reads in Chinese, nested reasons included', () => {
  const stop = en('exp.reason.stop.error_rate', { pct: '25.0', max: '5.0' });
  assert.equal(translateStored(stop, zh, ['exp.reason.']), '错误率 25.0% > 5.0%');
  const knee = en('exp.reason.knee.stop_rule', { reason: stop });
  assert.equal(translateStored(knee, zh, ['exp.reason.']), '下一档触发了停止规则：错误率 25.0% > 5.0%');
  const v = en('diagnose.validity.error_rate', { pct: '15.0', max: '5' });
  assert.equal(
    translateStored(v, zh, ['diagnose.validity.']),
    zh('diagnose.validity.error_rate', { pct: '15.0', max: '5' }),
  );
});

test('English readers, and text from no catalogue entry, get the text as stored', () => {
  const stop = en('exp.reason.stop.error_rate', { pct: '25.0', max: '5.0' });
  assert.equal(translateStored(stop, en, ['exp.reason.']), stop);
  assert.equal(translateStored('something else', zh, ['exp.reason.']), 'something else');
  // Only the named prefixes are searched.
  assert.equal(translateStored(stop, zh, ['diagnose.validity.']), stop);
});
