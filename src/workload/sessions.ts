/**
 * @module workload/sessions
 * Multi-turn sessions: what each simulated user asks, turn by turn, and which shared document
 * its conversation starts with. Everything here is decided before the run, from the seed: the
 * number of turns of each session, each question's text (token-exact, `--input-len`), each
 * answer's length (`--output-len`, sent as max_tokens), the think time after each answer, and
 * the document each session picks (Zipf over `--documents`). What the server answers is only
 * known during the run, so the runner (`runner/loops`) carries the history from turn to turn.
 *
 * Streams are per session (`session s` for its turns, questions, lengths, think times and
 * document), so adding users leaves the first sessions' content unchanged.
 */
import type { Problem } from '../core/errors.js';
import { translator } from '../i18n/index.js';
import type { Rng } from '../runtime/rng.js';
import { fitText, type TokenCounter, WordStream } from './exact.js';
import { type LengthDist, parseLengthDist } from './lengths.js';
import { COUNT_CONCURRENCY, mapLimit, streamRng } from './streams.js';
import type { ChatMessage, RequestSpec } from './types.js';
import { VOCAB } from './vocab.js';

const EN = translator('en');

/** The session options, as the flags (`--users`, `--turns`, …) or an experiment file give them. */
export interface SessionOptions {
  /** `--users N`: sessions, one per user (≥ 1). */
  users: number;
  /** `--turns DIST`: turns per session (integer ≥ 1). */
  turns: string | number | LengthDist;
  /** `--think-time DIST`: seconds from receiving an answer to sending the next turn (≥ 0). */
  thinkTime: string | number | LengthDist;
  /** `--documents D`: distinct shared documents (0 or absent: none). */
  documents?: number;
  /** `--doc-len DIST`: tokens per document (with `documents`). */
  docLen?: string | number | LengthDist;
  /** `--doc-popularity zipf:S`: how sessions pick documents (default `zipf:1`; `zipf:0` is uniform). */
  docPopularity?: string;
  /**
   * Seed of the documents alone (default: the workload's seed). Replications of a level (the
   * `team-assistant` kind's `min_turns`) draw new sessions over the same documents with it.
   */
  documentSeed?: number;
}

/** One planned turn: the question (a one-message `messages`), its answer length, and the think after it. */
export interface PlannedTurn {
  /** `messages` holds the question only; the runner puts the document and the history before it. */
  spec: RequestSpec;
  /** Think time after this turn's answer, before the next turn is sent (seconds, ≥ 0). */
  think_s: number;
}

/** One planned session (one user). */
export interface PlannedSession {
  /** `s{index}`: the value of the session header, and the records' `session_id`. */
  id: string;
  index: number;
  /** The document this session's turns start with (index into `documents`), or null. */
  document: number | null;
  turns: PlannedTurn[];
}

/** A built session workload. */
export interface SessionWorkload {
  sessions: PlannedSession[];
  /** The shared documents (a system message each), token-exact. */
  documents: { text: string; tokens: number }[];
  /** The prefix sharing the plan intends ({@link intendedSharing}). */
  intended: IntendedSharing;
  /** The options as given, in their text form (for the report's config). */
  options: {
    users: number;
    turns: string;
    think_time: string;
    documents: number;
    doc_len: string | null;
    doc_popularity: string | null;
  };
}

/** Checked session options. */
export interface CheckedSessions {
  users: number;
  turns: LengthDist;
  think: LengthDist;
  documents: number;
  docLen: LengthDist | null;
  zipfS: number;
  documentSeed?: number;
}

const ZIPF_RE = /^zipf:(\d+(?:\.\d+)?)$/;

function asDist(
  v: string | number | LengthDist,
  path: string,
  unit: 'int' | 'real',
  problems: Problem[],
): LengthDist | undefined {
  if (typeof v === 'object') return v;
  const r = parseLengthDist(v, path, unit);
  if (r.ok) return r.dist;
  problems.push(r.problem);
  return undefined;
}

