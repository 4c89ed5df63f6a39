/**
 * The gate's fixed question set (src/workload/questions.ts) and the simulator's
 * `--answer-accuracy`: at least 50 questions with unique ids, a normaliser that accepts the
 * ways a model writes an answer and nothing else, and a simulator that answers from the set,
 * right at the rate the flag sets, deterministically, and keeps its pseudo-text without it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { startSimServer } from '../../src/sim/server/index.js';
import {
  isCorrect,
  normalizeAnswer,
  QUESTIONS,
  questionOf,
  questionPrompt,
  wrongAnswer,
} from '../../src/workload/questions.js';

test('the question set has at least 50 questions, unique ids, every kind, and answers in normal form', () => {
  assert.ok(QUESTIONS.length >= 50);
  assert.equal(new Set(QUESTIONS.map((q) => q.id)).size, QUESTIONS.length);
  assert.deepEqual([...new Set(QUESTIONS.map((q) => q.kind))].sort(), ['arithmetic', 'date', 'units']);
  for (const q of QUESTIONS) {
    assert.equal(normalizeAnswer(q.answer), q.answer, q.id);
    assert.equal(questionOf(questionPrompt(q)), q);
    for (let k = 0; k < 3; k++) assert.ok(!isCorrect(q, wrongAnswer(q, k)), `${q.id} wrong answer ${k}`);
  }
});

test('normalizeAnswer accepts the ways a model writes an answer', () => {
  const cases: [string, string][] = [
    ['**1,024.**', '1024'],
    ['The answer is 42.', '42'],
    ['Answer: Saturday', 'saturday'],
    ['Let me think.\n\n437', '437'],
    ['12.50', '12.5'],
    ['+7', '7'],
    ['"2024-01-04"', '2024-01-04'],
    ['-40', '-40'],
  ];
  for (const [text, want] of cases) assert.equal(normalizeAnswer(text), want, text);
  const q = QUESTIONS.find((x) => x.id === 'arith-1');
  assert.ok(q && isCorrect(q, ' 42') && !isCorrect(q, '4 2') && !isCorrect(q, null));
});

async function askAll(opts: { answerAccuracy?: number; seed?: number }) {
  const sim = await startSimServer({ model: 'llama-3.1-8b', gpu: 'h100', timeScale: 50, ...opts });
  try {
    const out: string[] = [];
    for (const q of QUESTIONS) {
      const res = await request(`${sim.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          messages: [{ role: 'user', content: questionPrompt(q) }],
          temperature: 0,
          max_tokens: 32,
        }),
      });
      const j = (await res.body.json()) as { choices: { message: { content: string } }[] };
      out.push(j.choices[0].message.content);
    }
    return out;
  } finally {
    await sim.close();
  }
}

const rightOf = (answers: string[]) => answers.filter((a, i) => isCorrect(QUESTIONS[i], a)).length;

test('the simulator answers from the set at the --answer-accuracy rate, seeded, and not without it', async () => {
  const all = await askAll({ answerAccuracy: 1 });
  assert.equal(rightOf(all), QUESTIONS.length);
  assert.equal(rightOf(await askAll({ answerAccuracy: 0 })), 0);
  const some = await askAll({ answerAccuracy: 0.6, seed: 3 });
  const n = rightOf(some);
  assert.ok(n > 0.4 * QUESTIONS.length && n < 0.8 * QUESTIONS.length, `${n} right`);
  assert.deepEqual(await askAll({ answerAccuracy: 0.6, seed: 3 }), some, 'the same seed answers the same');
  // Without the flag: the simulator's usual pseudo-text, which answers nothing.
  const plain = await askAll({});
  assert.equal(rightOf(plain), 0);
  assert.ok(plain.every((a) => a.split(' ').length > 2));
});
