/**
 * `servelab exp init KIND --lang zh-CN` writes every comment in Chinese: no English word in a
 * comment outside the allowlist of `zh-console-allowlist.txt` (see english-words.ts) and the
 * file's own field names and values (a comment may name `max_num_seqs`, `colocated` or `gamma`). The English template is
 * unchanged, and the English catalogue's copies of the simulator settings' descriptions equal
 * their declarations.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { EXPERIMENT_KINDS, experimentTemplate } from '../../src/exp/index.js';
import { CATALOGUES } from '../../src/i18n/index.js';
import { BUILTIN_GPUS, BUILTIN_MODELS } from '../../src/sim/catalogue/index.js';
import { simSettingDescription, simSettingKeys, simSettingRequiredInFile } from '../../src/sim/settings.js';
import { englishWords } from './english-words.js';
import '../helpers/node-warnings.js';

/** A `#` segment that is commented-out YAML (`# tp: 1`, `#   url: …`, `# - 'ttft_ms.p99<500'`), not prose. */
const isYaml = (seg: string) => /^\s*(?:- |[\w-]+:(?:\s|$))/.test(seg);

/** The words a file uses as its own names: field names and values, set or commented out. */
function fileWords(text: string): Set<string> {
  const words = new Set<string>();
  const add = (s: string) => {
    for (const m of s.matchAll(/[A-Za-z]{2,}/g)) words.add(m[0].toLowerCase());
  };
  for (const line of text.split('\n')) {
    for (const seg of line.split('#'))
      if (!/[\u4e00-\u9fff]/.test(seg) && (isYaml(seg) || !line.trimStart().startsWith('#'))) add(seg);
    // the values a comment enumerates (`closed | open`, `constant | poisson | gamma`)
    for (const m of line.matchAll(/[\w.:()-]+(?:\s*\|\s*[\w.:()-]+)+/g)) add(m[0]);
  }
  return words;
}

/** The comment text of each line: every `#` segment that is not commented-out YAML. */
function comments(text: string): { line: string; prose: string }[] {
  const out: { line: string; prose: string }[] = [];
  for (const line of text.split('\n')) {
    const segs = line.split(/(?:^|\s)#(?=\s|$)/).slice(1);
    for (const seg of segs) if (!isYaml(seg)) out.push({ line, prose: seg });
  }
  return out;
}

describe('exp init --lang zh-CN', () => {
  for (const kind of EXPERIMENT_KINDS) {
    it(`${kind}: the comments are Chinese`, async () => {
      const io = memoryIo({});
      assert.equal(await main(['exp', 'init', kind, '--lang', 'zh-CN'], io), 0, io.err());
      const text = io.out();
      const own = fileWords(text);
      const names = [...Object.keys(BUILTIN_MODELS), ...Object.keys(BUILTIN_GPUS)];
      const found: string[] = [];
      for (const { line, prose } of comments(text)) {
        const words = englishWords(prose, names, own);
        if (words.length) found.push(`[${words.join(' ')}] in: ${line.trim()}`);
      }
      assert.deepEqual(found, [], `English words in ${kind}'s Chinese template:\n${found.join('\n')}`);
      // The same YAML as the English template: only the comments differ.
      const strip = (t: string) =>
        t
          .split('\n')
          .map((l) => l.replace(/\s*#.*$/, '').trimEnd())
          .filter(Boolean)
          .join('\n');
      assert.equal(strip(text), strip(experimentTemplate(kind)));
    });
  }

  it("the English catalogue's copies of the simulator settings' descriptions equal the declarations", () => {
    const en = CATALOGUES.en as Record<string, string>;
    const keys = simSettingKeys('file').filter((k) => !simSettingRequiredInFile(k));
    const stale = keys.filter((k) => en[`tpl.simopt.${k}`] !== simSettingDescription(k));
    assert.deepEqual(stale, [], 'copy the declaration (src/sim/settings.ts) into src/i18n/en/template.ts');
    const extra = Object.keys(en)
      .filter((k) => k.startsWith('tpl.simopt.'))
      .filter((k) => !(keys as string[]).includes(k.slice('tpl.simopt.'.length)));
    assert.deepEqual(extra, [], 'settings no longer declared');
  });
});
