import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATALOGUES, LANGS, placeholders, resolveLang, translator } from '../../src/i18n/index.js';

test('every catalogue has every key of every other, with the same placeholders, none empty', () => {
  const keys = new Set(LANGS.flatMap((l) => Object.keys(CATALOGUES[l])));
  const problems: string[] = [];
  for (const key of keys) {
    const en = (CATALOGUES.en as Record<string, string>)[key];
    for (const lang of LANGS) {
      const msg = (CATALOGUES[lang] as Record<string, string>)[key];
      if (msg === undefined) problems.push(`${lang}: missing ${key}`);
      else if (msg.trim() === '') problems.push(`${lang}: empty ${key}`);
      else if (en !== undefined && placeholders(msg).join() !== placeholders(en).join())
        problems.push(`${lang}: ${key} has {${placeholders(msg)}} but en has {${placeholders(en)}}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('the Chinese catalogue is Chinese: most of its messages contain CJK characters', () => {
  const msgs = Object.values(CATALOGUES['zh-CN']);
  const cjk = msgs.filter((m) => /[\u4e00-\u9fff]/.test(m)).length;
  assert.ok(cjk / msgs.length > 0.8, `${cjk} of ${msgs.length} zh-CN messages contain Chinese`);
});

test('the language comes from --lang, else LC_ALL, LC_MESSAGES, LANG, else English', () => {
  const rows: [string | undefined, Record<string, string>, string][] = [
    [undefined, {}, 'en'],
    ['zh-CN', {}, 'zh-CN'],
    ['zh', { LANG: 'en_US.UTF-8' }, 'zh-CN'],
    ['en', { LANG: 'zh_CN.UTF-8' }, 'en'],
    [undefined, { LANG: 'zh_CN.UTF-8' }, 'zh-CN'],
    [undefined, { LC_ALL: 'C', LANG: 'zh_CN.UTF-8' }, 'en'],
    [undefined, { LC_ALL: '', LC_MESSAGES: 'zh_CN', LANG: 'en_US' }, 'zh-CN'],
    [undefined, { LANG: 'de_DE.UTF-8' }, 'en'],
  ];
  for (const [flag, env, want] of rows)
    assert.equal(resolveLang(flag, env), want, `${flag} ${JSON.stringify(env)}`);
});

test('placeholders are filled, and a missing value stays visible', () => {
  const t = translator('zh-CN');
  assert.equal(t('common.lang.unknown', { value: 'fr' }), '未知语言 "fr"');
  assert.equal(translator('en')('common.lang.unknown'), 'unknown language "{value}"');
  assert.equal(t.lang, 'zh-CN');
});