/** Check the session options alone; pushes every problem. */
export function checkSessions(o: SessionOptions, problems: Problem[]): CheckedSessions | undefined {
  const n = problems.length;
  if (!Number.isInteger(o.users) || o.users < 1)
    problems.push({
      path: '--users',
      message: EN('sessions.users.bad', { got: o.users }),
      hint: EN('sessions.users.hint'),
    });
  const turns = asDist(o.turns, '--turns', 'int', problems);
  const think = asDist(o.thinkTime, '--think-time', 'real', problems);
  const documents = o.documents ?? 0;
  if (!Number.isInteger(documents) || documents < 0)
    problems.push({
      path: '--documents',
      message: EN('sessions.documents.bad', { got: documents }),
      hint: EN('sessions.documents.hint'),
    });
  let docLen: LengthDist | null = null;
  if (documents > 0) {
    if (o.docLen === undefined)
      problems.push({
        path: '--doc-len',
        message: EN('sessions.doc_len.missing'),
        hint: EN('sessions.doc_len.hint'),
      });
    else docLen = asDist(o.docLen, '--doc-len', 'int', problems) ?? null;
  } else if (o.docLen !== undefined || o.docPopularity !== undefined)
    problems.push({
      path: o.docLen !== undefined ? '--doc-len' : '--doc-popularity',
      message: EN('sessions.documents.needed'),
      hint: EN('sessions.documents.hint'),
    });
  let zipfS = 1;
  if (o.docPopularity !== undefined) {
    const m = ZIPF_RE.exec(o.docPopularity.trim().toLowerCase());
    if (!m)
      problems.push({
        path: '--doc-popularity',
        message: EN('sessions.popularity.bad', { got: o.docPopularity }),
        hint: EN('sessions.popularity.hint'),
      });
    else zipfS = Number(m[1]);
  }
  if (problems.length > n || !turns || !think) return undefined;
  return {
    users: o.users,
    turns,
    think,
    documents,
    docLen,
    zipfS,
    ...(o.documentSeed !== undefined ? { documentSeed: o.documentSeed } : {}),
  };
}

/**
 * Draw a document index in 0..D−1 with P(d) ∝ 1/(d+1)^S (Zipf; S = 0 is uniform), from `rng`.
 * @example zipfPick(new Rng(1), 4, 1) // 0 about 48% of the time, 3 about 12%
 */
export function zipfPick(rng: Rng, documents: number, s: number): number {
  let total = 0;
  for (let d = 0; d < documents; d++) total += 1 / (d + 1) ** s;
  let u = rng.next() * total;
  for (let d = 0; d < documents; d++) {
    u -= 1 / (d + 1) ** s;
    if (u < 0) return d;
  }
  return documents - 1;
}

/** The prefix sharing a session plan intends, in tokens of content (chat-template tokens left out). */
export interface IntendedSharing {
  /**
   * Σ shared / Σ prompt over every planned turn: the prefix-cache hit rate an unbounded cache
   * would reach. A turn's prompt is its document, every earlier question and answer (answers at
   * their planned length) and its question; its shared part is the document once another
   * session used it before, plus for turns after the first the whole previous prompt and answer.
   */
  ratio: number | null;
  /** The same per turn index (0-based), over the sessions that have that turn. */
  per_turn: (number | null)[];
  /** The part of `ratio` from documents shared across sessions (the rest is each session's own history). */
  document_ratio: number | null;
}

/** The intended sharing of a plan ({@link IntendedSharing}); pure. */
export function intendedSharing(
  sessions: readonly Pick<PlannedSession, 'document' | 'turns'>[],
  docTokens: readonly number[],
): IntendedSharing {
  const seen = new Set<number>();
  let prompt = 0;
  let shared = 0;
  let fromDocs = 0;
  const perPrompt: number[] = [];
  const perShared: number[] = [];
  for (const s of sessions) {
    const doc = s.document === null ? 0 : (docTokens[s.document] ?? 0);
    const docShared = s.document !== null && seen.has(s.document);
    if (s.document !== null) seen.add(s.document);
    let history = doc;
    s.turns.forEach((t, k) => {
      const q = t.spec.input_len ?? 0;
      const p = history + q;
      const sh = k === 0 ? (docShared ? doc : 0) : history;
      prompt += p;
      shared += sh;
      if (docShared) fromDocs += doc;
      perPrompt[k] = (perPrompt[k] ?? 0) + p;
      perShared[k] = (perShared[k] ?? 0) + sh;
      history = p + (t.spec.output_len ?? 0);
    });
  }
  return {
    ratio: prompt > 0 ? shared / prompt : null,
    per_turn: perPrompt.map((p, k) => (p > 0 ? (perShared[k] ?? 0) / p : null)),
    document_ratio: prompt > 0 ? fromDocs / prompt : null,
  };
}

