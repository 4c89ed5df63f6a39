/**
 * @module exp/kinds/calibration
 * `calibration`: the runs `servelab calibrate` fits the simulator's cost model to, on one
 * target: a decode run at concurrency 1 (TPOT against context), a prompt-length sweep at
 * concurrency 1 (TTFT against prompt length) and a closed-loop concurrency sweep up to
 * saturation (the API server's per-chunk cost). Closed loop throughout; `ignore_eos` so every
 * request generates exactly its output length. One kind rather than three experiments, so one
 * experiment id names every run calibrate needs.
 */
import { z } from 'zod';
import { listOf, posInt } from '../../core/fields.js';
import { isObj, refuseLoadLevels } from '../fields.js';
import type { KindContext } from './context.js';
import { table } from './format.js';
import { defineKind, type OwnFile } from './kind.js';
import { fmt, pointOf, type RunHeadline, reindex } from './points.js';

export interface CalibrationPoint extends RunHeadline {
  phase: 'decode' | 'prefill' | 'saturation';
  input_len: number;
  output_len: number;
  concurrency: number;
}

export interface CalibrationKindResult {
  kind: 'calibration';
  targets: { target: string; points: CalibrationPoint[] }[];
}

export const calibrationSchema = z.strictObject({
  decode: z
    .strictObject({
      input_len: posInt().default(1024),
      output_len: posInt().default(256),
      requests: posInt().default(4),
    })
    .default({ input_len: 1024, output_len: 256, requests: 4 }),
  prefill: z
    .strictObject({
      input_lens: listOf(posInt()).default([128, 512, 1024, 2048, 4096]),
      output_len: posInt().default(16),
      requests: posInt().default(3),
    })
    .default({ input_lens: [128, 512, 1024, 2048, 4096], output_len: 16, requests: 3 }),
  saturation: z
    .strictObject({
      concurrency: listOf(posInt()).default([1, 4, 16, 32, 64]),
      input_len: posInt().default(128),
      output_len: posInt().default(64),
      /** Requests per level: at least 16, else 3 × the level. */
      requests: posInt().optional(),
      /**
       * After the listed levels, keep doubling the concurrency while the output rate still grew
       * (the saturation rule calibrate reads, `SATURATION_GROWTH`), up to this level.
       */
      max_concurrency: posInt().default(1024),
    })
    .default({ concurrency: [1, 4, 16, 32, 64], input_len: 128, output_len: 64, max_concurrency: 1024 }),
});

/** A level is saturated when its output rate is within this factor of a level at ≤ 2/3 its concurrency (`sim/calibrate/fit`). */
export const SATURATION_GROWTH = 1.1;

/** Whether the highest saturation level's output rate still grew over every level at ≤ 2/3 of it. */
export function stillGrowing(points: readonly CalibrationPoint[]): boolean {
  const sat = points.filter((p) => p.phase === 'saturation' && p.output_throughput_tok_s !== null);
  const top = sat.reduce<CalibrationPoint | null>(
    (a, p) => (!a || p.concurrency > a.concurrency ? p : a),
    null,
  );
  if (!top) return false;
  return !sat.some(
    (o) =>
      o.concurrency <= (top.concurrency * 2) / 3 &&
      (top.output_throughput_tok_s as number) <= SATURATION_GROWTH * (o.output_throughput_tok_s as number),
  );
}

/** Run the three phases on every target. */
export async function runCalibration(
  ctx: KindContext<OwnFile<'calibration', 'calibration', typeof calibrationSchema>>,
): Promise<CalibrationKindResult> {
  const cal = ctx.exp.calibration;
  const out: CalibrationKindResult['targets'] = [];
  for (const t of ctx.targets) {
    const points: CalibrationPoint[] = [];
    const one = async (
      phase: CalibrationPoint['phase'],
      inputLen: number,
      outputLen: number,
      concurrency: number,
      count: number,
    ) => {
      const level = { phase, input_len: inputLen, concurrency };
      const w = await ctx.levelWorkload(level, {
        count,
        inputLen: String(inputLen),
        outputLen: String(outputLen),
        plain: true,
      });
      const m = await ctx.measure(t, {
        label: `phase=${phase} in=${inputLen} c=${concurrency}`,
        level,
        specs: reindex(w.specs),
        load: { kind: 'closed', concurrency },
        warmup: ctx.exp.warmup,
        warmupSpecs: w.warmupSpecs,
        coldPrompts: w.coldPrompts,
      });
      points.push({ ...pointOf(m.run), phase, input_len: inputLen, output_len: outputLen, concurrency });
    };
    await one('decode', cal.decode.input_len, cal.decode.output_len, 1, cal.decode.requests);
    for (const n of cal.prefill.input_lens)
      await one('prefill', n, cal.prefill.output_len, 1, cal.prefill.requests);
    const s = cal.saturation;
    const count = (c: number) => s.requests ?? Math.max(16, 3 * c);
    for (const c of s.concurrency) await one('saturation', s.input_len, s.output_len, c, count(c));
    // Until throughput stops growing: a GPU that still scales at the top listed level would give
    // calibrate no saturated level (issue 26 item 5).
    for (let c = Math.max(...s.concurrency) * 2; c <= s.max_concurrency && stillGrowing(points); c *= 2)
      await one('saturation', s.input_len, s.output_len, c, count(c));
    out.push({ target: t.name, points });
  }
  return { kind: 'calibration', targets: out };
}

