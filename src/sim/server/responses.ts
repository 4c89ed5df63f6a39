/**
 * @module sim/server/responses
 * Answers that carry no generation: a JSON body, an error in the OpenAI shape (or another
 * engine's), and a request refused before it reaches the engine, with its log line. The routes,
 * the generation endpoints and the audio endpoints all answer through these.
 */
import type { ServerResponse } from 'node:http';
import type { BodyTooLarge } from './body.js';
import { errorBody } from './wire.js';

/** An error response (OpenAI's shape unless `rawBody` gives another); a response already begun is just ended. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  param: string | null = null,
  requestId?: string,
  rawBody?: string,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = rawBody ?? errorBody(status, message, param);
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  };
  if (requestId) headers['x-request-id'] = requestId;
  res.writeHead(status, headers).end(body);
}

export function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  const body = JSON.stringify(payload);
  res
    .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    .end(body);
}

/** Answer an error before the request reaches the engine, with its log line. */
export function reject(
  log: (line: string) => void,
  res: ServerResponse,
  requestId: string | undefined,
  status: number,
  message: string,
  param: string | null = null,
  fault?: string,
): void {
  sendError(res, status, message, param, requestId);
  log(
    `sim request x_request_id=${requestId ?? '-'} status=${status} outcome=${fault ? `fault_${fault}` : 'rejected'} ` +
      `queue_ms=- prefill_ms=- decode_ms=- error=${JSON.stringify(message)}`,
  );
}

/**
 * 413 for a body over --max-body-bytes, answered without reading the rest of it: the
 * connection is closed after the answer, so the unread bytes never need to be drained.
 */
export function rejectTooLarge(
  log: (line: string) => void,
  res: ServerResponse,
  requestId: string | undefined,
  err: BodyTooLarge,
): void {
  res.setHeader('connection', 'close');
  reject(log, res, requestId, 413, err.message);
}

/** {@link reject} with a body in another engine's error shape (llama.cpp's context error). */
export function rejectBody(
  log: (line: string) => void,
  res: ServerResponse,
  requestId: string | undefined,
  status: number,
  body: string,
): void {
  sendError(res, status, '', null, requestId, body);
  log(
    `sim request x_request_id=${requestId ?? '-'} status=${status} outcome=rejected ` +
      `queue_ms=- prefill_ms=- decode_ms=- error=${JSON.stringify(body)}`,
  );
}
