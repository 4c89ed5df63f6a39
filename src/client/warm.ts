/**
 * @module client/warm
 * The client's first-use cost, paid before a measured window instead of inside it. A fresh
 * process runs the request path (body build and serialisation, the undici handler, the SSE
 * parser, the record's classification) in V8's interpreter until it has run enough times to be
 * compiled; at c = 100 the first wave is those first runs, all in one burst, and its TTFT carries
 * them (measured on a 2-core machine by timing waves of 100 sends to a stand-in dispatcher in a
 * fresh process: the sends took 5.5 ms cold and 0.4 ms from the third hundred on, parsing their
 * 5-event streams ~15 ms cold and ~2 ms warm; docs/bench.md "first wave"). {@link warmDispatcher}
 * is an in-process stand-in for the network that answers every request at once with a short
 * canned response of the endpoint's shape, so the HTTP target can send {@link WARM_REQUESTS}
 * requests through its own code to it. Nothing goes on the wire and the records are discarded.
 */
import type { Dispatcher } from 'undici';

/** Synthetic requests run through the client before a window: three waves of 100 cover V8's tier-up (measured above). */
export const WARM_REQUESTS = 300;

/** Token chunks in each canned stream. */
const WARM_TOKENS = 4;

/** The canned response's body, split into the reads the handler is fed. */
function cannedBody(endpoint: 'chat' | 'completions', stream: boolean): Buffer[] {
  const chat = endpoint === 'chat';
  if (!stream) {
    const choice = chat
      ? {
          index: 0,
          message: { role: 'assistant', content: ' tok'.repeat(WARM_TOKENS) },
          finish_reason: 'length',
        }
      : { index: 0, text: ' tok'.repeat(WARM_TOKENS), finish_reason: 'length' };
    const body = {
      id: 'warm',
      object: chat ? 'chat.completion' : 'text_completion',
      model: 'warm',
      choices: [choice],
      usage: { prompt_tokens: 1, completion_tokens: WARM_TOKENS, total_tokens: 1 + WARM_TOKENS },
    };
    return [Buffer.from(JSON.stringify(body))];
  }
  const object = chat ? 'chat.completion.chunk' : 'text_completion';
  const event = (last: boolean) => {
    const choice = chat
      ? { index: 0, delta: { content: ' tok' }, finish_reason: last ? 'length' : null }
      : { index: 0, text: ' tok', finish_reason: last ? 'length' : null };
    return `data: ${JSON.stringify({ id: 'warm', object, model: 'warm', choices: [choice] })}\n\n`;
  };
  const reads: Buffer[] = [];
  for (let i = 0; i < WARM_TOKENS; i++) reads.push(Buffer.from(event(i === WARM_TOKENS - 1)));
  const usage = { prompt_tokens: 1, completion_tokens: WARM_TOKENS, total_tokens: 1 + WARM_TOKENS };
  reads.push(
    Buffer.from(`data: ${JSON.stringify({ id: 'warm', object, model: 'warm', choices: [], usage })}\n\n`),
  );
  reads.push(Buffer.from('data: [DONE]\n\n'));
  return reads;
}

/** A controller that has nothing to abort: the canned response is over before anyone could ask. */
const CONTROLLER: Dispatcher.DispatchController = {
  abort() {},
  pause() {},
  resume() {},
  paused: false,
  aborted: false,
  reason: null,
};

/**
 * A dispatcher that answers each request synchronously, inside `dispatch`, with a 200 and the
 * canned body of `endpoint` (an SSE stream when `stream`, else one JSON completion), through the
 * same handler calls undici makes.
 */
export function warmDispatcher(
  endpoint: 'chat' | 'completions',
  stream: boolean,
): Pick<Dispatcher, 'dispatch'> {
  const reads = cannedBody(endpoint, stream);
  const headers = { 'content-type': stream ? 'text/event-stream' : 'application/json' };
  return {
    dispatch(_opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      handler.onRequestStart?.(CONTROLLER, {});
      handler.onResponseStart?.(CONTROLLER, 200, headers, 'OK');
      for (const r of reads) handler.onResponseData?.(CONTROLLER, r);
      handler.onResponseEnd?.(CONTROLLER, {});
      return true;
    },
  };
}