/**
 * Build the sessions: turns, questions fitted to `--input-len` tokens, answer lengths from
 * `--output-len`, think times, and documents fitted to `--doc-len` tokens (each starting with a
 * lead word no other document has, so two documents never share a first block by chance).
 * Request indexes run over the turns in session order.
 */
export async function buildSessions(
  seed: number,
  c: CheckedSessions,
  lens: { input: LengthDist; output: LengthDist | undefined },
  counter: TokenCounter,
  text: { options: SessionWorkload['options'] },
): Promise<{ workload: SessionWorkload; inexact: number }> {
  let inexact = 0;
  const docSeed = c.documentSeed ?? seed;
  const lead = streamRng(docSeed, 'document-lead');
  const leads = VOCAB.map((_, i) => i);
  for (let i = leads.length - 1; i > 0; i--) {
    const j = lead.int(0, i);
    [leads[i], leads[j]] = [leads[j], leads[i]];
  }
  const docLenRng = streamRng(docSeed, 'document-len');
  const docLens = Array.from({ length: c.documents }, () => (c.docLen as LengthDist).sample(docLenRng));
  const documents = await mapLimit(docLens, COUNT_CONCURRENCY, async (len, d) => {
    const words = [VOCAB[leads[d % VOCAB.length]], VOCAB[leads[Math.floor(d / VOCAB.length) % VOCAB.length]]];
    const fit = await fitText(counter, new WordStream(streamRng(docSeed, 'document', d), words), len);
    if (fit.tokens !== len) inexact++;
    return fit;
  });

  type Draft = { document: number | null; turns: { q: number; out: number | null; think_s: number }[] };
  const drafts: Draft[] = Array.from({ length: c.users }, (_, s) => {
    const n = c.turns.sample(streamRng(seed, 'session-turns', s));
    const inRng = streamRng(seed, 'session-input-len', s);
    const outRng = streamRng(seed, 'session-output-len', s);
    const thinkRng = streamRng(seed, 'session-think', s);
    return {
      document:
        c.documents > 0 ? zipfPick(streamRng(seed, 'session-document', s), c.documents, c.zipfS) : null,
      turns: Array.from({ length: n }, () => ({
        q: lens.input.sample(inRng),
        out: lens.output ? lens.output.sample(outRng) : null,
        think_s: c.think.sample(thinkRng),
      })),
    };
  });
  const flat = drafts.flatMap((d, s) => d.turns.map((t, k) => ({ s, k, ...t })));
  const questions = await mapLimit(flat, COUNT_CONCURRENCY, async (t) => {
    const fit = await fitText(counter, new WordStream(streamRng(seed, `session-question:${t.s}`, t.k)), t.q);
    if (fit.tokens !== t.q) inexact++;
    return fit.text;
  });
  let index = 0;
  const sessions: PlannedSession[] = drafts.map((d, s) => ({
    id: `s${s}`,
    index: s,
    document: d.document,
    turns: d.turns.map((t, k) => {
      const message: ChatMessage = { role: 'user', content: questions[index] };
      const spec: RequestSpec = {
        index: index++,
        messages: [message],
        input_len: t.q,
        output_len: t.out,
        session_id: `s${s}`,
        turn: k,
      };
      return { spec, think_s: t.think_s };
    }),
  }));
  return {
    workload: {
      sessions,
      documents,
      intended: intendedSharing(
        sessions,
        documents.map((d) => d.tokens),
      ),
      options: text.options,
    },
    inexact,
  };
}

/** The messages every turn of `session` starts with: its document as a system message, or none. */
export function sessionPrefix(w: SessionWorkload, session: PlannedSession): ChatMessage[] {
  return session.document === null ? [] : [{ role: 'system', content: w.documents[session.document].text }];
}
