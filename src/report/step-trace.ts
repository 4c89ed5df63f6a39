/**
 * @module report/step-trace
 * A run's engine step timeline (`--record-steps`, `record/engine-step`) as a Chrome Trace Event
 * Format JSON that the Perfetto UI (https://ui.perfetto.dev) and chrome://tracing open: one
 * complete event (`ph: 'X'`) per engine step on the engine's track, and per request a track
 * with its prefill chunks and its decoding. `ts` and `dur` are microseconds, as the format
 * says; `ts` is on the run's clock (0 = the run's origin, the requests' times), `dur` is the
 * simulator's step time.
 *
 * The format: "Trace Event Format" (Google doc,
 * https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU), the JSON
 * Object Format with `traceEvents`, complete events (`ph: 'X'`: `name`, `cat`, `ts`, `dur`,
 * `pid`, `tid`, `args`) and metadata events (`ph: 'M'`, `process_name`/`thread_name`); Perfetto
 * reads it as its docs describe (https://perfetto.dev/docs/getting-started/other-formats, "JSON
 * trace format"). docs/trace-event-format.schema.json is the schema the export is tested against.
 */
import type { RunStepRecord } from '../record/engine-step.js';

/** One event of the trace (the fields servelab writes). */
export interface TraceEvent {
  name: string;
  cat?: string;
  ph: 'X' | 'M';
  /** Microseconds. */
  ts: number;
  /** Microseconds (complete events). */
  dur?: number;
  pid: number;
  tid: number;
  args: Record<string, unknown>;
}

/** The JSON Object Format of the Trace Event Format. */
export interface ChromeTrace {
  traceEvents: TraceEvent[];
  displayTimeUnit: 'ms';
  otherData: Record<string, string>;
}

const PID = 1;
const ENGINE_TID = 1;

/** µs, rounded to the nanosecond so the text stays short. */
const us = (ms: number) => Math.round(ms * 1e6) / 1e3;

/**
 * The trace of a run's steps. `label` names the process (the run's id or label). Requests get
 * a track each, in the order they first appear.
 */
export function stepTrace(steps: readonly RunStepRecord[], label: string): ChromeTrace {
  const events: TraceEvent[] = [
    {
      name: 'process_name',
      ph: 'M',
      ts: 0,
      pid: PID,
      tid: ENGINE_TID,
      args: { name: `servelab sim ${label}` },
    },
    { name: 'thread_name', ph: 'M', ts: 0, pid: PID, tid: ENGINE_TID, args: { name: 'engine steps' } },
  ];
  const tids = new Map<string, number>();
  const tidOf = (id: string) => {
    let tid = tids.get(id);
    if (tid === undefined) {
      tid = ENGINE_TID + 1 + tids.size;
      tids.set(id, tid);
      events.push({ name: 'thread_name', ph: 'M', ts: 0, pid: PID, tid, args: { name: `request ${id}` } });
    }
    return tid;
  };
  // Each request's decoding so far: one event from its first decode step to its latest.
  const decoding = new Map<string, TraceEvent>();
  for (const s of steps) {
    const ts = us(s.t_ms);
    const dur = us(s.dur_ms);
    const prefillTokens = s.prefill.reduce((a, c) => a + c.tokens, 0);
    events.push({
      name: s.prefill.length ? `step ${s.step} (prefill ${prefillTokens})` : `step ${s.step}`,
      cat: 'step',
      ph: 'X',
      ts,
      dur,
      pid: PID,
      tid: ENGINE_TID,
      args: {
        step: s.step,
        decodes: s.decode.length,
        prefill_chunks: s.prefill.map((c) => `${c.id}: ${c.tokens} tokens (${c.done}/${c.of})`),
        tokens: s.tokens,
        kv_blocks_used: s.kv_blocks_used,
        kv_blocks_total: s.kv_blocks_total,
        preempted: s.preempted,
        ...(s.spec ? { spec_proposed: s.spec.proposed, spec_accepted: s.spec.accepted } : {}),
      },
    });
    for (const c of s.prefill)
      events.push({
        name: `prefill ${c.tokens}`,
        cat: 'prefill',
        ph: 'X',
        ts,
        dur,
        pid: PID,
        tid: tidOf(c.id),
        args: { step: s.step, tokens: c.tokens, done: c.done, of: c.of, kv_blocks: c.blocks },
      });
    for (const id of s.decode) {
      const open = decoding.get(id);
      if (open && open.dur !== undefined) {
        open.dur = us(s.t_ms + s.dur_ms) - open.ts;
        (open.args as { steps: number }).steps++;
      } else {
        const e: TraceEvent = {
          name: 'decode',
          cat: 'decode',
          ph: 'X',
          ts,
          dur,
          pid: PID,
          tid: tidOf(id),
          args: { steps: 1 },
        };
        decoding.set(id, e);
        events.push(e);
      }
    }
    // A preempted request's decoding ends; it starts again after its recompute.
    for (const id of s.preempted) decoding.delete(id);
  }
  return {
    traceEvents: events,
    displayTimeUnit: 'ms',
    otherData: { source: 'servelab --record-steps', run: label },
  };
}
