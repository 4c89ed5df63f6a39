/**
 * The approximation's pieces (src/tokenizer): letters in runs of at most 6, CJK characters in
 * pairs, digits alone, other symbols in runs, and identical text gives identical ids.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approximatePieces, approximateTokenizer } from '../../src/tokenizer/index.js';

describe('approximatePieces', () => {
  const cases: [string, string[]][] = [
    ['Hello world', ['Hello', ' world']],
    [' internationalization', [' intern', 'ationa', 'lizati', 'on']],
    ['abc 123', ['abc', ' 1', '2', '3']],
    ['推理引擎的调度器', ['推理', '引擎', '的调', '度器']],
    ['什么是KV缓存？', ['什么', '是', 'KV', '缓存', '？']],
    ['ok, 中文', ['ok', ',', ' ', '中文']],
    ['かなカナ한글', ['かな', 'カナ', '한글']],
  ];
  for (const [text, pieces] of cases)
    it(JSON.stringify(text), () => {
      assert.deepEqual(approximatePieces(text), pieces);
      assert.equal(approximatePieces(text).join(''), text, 'the pieces cover the text');
    });

  it('a Chinese sentence counts about one piece per two characters, not one per run', () => {
    const text = '当三十二位同事同时提问时，一块显卡上的推理服务会怎样排队？';
    const n = approximateTokenizer.encode(text).length;
    assert.ok(n >= text.length / 2 && n <= text.length / 2 + 3, `${n} pieces for ${text.length} characters`);
  });
});