export const calibrationKind = defineKind({
  kind: 'calibration',
  section: 'calibration',
  sectionSchema: calibrationSchema,
  rules(f, report) {
    refuseLoadLevels(f, report, 'calibration', 'calibration.saturation.concurrency');
    const cal: Record<string, unknown> = isObj(f.calibration) ? f.calibration : {};
    const sat: Record<string, unknown> = isObj(cal.saturation) ? cal.saturation : {};
    if (Array.isArray(sat.concurrency) && sat.concurrency.length < 3)
      report(
        ['calibration', 'saturation', 'concurrency'],
        'saturation needs at least three concurrency levels',
        'levels that end where the output rate stops growing, e.g. [1, 4, 16, 32, 64]',
      );
    const pre: Record<string, unknown> = isObj(cal.prefill) ? cal.prefill : {};
    if (Array.isArray(pre.input_lens) && pre.input_lens.length < 3)
      report(
        ['calibration', 'prefill', 'input_lens'],
        'the prefill sweep needs at least three prompt lengths',
        'spanning ≥ 4×, the longest ≥ 1024 tokens, e.g. [128, 512, 1024, 2048, 4096]',
      );
  },
  defaults: (f) => ({ ...f, calibration: f.calibration ?? calibrationSchema.parse({}) }),
  template: (t) => `${t.head('calibration', 'calibration', t.tr('tpl.calibration.about'))}
targets:
${t.simTarget({ name: 'sim', full: true })}
${t.urlTargets}

calibration:
  decode:                             # ${t.tr('tpl.calibration.decode')}
    input_len: 1024
    output_len: 256
    requests: 4
  prefill:                            # ${t.tr('tpl.calibration.prefill')}
    input_lens: [128, 512, 1024, 2048, 4096]   # ${t.tr('tpl.calibration.input_lens')}
    output_len: 16
    requests: 3                       # ${t.tr('tpl.calibration.per_length')}
  saturation:                         # ${t.tr('tpl.calibration.saturation')}
    concurrency: [1, 4, 16, 32, 64]   # ${t.tr('tpl.calibration.levels')}
    max_concurrency: 1024             # ${t.tr('tpl.calibration.max_concurrency')}
    input_len: 128
    output_len: 64
    # requests: 48                    # ${t.tr('tpl.calibration.requests')}

${t.common({ generation: [`ignore_eos: true                   # ${t.tr('tpl.calibration.ignore_eos')}`], load: [`# ${t.tr('tpl.calibration.load')}`], warmup: 1 })}
`,
  run: runCalibration,
  format: (res, tr) => {
    const out: string[] = [];
    for (const t of res.targets) {
      out.push(t.target);
      out.push(
        table(
          [
            tr('exp.col.phase'),
            tr('exp.col.in'),
            tr('exp.col.out'),
            tr('exp.col.conc'),
            'TTFT p50 ms',
            'TPOT p50 ms',
            tr('report.col.outTokS'),
            tr('exp.col.run'),
          ],
          t.points.map((p) => [
            p.phase,
            String(p.input_len),
            String(p.output_len),
            String(p.concurrency),
            fmt(p.ttft_ms.p50),
            fmt(p.tpot_ms.p50, 3),
            fmt(p.output_throughput_tok_s),
            p.run_id ?? '-',
          ]),
        ),
      );
    }
    out.push(tr('exp.calibration.next'));
    return out;
  },
});

export const DEFAULT_CALIBRATION = calibrationSchema.parse({});
