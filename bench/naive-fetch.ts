/**
 * @module bench/naive-fetch
 * The baseline the client benchmark compares against: the obvious `fetch` + `TextDecoder`
 * streaming client, doing the same parsing work as servelab's client (decode, split SSE events,
 * `JSON.parse` every `data:` line, stamp token chunks with the read's time). It exists only to
 * be measured: `fetch` stays off servelab's hot path (`bench/client.ts` compares the two: ~2× CPU
 * per chunk and a collapsing tail at thousands of streams).
 */
import type { Clock } from '../src/runtime/clock.js';

/** What one naive stream saw. */
export interface NaiveResult {
  id: string;
  /** Client-clock ms of each token-carrying chunk. */
  chunk_times_ms: number[];
  ok: boolean;
  error: string | null;
}

interface ChunkShape {
  choices?: { delta?: { content?: string }; finish_reason?: string | null }[];
}

/**
 * POST one streaming chat request with `fetch` and read it with `TextDecoder`.
 * @param url full URL of `/v1/chat/completions`
 */
export async function naiveStream(
  url: string,
  id: string,
  body: string,
  headers: Record<string, string>,
  clock: Clock,
  signal: AbortSignal,
): Promise<NaiveResult> {
  const times: number[] = [];
  let finish: string | null = null;
  let done = false;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'x-request-id': id },
      body,
      signal,
    });
    if (!res.ok || !res.body) return { id, chunk_times_ms: times, ok: false, error: `HTTP ${res.status}` };
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      const { done: end, value } = await reader.read();
      if (end) break;
      const now = clock.now();
      buf += decoder.decode(value, { stream: true });
      let cut = buf.indexOf('\n\n');
      while (cut >= 0) {
        const event = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        cut = buf.indexOf('\n\n');
        for (const line of event.split('\n')) {
          if (!line.startsWith('data:')) continue;
          const data = line.slice(5).trim();
          if (data === '[DONE]') {
            done = true;
            continue;
          }
          const chunk = JSON.parse(data) as ChunkShape;
          const choice = chunk.choices?.[0];
          if (choice?.delta?.content) times.push(now);
          if (choice?.finish_reason) finish = choice.finish_reason;
        }
      }
    }
    return { id, chunk_times_ms: times, ok: done && finish !== null, error: null };
  } catch (err) {
    return { id, chunk_times_ms: times, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
