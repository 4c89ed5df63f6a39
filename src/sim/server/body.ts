/**
 * @module sim/server/body
 * Reading an HTTP request before it is parsed: the caller's X-Request-Id, and the JSON body
 * under the `--max-body-bytes` limit. The two ways a request is refused before its fields are
 * read live here too: {@link BadRequest} (a 400 naming the field, also what the request
 * validation in `requests.ts` and the schema check in `structured.ts` throw) and
 * {@link BodyTooLarge} (a 413).
 */
import type { IncomingMessage } from 'node:http';

/** A request problem that becomes a 400 with `param` naming the field. */
export class BadRequest extends Error {
  constructor(
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'BadRequest';
  }
}

/** A request body over the limit (413). */
export class BodyTooLarge extends Error {}

/** The caller's X-Request-Id, if it is a sane token (printable, ≤ 128 chars). */
export function requestIdOf(req: IncomingMessage): string | undefined {
  const v = req.headers['x-request-id'];
  const s = Array.isArray(v) ? v[0] : v;
  return s && /^[\x21-\x7e]{1,128}$/.test(s) ? s : undefined;
}

/**
 * Read and parse a JSON body; malformed JSON is a {@link BadRequest}. A body over `maxBytes` is
 * a {@link BodyTooLarge}: at once when its Content-Length says so (nothing of it is read), else
 * as soon as the bytes read pass the limit (reading stops there).
 */
export async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const tooLarge = () =>
    new BodyTooLarge(`The request body exceeds ${maxBytes} bytes (--max-body-bytes); send a smaller one.`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  if (typeof (req as Partial<IncomingMessage>).on !== 'function') {
    // The in-process dispatcher's request (`sim/server/inprocess`): an async iterable of its body.
    let size = 0;
    for await (const c of req) {
      size += (c as Buffer).length;
      if (size > maxBytes) throw tooLarge();
      chunks.push(c as Buffer);
    }
  }
  // Events, not `for await`: leaving an async iterator early destroys the request, and with it
  // the socket the 413 must go out on.
  else
    await new Promise<void>((resolve, reject) => {
      let size = 0;
      const stop = (err?: Error) => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('close', onClose);
        if (err) {
          req.pause();
          reject(err);
        } else resolve();
      };
      const onData = (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) stop(tooLarge());
        else chunks.push(c);
      };
      const onEnd = () => stop();
      // The client went away while sending: nothing to parse, and not a server bug.
      const onError = (err: Error) =>
        stop(new BadRequest(`The request body could not be read: ${err.message}`));
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
      // Closed before its end (the client went away mid-body): no 'end' will come.
      const onClose = () =>
        stop(new BadRequest('The request body could not be read: the client closed the connection.'));
      req.on('close', onClose);
    });
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) throw new BadRequest('The request body is empty; send a JSON object.');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BadRequest(`The request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** The caller's W3C `traceparent` header, if it has the header's shape (version-trace-parent-flags). */
export function traceparentOf(req: IncomingMessage): string | undefined {
  const v = req.headers.traceparent;
  return typeof v === 'string' && /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/.test(v.trim())
    ? v.trim()
    : undefined;
}
