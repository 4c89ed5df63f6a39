/**
 * @module test/analysis/records
 * Builds RequestRecords for the metric tests the way the client fills them in: from a list of
 * token-carrying chunks it sets first/last token, reasoning and content times. Expected metric
 * values stay hand-computed in each test; this only saves writing every field.
 */
import {
  type ChunkKind,
  emptyRecord,
  type Outcome,
  type RequestRecord,
  type Usage,
} from '../../src/record/types.js';

export interface RecSpec {
  id: string;
  planned_id?: string;
  attempt?: number;
  phase?: 'warmup' | 'measure';
  planned?: number | null;
  sent?: number | null;
  /** First chunk of any kind (role-only included); default: first token chunk. */
  first_chunk?: number | null;
  /** Token-carrying chunks as [time_ms, kind]. */
  chunks?: [number, ChunkKind][];
  end?: number | null;
  outcome?: Outcome;
  finish_reason?: string | null;
  /** completion_tokens (null = usage object without it; undefined = no usage at all). */
  tokens?: number | null;
  prompt?: number | null;
  noUsage?: boolean;
  /** false = a non-stream JSON body (the client records its one chunk at the body's end). */
  stream?: boolean;
}

export function rec(s: RecSpec): RequestRecord {
  const r = emptyRecord({
    id: s.id,
    planned_id: s.planned_id ?? s.id,
    attempt: s.attempt ?? 1,
    phase: s.phase ?? 'measure',
    index: 0,
  });
  const chunks = s.chunks ?? [];
  const sent = s.sent === undefined ? 0 : s.sent;
  r.planned_at_ms = s.planned === undefined ? sent : s.planned;
  r.sent_at_ms = sent;
  r.chunk_times_ms = chunks.map(([t]) => t);
  r.chunk_kinds = chunks.map(([, k]) => k);
  const firstOf = (k: ChunkKind) => chunks.find(([, kk]) => kk === k)?.[0] ?? null;
  const lastOf = (k: ChunkKind) => [...chunks].reverse().find(([, kk]) => kk === k)?.[0] ?? null;
  r.first_token_at_ms = chunks.length ? chunks[0][0] : null;
  r.last_token_at_ms = chunks.length ? chunks[chunks.length - 1][0] : null;
  r.first_reasoning_at_ms = firstOf('r');
  r.first_content_at_ms = firstOf('c');
  r.last_content_at_ms = lastOf('c');
  r.first_chunk_at_ms = s.first_chunk === undefined ? r.first_token_at_ms : s.first_chunk;
  r.headers_at_ms = sent;
  r.end_at_ms = s.end === undefined ? r.last_token_at_ms : s.end;
  r.outcome = s.outcome ?? 'ok';
  r.finish_reason =
    s.finish_reason === undefined ? (r.outcome === 'length' ? 'length' : 'stop') : s.finish_reason;
  r.has_content = r.first_content_at_ms !== null;
  r.done = true;
  if (s.stream !== undefined) r.stream = s.stream;
  if (!s.noUsage && s.tokens !== undefined) {
    const usage: Usage = {
      prompt_tokens: s.prompt ?? null,
      completion_tokens: s.tokens,
      total_tokens: s.tokens !== null && s.prompt != null ? s.tokens + s.prompt : null,
    };
    r.usage = usage;
  }
  return r;
}
