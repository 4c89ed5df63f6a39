/**
 * @module client/trace-context
 * The W3C Trace Context header a request carries when the run receives the engine's spans
 * (`run --otlp-port`): `traceparent: 00-<trace id>-<parent id>-01`
 * (https://www.w3.org/TR/trace-context/#traceparent-header). Each attempt gets a fresh random
 * trace id, which its record keeps (`trace_id`), so the engine's span for it (vLLM makes its
 * `llm_request` span a child of the incoming context) is joined to it by that id. The sampled
 * flag is set: vLLM's tracer provider samples parent-based, so an unsampled parent would drop it.
 */
import { randomBytes } from 'node:crypto';

/** A fresh trace context: the trace id (32 hex digits) and its `traceparent` header value. */
export function newTraceparent(): { traceId: string; header: string } {
  const b = randomBytes(24);
  // An all-zero id is invalid; 16 random bytes are never all zero in practice, but say so.
  if (b.subarray(0, 16).every((x) => x === 0)) b[15] = 1;
  if (b.subarray(16).every((x) => x === 0)) b[23] = 1;
  const traceId = b.subarray(0, 16).toString('hex');
  return { traceId, header: `00-${traceId}-${b.subarray(16).toString('hex')}-01` };
}
