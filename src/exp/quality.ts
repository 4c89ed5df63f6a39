/**
 * @module exp/quality
 * The A/B quality gate: a fixed set of sample prompts sent to both sides, and three checks on
 * the answers (content only, reasoning excluded): exact match against side A's answer or an
 * expected-answers file, a regular expression, and validity against a JSON schema. A faster
 * configuration with broken output (the simulator's `garble` fault, a bad quantisation) fails.
 *
 * Samples are sent greedy (temperature 0, non-streaming) whatever the experiment's generation
 * says: exact match only means something when decoding is deterministic. JSON schemas are
 * compiled with zod's `fromJSONSchema` (zod 4), which supports the common draft-2020-12 subset
 * (type, properties, required, items, enum, const, min/max, pattern, anyOf/oneOf/allOf).
 */
import { readFileSync } from 'node:fs';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { postCompletion, scrubSecrets } from '../client/index.js';
import { UsageError } from '../core/errors.js';
import type { RequestSpec } from '../workload/types.js';

/** What the quality client needs to reach one side. */
export interface QualityTarget {
  /** Base URL ending in /v1. */
  baseUrl: string;
  model: string;
  endpoint: 'chat' | 'completions';
  headers: Record<string, string>;
  /** Bearer token (never echoed: errors are scrubbed). */
  apiKey?: string;
  /** Merged into each body last (thinking switch, engine-specific fields). */
  extraBody?: Record<string, unknown>;
  maxTokens?: number | null;
  timeoutMs?: number;
  /** Reach the server through this undici dispatcher (the in-process simulator). */
  dispatcher?: Dispatcher;
}

/** One sample's answer. */
export interface QualityOutput {
  index: number;
  /** The answer's content (null when the request failed). */
  text: string | null;
  finish_reason: string | null;
  error: string | null;
}

/** One failed check. */
export interface QualityFailure {
  index: number;
  check: 'error' | 'exact' | 'regex' | 'json_schema';
  detail: string;
}

/** Quality of one side. */
export interface QualitySide {
  samples: number;
  /** Answers that came back (HTTP 200 with content). */
  successes: number;
  /** Answers cut at max_tokens (finish_reason `length`). */
  truncations: number;
  errors: number;
  exact_mismatches: number;
  regex_failures: number;
  schema_failures: number;
  /** Up to 10 failures, for the report. */
  failures: QualityFailure[];
  passed: boolean;
}

export interface QualityResult {
  samples: number;
  /** Checks applied: `exact:side-a`, `exact:file`, `regex`, `json_schema`. */
  checks: string[];
  a: QualitySide;
  b: QualitySide;
  /** Both sides passed every check. */
  passed: boolean;
}

/** The checks to apply, compiled. */
export interface QualityChecks {
  /** `side-a`, or the expected answers in sample order. */
  expected: 'side-a' | string[] | null;
  regex: RegExp | null;
  schema: z.ZodType | null;
}

/**
 * Compile the `ab.quality` section: read the expected-answers file (JSONL, `{"answer": …}` per
 * line) and the JSON schema (inline or a file path).
 * @throws UsageError listing every problem (unreadable file, bad line, unsupported schema).
 */
