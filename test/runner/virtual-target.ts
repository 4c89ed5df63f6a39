/**
 * Test helpers for the runner: an in-process {@link Target} that ends each request on a
 * {@link VirtualClock} schedule, and a driver that advances virtual time until a promise settles.
 * Deterministic: no wall-clock time is involved, so tests can assert exact times.
 */
import type { SendArgs, Target } from '../../src/client/types.js';
import { emptyRecord, type Outcome, type RequestRecord } from '../../src/record/types.js';
import type { VirtualClock } from '../../src/runtime/clock.js';

/** What the fake server does with one attempt. */
export type Behaviour =
  | {
      kind: 'ok';
      latencyMs: number;
      chunks?: number;
      outcome?: Outcome;
      http_status?: number;
      retry_after_s?: number;
    }
  /** `send` throws synchronously. */
  | { kind: 'throw'; message: string }
  /** `send` returns a rejected promise after `latencyMs`. */
  | { kind: 'reject'; latencyMs: number; message: string }
  /** Never resolves, even when aborted (a broken client). */
  | { kind: 'hang' };

export interface SentLog {
  args: SendArgs;
  at_ms: number;
}

export class VirtualTarget implements Target {
  readonly sent: SentLog[] = [];
  inFlight = 0;
  maxInFlight = 0;
  closed = false;

  constructor(
    private readonly clock: VirtualClock,
    private readonly behave: (args: SendArgs) => Behaviour,
  ) {}

  send(args: SendArgs): Promise<RequestRecord> {
    const b = this.behave(args);
    this.sent.push({ args, at_ms: this.clock.now() });
    if (b.kind === 'throw') throw new Error(b.message);
    const rec = emptyRecord({ ...args, index: args.spec.index });
    rec.planned_at_ms = args.planned_at_ms;
    rec.sent_at_ms = this.clock.now();
    rec.input_len = args.spec.input_len;
    rec.output_len = args.spec.output_len;
    if (b.kind === 'hang') return new Promise<RequestRecord>(() => {});
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    return new Promise<RequestRecord>((resolve, reject) => {
      const cancels: (() => void)[] = [];
      const end = () => {
        this.inFlight--;
        for (const c of cancels) c();
        args.signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        end();
        rec.outcome = 'cancelled';
        rec.end_at_ms = this.clock.now();
        resolve(rec);
      };
      if (args.signal.aborted) return onAbort();
      args.signal.addEventListener('abort', onAbort, { once: true });
      if (b.kind === 'reject') {
        cancels.push(
          this.clock.setTimer(() => {
            end();
            reject(new Error(b.message));
          }, b.latencyMs),
        );
        return;
      }
      const chunks = b.chunks ?? 0;
      for (let i = 1; i <= chunks; i++) {
        cancels.push(
          this.clock.setTimer(
            () => {
              rec.chunk_times_ms.push(this.clock.now());
              rec.chunk_kinds.push('c');
              args.onChunk?.(rec);
            },
            (b.latencyMs * i) / (chunks + 1),
          ),
        );
      }
      cancels.push(
        this.clock.setTimer(() => {
          end();
          rec.end_at_ms = this.clock.now();
          rec.outcome = b.outcome ?? 'ok';
          rec.http_status = b.http_status ?? 200;
          rec.retry_after_s = b.retry_after_s ?? null;
          rec.finish_reason = rec.outcome === 'ok' ? 'stop' : null;
          rec.has_content = rec.outcome === 'ok';
          rec.done = rec.outcome === 'ok';
          if (rec.outcome === 'ok') {
            const t = rec.chunk_times_ms;
            rec.first_chunk_at_ms = t[0] ?? null;
            rec.first_token_at_ms = t[0] ?? null;
            rec.first_content_at_ms = t[0] ?? null;
            rec.last_token_at_ms = t[t.length - 1] ?? null;
            rec.last_content_at_ms = rec.last_token_at_ms;
            const completion = t.length;
            const prompt = args.spec.input_len ?? 0;
            rec.usage = {
              prompt_tokens: prompt,
              completion_tokens: completion,
              total_tokens: prompt + completion,
            };
          }
          resolve(rec);
        }, b.latencyMs),
      );
    });
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/**
 * Settle `p` by repeatedly flushing pending callbacks, then advancing the virtual clock to its
 * next timer. Fails if time stops moving while `p` is still pending (a deadlock in the runner).
 */
export async function drive<T>(clock: VirtualClock, p: Promise<T>, maxSteps = 100_000): Promise<T> {
  let settled = false;
  p.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  let idle = 0;
  for (let step = 0; step < maxSteps && !settled; step++) {
    await new Promise<void>((r) => setImmediate(r));
    if (settled) break;
    const next = clock.nextTimerAt();
    if (next === undefined) {
      if (++idle > 50) throw new Error(`runner stalled at t=${clock.now()} with no pending timers`);
      continue;
    }
    idle = 0;
    clock.advanceTo(next);
  }
  if (!settled) throw new Error('drive: too many steps');
  return p;
}
