/**
 * The source map (`report/source-map`): every diagnosis rule and every experiment kind has a row
 * in every engine, docs/source-map.md holds the table the rows generate, the simulator's rows
 * name files and exported symbols of this tree, and the write-up gets only the measured
 * engine's rows for the rules and kinds it has.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ALL_RULES } from '../../src/analysis/diagnose/rules/index.js';
import { EXPERIMENT_KINDS } from '../../src/exp/kinds/index.js';
import { translator } from '../../src/i18n/index.js';
import {
  SOURCE_ENGINES,
  SOURCE_OBJECTS,
  SOURCE_ROWS,
  sourceEngineOf,
  sourceMapMarkdown,
  sourceNotes,
  sourceUrl,
  THIS_TREE,
} from '../../src/report/source-map.js';
import { assertGeneratedSection } from '../helpers/generated-doc.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DOC = resolve(ROOT, 'docs', 'source-map.md');

/**
 * The rule ids the diagnosis can emit, read from its rules' source (one module per rule in
 * `analysis/diagnose/rules/`): every `rule: '…'` of a finding and
 * every `mk('…', …)` of the high-TTFT split. A new rule without source-map rows fails below.
 * An unexplained observation's `rule` (the check that saw it, for grouping) is not a finding's.
 */
function diagnosisRuleIds(): string[] {
  const dir = resolve(ROOT, 'src', 'analysis', 'diagnose', 'rules');
  const text = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(resolve(dir, f), 'utf8'))
    .join('\n')
    .replace(/unexplained\.push\(\{\s*rule: '[a-z_]+'/g, '');
  const ids = new Set<string>();
  for (const m of text.matchAll(/\brule: '([a-z_]+)'/g)) ids.add(m[1]);
  for (const m of text.matchAll(/\bmk\(\s*'([a-z_]+)'/g)) ids.add(m[1]);
  return [...ids].sort();
}

describe('source map', () => {
  const ruleIds = diagnosisRuleIds();

  it('reads the rule ids from the diagnosis (so the coverage check below has something to check)', () => {
    for (const id of [
      'cold_start',
      'high_ttft_queueing',
      'high_ttft_frontend',
      'stall_preemption',
      'truncation',
    ])
      assert.ok(ruleIds.includes(id), `${id} in ${ruleIds.join(', ')}`);
  });

  it("the registry's rules declare exactly the finding ids their source emits", () => {
    assert.deepEqual([...new Set(ALL_RULES.flatMap((r) => r.emits))].sort(), ruleIds);
  });

  it('has, for every engine, a row for every diagnosis rule and every experiment kind', () => {
    const missing: string[] = [];
    for (const engine of SOURCE_ENGINES) {
      const rows = SOURCE_ROWS.filter((r) => r.engine === engine);
      for (const id of ruleIds)
        if (!rows.some((r) => r.rules.includes(id))) missing.push(`${engine}: rule ${id}`);
      for (const kind of EXPERIMENT_KINDS)
        if (!rows.some((r) => r.kinds.includes(kind))) missing.push(`${engine}: kind ${kind}`);
    }
    assert.deepEqual(missing, []);
  });

  it('names only real rules and kinds, and every object has a row in every engine', () => {
    const kinds = new Set<string>(EXPERIMENT_KINDS);
    const bad: string[] = [];
    for (const r of SOURCE_ROWS) {
      for (const id of r.rules) if (!ruleIds.includes(id)) bad.push(`${r.engine} ${r.symbol}: rule ${id}`);
      for (const k of r.kinds) if (!kinds.has(k)) bad.push(`${r.engine} ${r.symbol}: kind ${k}`);
      if (r.rules.length + r.kinds.length === 0) bad.push(`${r.engine} ${r.symbol}: explains nothing`);
    }
    for (const engine of SOURCE_ENGINES)
      for (const object of SOURCE_OBJECTS)
        if (!SOURCE_ROWS.some((r) => r.engine === engine && r.object === object))
          bad.push(`${engine}: no ${object}`);
    assert.deepEqual(bad, []);
  });

  it('gives each engine row the commit it was checked at, and each simulator row this tree', () => {
    for (const r of SOURCE_ROWS) {
      if (r.engine === 'servelab-sim') assert.equal(r.version, THIS_TREE, r.symbol);
      else assert.match(r.version, /^[0-9a-f]{40}$/, `${r.engine} ${r.symbol}`);
    }
  });

  it("points the simulator's rows at files and exported symbols of this tree", () => {
    const bad: string[] = [];
    for (const r of SOURCE_ROWS.filter((x) => x.engine === 'servelab-sim')) {
      const file = resolve(ROOT, r.path);
      if (!existsSync(file)) {
        bad.push(`${r.path}: no such file`);
        continue;
      }
      const text = readFileSync(file, 'utf8');
      const [name, method] = r.symbol.split('.');
      const decl = new RegExp(
        `^export (?:async )?(?:abstract )?(?:class|function|const) ${name}\\b`,
        'm',
      ).exec(text);
      if (!decl) {
        bad.push(`${r.path}: ${name} is not exported`);
        continue;
      }
      // The method must be defined in the class body (from its declaration to the next export).
      const next = text.indexOf('\nexport ', decl.index + 1);
      const body = text.slice(decl.index, next < 0 ? undefined : next);
      if (
        method &&
        !new RegExp(`^\\s+(?:(?:private|public|static|async|readonly)\\s+)*${method}\\s*\\(`, 'm').test(body)
      )
        bad.push(`${r.path}: ${name} has no method ${method}`);
    }
    assert.deepEqual(bad, []);
  });

  it('docs/source-map.md holds the table the rows generate, with every row path in it', () => {
    const doc = assertGeneratedSection(
      DOC,
      'source-map',
      sourceMapMarkdown(translator('en')),
      import.meta.filename,
    );
    for (const r of SOURCE_ROWS) {
      assert.ok(doc.includes(`[\`${r.path}\`](${sourceUrl(r)})`), `${r.path} is in the doc table`);
      assert.ok(doc.includes(`\`${r.symbol}\``), `${r.symbol} is in the doc table`);
    }
  });

  it('links engine rows to GitHub at their commit and simulator rows into this repository', () => {
    const v = SOURCE_ROWS.find((r) => r.engine === 'vllm' && r.symbol === 'Scheduler.schedule');
    assert.ok(v);
    assert.equal(
      sourceUrl(v),
      `https://github.com/vllm-project/vllm/blob/${v.version}/vllm/v1/core/sched/scheduler.py`,
    );
    const s = SOURCE_ROWS.find((r) => r.engine === 'servelab-sim' && r.symbol === 'EngineCore');
    assert.ok(s);
    assert.equal(sourceUrl(s), '../src/sim/engine/engine.ts');
    assert.equal(sourceUrl(s, '.'), 'src/sim/engine/engine.ts');
    assert.equal(sourceUrl(s, 'out/write-ups'), '../../src/sim/engine/engine.ts');
  });

  it('writes each row note in English and Chinese', () => {
    const en = translator('en');
    const zh = translator('zh-CN');
    for (const r of SOURCE_ROWS) {
      assert.notEqual(en(r.note_key), r.note_key, r.note_key);
      assert.match(zh(r.note_key), /[\u4e00-\u9fff]/, r.note_key);
    }
  });
});

describe('sourceNotes', () => {
  it('gives only the measured engine rows that explain the given rules or kinds', () => {
    const rows = sourceNotes('vllm', ['stall_preemption'], []);
    assert.ok(rows.length > 0);
    for (const r of rows) {
      assert.equal(r.engine, 'vllm');
      assert.ok(r.rules.includes('stall_preemption'), r.symbol);
    }
    assert.ok(rows.some((r) => r.symbol === 'Scheduler._preempt_request'));
    // Every vLLM row with that rule, and no other.
    assert.equal(
      rows.length,
      SOURCE_ROWS.filter((r) => r.engine === 'vllm' && r.rules.includes('stall_preemption')).length,
    );
  });

  it('takes kinds as well as rules, and orders rows by the course objects', () => {
    const rows = sourceNotes('sglang', ['truncation'], ['prefix-cache']);
    assert.ok(rows.some((r) => r.symbol === 'RadixCache.match_prefix'));
    assert.ok(rows.some((r) => r.symbol === 'Req.check_finished'));
    const order = rows.map((r) => SOURCE_OBJECTS.indexOf(r.object));
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
    );
    assert.deepEqual(sourceNotes('sglang', [], []), []);
  });

  it("maps the engine names servelab writes (check's EngineGuess, the scrape's kind, a record's name)", () => {
    assert.equal(sourceEngineOf('llamacpp'), 'llamacpp');
    assert.equal(sourceEngineOf('llama.cpp'), 'llamacpp');
    assert.equal(sourceEngineOf('servelab-sim'), 'servelab-sim');
    assert.equal(sourceEngineOf('sim'), 'servelab-sim');
    assert.equal(sourceEngineOf('SGLang'), 'sglang');
    assert.equal(sourceEngineOf('vllm-v0'), null);
    assert.equal(sourceEngineOf('unknown'), null);
    assert.equal(sourceEngineOf(undefined), null);
    const llama = sourceNotes('llama.cpp', ['kv_pressure'], []);
    assert.ok(llama.length > 0 && llama.every((r) => r.engine === 'llamacpp'));
    assert.ok(sourceNotes('sim', ['cold_start'], []).every((r) => r.engine === 'servelab-sim'));
    assert.deepEqual(sourceNotes('unknown', ['kv_pressure'], ['baseline']), []);
  });
});