export function compileQualityChecks(q: {
  expected?: 'side-a' | { file: string };
  regex?: string;
  json_schema?: string | Record<string, unknown>;
}): QualityChecks {
  const problems: { path: string; message: string; hint: string }[] = [];
  let expected: QualityChecks['expected'] = null;
  if (q.expected === 'side-a') expected = 'side-a';
  else if (q.expected) {
    const path = q.expected.file;
    try {
      const lines = readFileSync(path, 'utf8').split('\n');
      expected = [];
      lines.forEach((line, i) => {
        if (!line.trim()) return;
        try {
          const v = JSON.parse(line) as { answer?: unknown };
          if (typeof v.answer !== 'string') throw new Error('no string "answer"');
          (expected as string[]).push(v.answer);
        } catch (e) {
          problems.push({
            path: `ab.quality.expected.file: ${path}:${i + 1}`,
            message: (e as Error).message,
            hint: 'one JSON object per line: {"answer": "…"}',
          });
        }
      });
    } catch (e) {
      problems.push({
        path: 'ab.quality.expected.file',
        message: `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        hint: 'give a JSONL file with {"answer": "…"} per line',
      });
    }
  }
  let schema: z.ZodType | null = null;
  if (q.json_schema !== undefined) {
    let raw: unknown = q.json_schema;
    if (typeof raw === 'string') {
      try {
        raw = JSON.parse(readFileSync(raw, 'utf8'));
      } catch (e) {
        problems.push({
          path: 'ab.quality.json_schema',
          message: `cannot read the JSON schema ${q.json_schema}: ${(e as Error).message}`,
          hint: 'give an inline schema object or the path of a .json file',
        });
        raw = undefined;
      }
    }
    if (raw !== undefined) {
      try {
        schema = z.fromJSONSchema(raw as Parameters<typeof z.fromJSONSchema>[0]);
      } catch (e) {
        problems.push({
          path: 'ab.quality.json_schema',
          message: `unsupported JSON schema: ${(e as Error).message}`,
          hint: 'use type, properties, required, items, enum, const, minimum/maximum, pattern',
        });
      }
    }
  }
  if (problems.length) throw new UsageError(problems);
  return { expected, regex: q.regex !== undefined ? new RegExp(q.regex) : null, schema };
}

/**
 * Send each sample once, sequentially, non-streaming and greedy; never rejects.
 * @param samples the fixed sample set (the same specs for both sides)
 */
export async function fetchQualityOutputs(
  t: QualityTarget,
  samples: readonly RequestSpec[],
  signal?: AbortSignal,
): Promise<QualityOutput[]> {
  const out: QualityOutput[] = [];
  for (const s of samples) {
    const body: Record<string, unknown> = { model: t.model, temperature: 0, stream: false };
    if (t.endpoint === 'chat') body.messages = s.messages ?? [{ role: 'user', content: s.prompt ?? '' }];
    else body.prompt = s.prompt ?? '';
    const maxTokens = s.output_len ?? t.maxTokens ?? null;
    if (maxTokens !== null) body.max_tokens = maxTokens;
    Object.assign(body, t.extraBody ?? {});
    // Forced after extraBody: exact match needs deterministic decoding.
    body.temperature = 0;
    body.stream = false;
    try {
      const res = await postCompletion(t.baseUrl, t.endpoint, body, {
        apiKey: t.apiKey,
        headers: t.headers,
        signal,
        timeoutMs: t.timeoutMs ?? 120_000,
        dispatcher: t.dispatcher,
      });
      if (res.status !== 200) {
        out.push({ index: s.index, text: null, finish_reason: null, error: `HTTP ${res.status}` });
        continue;
      }
      const j = JSON.parse(res.text) as {
        choices?: { message?: { content?: unknown }; text?: unknown; finish_reason?: unknown }[];
      };
      const c = j.choices?.[0];
      const content = t.endpoint === 'chat' ? c?.message?.content : c?.text;
      out.push({
        index: s.index,
        text: typeof content === 'string' ? content : null,
        finish_reason: typeof c?.finish_reason === 'string' ? c.finish_reason : null,
        error: typeof content === 'string' ? null : 'no content in the answer',
      });
    } catch (e) {
      out.push({
        index: s.index,
        text: null,
        finish_reason: null,
        error: scrubSecrets((e as Error).message, [t.apiKey]),
      });
    }
  }
  return out;
}

function judgeSide(
  outputs: readonly QualityOutput[],
  checks: QualityChecks,
  reference: readonly (string | null)[] | null,
): QualitySide {
  const side: QualitySide = {
    samples: outputs.length,
    successes: 0,
    truncations: 0,
    errors: 0,
    exact_mismatches: 0,
    regex_failures: 0,
    schema_failures: 0,
    failures: [],
    passed: true,
  };
  const fail = (f: QualityFailure) => {
    side.passed = false;
    if (side.failures.length < 10) side.failures.push(f);
  };
  outputs.forEach((o, i) => {
    if (o.text === null) {
      side.errors++;
      fail({ index: o.index, check: 'error', detail: o.error ?? 'no answer' });
      return;
    }
    side.successes++;
    if (o.finish_reason === 'length') side.truncations++;
    const ref = reference?.[i];
    if (reference && ref !== undefined && ref !== null && o.text !== ref) {
      side.exact_mismatches++;
      fail({
        index: o.index,
        check: 'exact',
        detail: `differs from the reference at char ${firstDiff(o.text, ref)}`,
      });
    }
    if (checks.regex && !checks.regex.test(o.text)) {
      side.regex_failures++;
      fail({ index: o.index, check: 'regex', detail: `does not match /${checks.regex.source}/` });
    }
    if (checks.schema) {
      let parsed: unknown;
      let why: string | null = null;
      try {
        parsed = JSON.parse(o.text);
        const r = checks.schema.safeParse(parsed);
        if (!r.success) why = r.error.issues[0]?.message ?? 'invalid';
      } catch {
        why = 'not JSON';
      }
      if (why) {
        side.schema_failures++;
        fail({ index: o.index, check: 'json_schema', detail: why });
      }
    }
  });
  return side;
}

function firstDiff(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * Judge both sides' answers. With `expected: side-a`, B is compared with A's answers (A is the
 * reference and is only judged by the other checks); with an expected-answers file, both sides
 * are compared with it.
 */
export function judgeQuality(
  a: readonly QualityOutput[],
  b: readonly QualityOutput[],
  checks: QualityChecks,
): QualityResult {
  const names: string[] = [];
  let refA: (string | null)[] | null = null;
  let refB: (string | null)[] | null = null;
  if (checks.expected === 'side-a') {
    names.push('exact:side-a');
    refB = a.map((o) => o.text);
  } else if (Array.isArray(checks.expected)) {
    names.push('exact:file');
    const exp = checks.expected;
    refA = a.map((_, i) => exp[i] ?? null);
    refB = b.map((_, i) => exp[i] ?? null);
  }
  if (checks.regex) names.push('regex');
  if (checks.schema) names.push('json_schema');
  const sa = judgeSide(a, checks, refA);
  const sb = judgeSide(b, checks, refB);
  return { samples: a.length, checks: names, a: sa, b: sb, passed: sa.passed && sb.passed };
}
