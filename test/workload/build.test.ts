import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { approximatePieces, approximateTokenizer } from '../../src/tokenizer/index.js';
import { buildWorkload } from '../../src/workload/build.js';
import { type WorkloadOptions, workloadProblems } from '../../src/workload/options.js';

/** A reader over in-memory files. */
const files =
  (map: Record<string, string>) =>
  async (path: string): Promise<string> => {
    if (path in map) return map[path];
    throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  };

const approxCount = (s: string) => approximatePieces(s).length;
/** No shipped tokenizer for this model name, so the approximation is used. */
const MODEL = 'some-model';

async function usageProblems(
  p: Promise<unknown>,
): Promise<{ path?: string; message: string; hint?: string }[]> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof UsageError, String(e));
    return e.problems;
  }
  assert.fail('expected a UsageError');
}

describe('buildWorkload: validation', () => {
  it('lists every option problem at once, each with a hint', async () => {
    const opts: WorkloadOptions = {
      seed: 1.5,
      count: 0,
      prompt: 'x',
      inputLen: 'uniform:9-3',
      outputLen: 'lots',
      sharedPrefixLen: 0,
      numPrefixGroups: -1,
    };
    const problems = await usageProblems(buildWorkload(opts));
    const paths = problems.map((p) => p.path ?? '');
    for (const want of [
      '',
      '--seed',
      '--requests',
      '--input-len',
      '--output-len',
      '--shared-prefix-len',
      '--num-prefix-groups',
    ])
      assert.ok(paths.includes(want), `missing problem for ${want || 'source'}: ${paths}`);
    assert.ok(
      problems.every((p) => p.hint),
      'every problem has a hint',
    );
    assert.deepEqual(workloadProblems(opts), problems);
  });

  it('needs a source, and a prefix shorter than the input length', async () => {
    assert.match((await usageProblems(buildWorkload({ seed: 1, count: 1 })))[0].message, /no prompt source/);
    const p = workloadProblems({ seed: 1, count: 1, inputLen: 'uniform:100-300', sharedPrefixLen: 100 });
    assert.equal(p.length, 1);
    assert.match(p[0].message, /shorter than every input length/);
    assert.equal(
      workloadProblems({ seed: 1, count: 1, inputLen: 'normal:300,200', sharedPrefixLen: 100 }).length,
      0,
    );
    assert.match(
      workloadProblems({ seed: 1, count: 1, numPrefixGroups: 2, inputLen: 10 })[0].message,
      /prefix length/,
    );
    assert.match(
      workloadProblems({ seed: 1, count: 1, prompt: 'a', sharedPrefixLen: 4 })[0].message,
      /synthetic/,
    );
    assert.match(
      workloadProblems({ seed: 1, count: 1, dataset: { kind: 'alpaca', path: 'x' } })[0].hint!,
      /sharegpt/,
    );
  });

  it('reports a missing file and every bad line of a prompts file together with option problems', async () => {
    const missing = await usageProblems(
      buildWorkload({ seed: 1, count: 2, promptsFile: 'nope.jsonl' }, { readText: files({}) }),
    );
    assert.deepEqual(
      missing.map((p) => [p.path, p.message]),
      [['nope.jsonl', 'no such file']],
    );
    const readText = files({ 'p.jsonl': '{"prompt":"a"}\n{bad\n{"output_len":2}\n' });
    const problems = await usageProblems(
      buildWorkload({ seed: 1, count: 2, promptsFile: 'p.jsonl', outputLen: 'x' }, { readText }),
    );
    assert.deepEqual(
      problems.map((p) => p.path),
      ['--output-len', 'p.jsonl:2', 'p.jsonl:3'],
    );
  });
});

