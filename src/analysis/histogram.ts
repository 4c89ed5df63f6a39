/**
 * @module analysis/histogram
 * The one mergeable histogram layout that shards write and `servelab merge` adds. It is an
 * HdrHistogram (hdr-histogram-js, the library autocannon uses; HdrHistogram's encoding, see
 * github.com/HdrHistogram/HdrHistogram `EncodableHistogram`), in one fixed layout so any two
 * shards' histograms add bucket for bucket:
 *
 * - unit: microseconds (a metric in ms is recorded as `round(ms × 1000)`);
 * - lowest discernible value 1 µs, highest trackable value 3 600 000 000 µs (one hour);
 * - 3 significant digits: every recorded value lies within 0.1% (1 part in 10^3) of the
 *   bucket's value, so a percentile read from the histogram is within 0.1% (or 1 µs) of the
 *   recorded value at that rank. Values outside [0, one hour] are clamped and counted.
 *
 * Adding histograms is exact (counts add); the approximation is in the bucketing alone, so the
 * merged histogram of N shards equals the histogram of their concatenated records.
 */
import * as hdr from 'hdr-histogram-js';
import { type RequestRecord, SUCCESS_OUTCOMES } from '../record/types.js';
import type { Stats } from './stats.js';
import { groupAttempts } from './summary.js';

/** The layout every shard histogram has; `merge` refuses any other. */
export const HISTOGRAM_LAYOUT = {
  library: 'hdr-histogram-js',
  unit: 'us',
  lowest: 1,
  highest: 3_600_000_000,
  significant_digits: 3,
} as const;
export type HistogramLayout = typeof HISTOGRAM_LAYOUT;

export type Histogram = hdr.Histogram;

/** An empty histogram in {@link HISTOGRAM_LAYOUT}. */
export function newHistogram(): Histogram {
  return hdr.build({
    lowestDiscernibleValue: HISTOGRAM_LAYOUT.lowest,
    highestTrackableValue: HISTOGRAM_LAYOUT.highest,
    numberOfSignificantValueDigits: HISTOGRAM_LAYOUT.significant_digits,
    bitBucketSize: 64,
    useWebAssembly: false,
  });
}

/** A histogram of values in ms; `clamped` counts values outside the layout's range. */
export function histogramOf(valuesMs: readonly number[]): { histogram: Histogram; clamped: number } {
  const h = newHistogram();
  let clamped = 0;
  for (const v of valuesMs) {
    const us = Math.round(v * 1000);
    if (us < 0 || us > HISTOGRAM_LAYOUT.highest) clamped++;
    h.recordValue(Math.min(Math.max(us, 0), HISTOGRAM_LAYOUT.highest));
  }
  return { histogram: h, clamped };
}

/** HdrHistogram's compressed base64 form (what a shard report stores). */
export function encodeHistogram(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

/** Read an encoded histogram back; throws on text that is not one. */
export function decodeHistogram(text: string): Histogram {
  return hdr.decodeFromCompressedBase64(text, 64, false);
}

/** Whether a histogram has the fixed layout (a decoded foreign one may not). */
export function hasLayout(h: Histogram): boolean {
  return (
    h.numberOfSignificantValueDigits === HISTOGRAM_LAYOUT.significant_digits &&
    h.highestTrackableValue >= HISTOGRAM_LAYOUT.highest
  );
}

/** The sum of histograms (counts add per bucket); a new histogram, the inputs unchanged. */
export function addHistograms(parts: readonly Histogram[]): Histogram {
  const sum = newHistogram();
  for (const p of parts) sum.add(p);
  return sum;
}

/** Every non-empty bucket as [value µs, count], ascending: what "bucket for bucket" compares. */
export function histogramBuckets(h: Histogram): [number, number][] {
  const out: [number, number][] = [];
  const it = (h as unknown as { recordedValuesIterator: RecordedValues }).recordedValuesIterator;
  it.reset();
  while (it.hasNext()) {
    const v = it.next();
    out.push([v.valueIteratedTo, v.countAtValueIteratedTo]);
  }
  return out;
}
interface RecordedValues {
  reset(): void;
  hasNext(): boolean;
  next(): { valueIteratedTo: number; countAtValueIteratedTo: number };
}

/**
 * A summary {@link Stats} block read from a histogram, in ms: within the layout's error bound
 * of the exact statistics (`--exact` merges recompute them from the records instead).
 */
export function histogramStats(h: Histogram): Stats {
  const n = h.totalCount;
  if (n === 0)
    return { n: 0, mean: null, std: null, min: null, p50: null, p90: null, p95: null, p99: null, max: null };
  const ms = (us: number) => us / 1000;
  const buckets = histogramBuckets(h);
  return {
    n,
    mean: ms(h.mean),
    std: ms(h.stdDeviation),
    min: ms(buckets[0][0]),
    p50: ms(h.getValueAtPercentile(50)),
    p90: ms(h.getValueAtPercentile(90)),
    p95: ms(h.getValueAtPercentile(95)),
    p99: ms(h.getValueAtPercentile(99)),
    max: ms(h.maxValue),
  };
}

/** Per-second counts keyed by epoch second (what shards add up into one timeline). */
export interface SecondBucket {
  sent: number;
  succeeded: number;
  failed: number;
  output_tokens: number;
}

/** Add per-second buckets (keys are epoch seconds as strings). */
export function addSecondBuckets(
  parts: readonly Record<string, SecondBucket>[],
): Record<string, SecondBucket> {
  const out: Record<string, SecondBucket> = {};
  for (const p of parts)
    for (const [k, b] of Object.entries(p)) {
      const o = out[k] ?? { sent: 0, succeeded: 0, failed: 0, output_tokens: 0 };
      out[k] = o;
      o.sent += b.sent;
      o.succeeded += b.succeeded;
      o.failed += b.failed;
      o.output_tokens += b.output_tokens;
    }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => Number(a) - Number(b)));
}

/**
 * Per-second buckets of a run's measured requests, keyed by epoch second: first sends by the
 * second they were sent, final outcomes (and completion tokens) by the second they ended.
 * @param originUnixMs the run clock's origin (`started_at_unix_ms`)
 */
export function secondBuckets(
  records: readonly RequestRecord[],
  originUnixMs: number,
): Record<string, SecondBucket> {
  const out: Record<string, SecondBucket> = {};
  const at = (ms: number) =>
    (out[String(Math.floor((originUnixMs + ms) / 1000))] ??= {
      sent: 0,
      succeeded: 0,
      failed: 0,
      output_tokens: 0,
    });
  for (const g of groupAttempts(records).values()) {
    if (g.final.phase !== 'measure') continue;
    if (g.first.sent_at_ms !== null) at(g.first.sent_at_ms).sent++;
    const end = g.final.end_at_ms ?? g.final.sent_at_ms ?? g.final.planned_at_ms;
    if (end === null) continue;
    const b = at(end);
    if (SUCCESS_OUTCOMES.includes(g.final.outcome)) {
      b.succeeded++;
      b.output_tokens += g.final.usage?.completion_tokens ?? 0;
    } else b.failed++;
  }
  return addSecondBuckets([out]);
}