describe('buildWorkload: prompt sources', () => {
  it('--prompt: every request the same text; --output-len sampled per request', async () => {
    const w = await buildWorkload({ seed: 3, count: 4, prompt: 'Hello there', outputLen: 'uniform:10-20' });
    assert.equal(w.source, 'prompt');
    assert.equal(w.method, 'none');
    assert.equal(w.specs.length, 4);
    assert.deepEqual(
      w.specs.map((s) => [s.index, s.prompt, s.input_len]),
      [0, 1, 2, 3].map((i) => [i, 'Hello there', null]),
    );
    assert.ok(w.specs.every((s) => s.output_len! >= 10 && s.output_len! <= 20));
    const again = await buildWorkload({
      seed: 3,
      count: 4,
      prompt: 'Hello there',
      outputLen: 'uniform:10-20',
    });
    assert.deepEqual(again.specs, w.specs);
  });

  it('--prompts: cycles through the file; per-line output_len unless --output-len overrides', async () => {
    const readText = files({
      'p.jsonl': '{"prompt":"a","output_len":5}\n{"messages":[{"role":"user","content":"b"}]}\n',
    });
    const w = await buildWorkload({ seed: 1, count: 5, promptsFile: 'p.jsonl' }, { readText });
    assert.deepEqual(
      w.specs.map((s) => [s.prompt ?? s.messages?.[0].content, s.output_len]),
      [
        ['a', 5],
        ['b', null],
        ['a', 5],
        ['b', null],
        ['a', 5],
      ],
    );
    assert.equal(w.notes.length, 1);
    const o = await buildWorkload({ seed: 1, count: 2, promptsFile: 'p.jsonl', outputLen: 9 }, { readText });
    assert.deepEqual(
      o.specs.map((s) => s.output_len),
      [9, 9],
    );
  });

  it('synthetic: token-exact prompts under the approximation, reproducible from the seed', async () => {
    const opts: WorkloadOptions = {
      seed: 11,
      count: 40,
      inputLen: 'uniform:1-300',
      outputLen: 'normal:50,10',
      model: MODEL,
    };
    const w = await buildWorkload(opts);
    assert.equal(w.method, 'approximate');
    assert.equal(w.source, 'synthetic');
    assert.equal(w.inexact, 0);
    // The fallback says why, where the run prints its tokenization.
    assert.match(
      w.notes[0],
      /prompt lengths are approximate: no offline tokenizer for model .*no server \/tokenize to ask/,
    );
    const silent = await buildWorkload(opts, { tokenizeRemote: async () => null });
    assert.match(silent.notes[0], /the server's \/tokenize did not answer/);
    const constant = await buildWorkload(opts, { tokenizeRemote: async () => 3 });
    assert.match(constant.notes[0], /did not count \(3 then 3 tokens/);
    for (const s of w.specs) {
      assert.equal(approxCount(s.prompt!), s.input_len, s.prompt);
      assert.equal(approximateTokenizer.encode(s.prompt!).length, s.input_len);
      assert.ok(s.output_len! >= 1);
    }
    assert.equal(new Set(w.specs.map((s) => s.prompt)).size, w.specs.length, 'every prompt differs');
    assert.deepEqual((await buildWorkload(opts)).specs, w.specs);
    const other = await buildWorkload({ ...opts, seed: 12 });
    assert.notDeepEqual(other.specs, w.specs);
    // A longer run keeps the first requests' text: each request has its own stream.
    const longer = await buildWorkload({ ...opts, count: 50 });
    assert.deepEqual(longer.specs.slice(0, 40), w.specs);
  });

  it('synthetic: a word that overshoots is closed with one-token fillers', async () => {
    // A counter that charges 4 tokens for every word after the 5th: the search must stop at 5
    // words and fill the rest exactly with fillers of one token each.
    const counts: string[] = [];
    const w = await buildWorkload(
      { seed: 2, count: 1, inputLen: 8, model: MODEL },
      {
        tokenizeRemote: async (text) => {
          counts.push(text);
          const words = text.split(' ').filter(Boolean);
          const fillers = words.filter((x) => x === 'a').length;
          const real = words.length - fillers;
          return Math.min(real, 5) + 4 * Math.max(0, real - 5) + fillers;
        },
      },
    );
    assert.equal(w.method, 'server_tokenize');
    assert.equal(w.inexact, 0);
    assert.equal(w.specs[0].prompt!.split(' ').length, 8);
    assert.match(w.specs[0].prompt!, / a a a$/);
  });

  it('shared prefixes: identical within a group, different from the first token across groups', async () => {
    const opts: WorkloadOptions = {
      seed: 5,
      count: 60,
      inputLen: 'uniform:70-120',
      sharedPrefixLen: 64,
      numPrefixGroups: 4,
      model: MODEL,
    };
    const w = await buildWorkload(opts);
    const byGroup = new Map<number, string[]>();
    for (const s of w.specs) {
      assert.equal(approxCount(s.prompt!), s.input_len);
      byGroup.set(s.prefix_group!, [...(byGroup.get(s.prefix_group!) ?? []), s.prompt!]);
    }
    assert.deepEqual([...byGroup.keys()].sort(), [0, 1, 2, 3]);
    assert.deepEqual(
      [...byGroup.values()].map((v) => v.length),
      [15, 15, 15, 15],
    );
    const prefixIds: number[][] = [];
    for (const prompts of byGroup.values()) {
      const ids = prompts.map((p) => approximateTokenizer.encode(p));
      for (const x of ids)
        assert.deepEqual(x.slice(0, 64), ids[0].slice(0, 64), 'same 64-token prefix in a group');
      // The unique parts differ right after the prefix.
      assert.equal(new Set(ids.map((x) => x.slice(64, 80).join())).size, ids.length);
      prefixIds.push(ids[0].slice(0, 64));
    }
    assert.equal(new Set(prefixIds.map((x) => x[0])).size, 4, 'groups differ in the first token');
    // Prefix text depends only on the seed and group: another run with more requests shares it.
    const w2 = await buildWorkload({ ...opts, count: 8, inputLen: 200 });
    const prefixOf = (s: { prompt?: string }) =>
      approximateTokenizer.decode(approximateTokenizer.encode(s.prompt!).slice(0, 64));
    const first = new Map(w.specs.map((s) => [s.prefix_group, prefixOf(s)]));
    for (const s of w2.specs) assert.equal(prefixOf(s), first.get(s.prefix_group));
  });

  it('prefix groups never share their leading tokens, even with more groups than vocabulary words', async () => {
    // By chance alone, 60 groups drawing first words from a few hundred would collide almost surely.
    for (const [groups, lead] of [
      [60, 1],
      [700, 2],
    ] as const) {
      const w = await buildWorkload({
        seed: 8,
        count: groups,
        inputLen: 4,
        sharedPrefixLen: 3,
        numPrefixGroups: groups,
      });
      const heads = new Map<number, string>();
      for (const s of w.specs)
        heads.set(s.prefix_group!, approximateTokenizer.encode(s.prompt!).slice(0, lead).join());
      assert.equal(heads.size, groups);
      assert.equal(new Set(heads.values()).size, groups, `${groups} groups: distinct first ${lead} token(s)`);
    }
  });

  it('ShareGPT: counts tokens, skips too-short entries like vLLM, takes output_len from the reply', async () => {
    const long = 'please explain how a large language model serves many requests at once';
    const reply = 'it batches the requests and runs one decode step for all of them together';
    const data = [
      {
        conversations: [
          { from: 'human', value: long },
          { from: 'gpt', value: reply },
        ],
      },
      {
        conversations: [
          { from: 'human', value: 'hi' },
          { from: 'gpt', value: reply },
        ],
      }, // prompt < 4 tokens
      {
        conversations: [
          { from: 'human', value: long + ' twice' },
          { from: 'gpt', value: 'ok' },
        ],
      }, // reply < 4 tokens
      { conversations: [{ from: 'human', value: long + ' again' }] }, // malformed
    ];
    const readText = files({ 's.json': JSON.stringify(data) });
    const w = await buildWorkload(
      { seed: 1, count: 3, dataset: { kind: 'sharegpt', path: 's.json' }, model: MODEL },
      { readText },
    );
    assert.equal(w.source, 'sharegpt');
    assert.equal(w.method, 'approximate');
    assert.equal(w.skipped, 3);
    assert.deepEqual(
      w.specs.map((s) => [s.prompt, s.input_len, s.output_len]),
      [0, 1, 2].map(() => [long, approxCount(long), approxCount(reply)]),
    );
    // --output-len overrides the reply length, so the short-reply entry is usable too.
    const o = await buildWorkload(
      { seed: 1, count: 2, dataset: { kind: 'sharegpt', path: 's.json' }, outputLen: 32, model: MODEL },
      { readText },
    );
    assert.deepEqual(new Set(o.specs.map((s) => s.prompt)), new Set([long, long + ' twice']));
    assert.ok(o.specs.every((s) => s.output_len === 32));
    const tooShort = files({ 't.json': JSON.stringify([data[1]]) });
    const p = await usageProblems(
      buildWorkload(
        { seed: 1, count: 1, dataset: { kind: 'sharegpt', path: 't.json' } },
        { readText: tooShort },
      ),
    );
    assert.match(p[0].message, /too short/);
  });

  it('trace: timestamps kept, input_len lines made token-exact, text lines sent as they are', async () => {
    const readText = files({
      't.jsonl': [
        '{"timestamp_ms":1000,"input_len":30,"output_len":4}',
        '{"timestamp_ms":1500,"prompt":"hello","output_len":2}',
        '{"timestamp_ms":2500,"messages":[{"role":"user","content":"hey"}],"output_len":3}',
      ].join('\n'),
    });
    const w = await buildWorkload({ seed: 1, trace: 't.jsonl', model: MODEL }, { readText });
    assert.equal(w.source, 'trace');
    assert.equal(w.method, 'approximate');
    assert.deepEqual(
      w.specs.map((s) => [s.timestamp_ms, s.input_len, s.output_len]),
      [
        [1000, 30, 4],
        [1500, null, 2],
        [2500, null, 3],
      ],
    );
    assert.equal(approxCount(w.specs[0].prompt!), 30);
    assert.equal(w.specs[1].prompt, 'hello');
    assert.equal(w.specs[2].messages![0].content, 'hey');
    const firstTwo = await buildWorkload({ seed: 1, trace: 't.jsonl', count: 2 }, { readText });
    assert.equal(firstTwo.specs.length, 2);
    const tooMany = await usageProblems(buildWorkload({ seed: 1, trace: 't.jsonl', count: 4 }, { readText }));
    assert.equal(tooMany[0].path, '--requests');
    const textOnly = files({ 'x.jsonl': '{"timestamp_ms":0,"prompt":"a"}' });
    assert.equal((await buildWorkload({ seed: 1, trace: 'x.jsonl' }, { readText: textOnly })).method, 'none');
  });
});
