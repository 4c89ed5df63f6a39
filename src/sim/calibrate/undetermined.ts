/**
 * @module sim/calibrate/undetermined
 * What a set of calibration runs cannot determine, and why: one problem per group of constants
 * (its path names the profile keys and the cost model's constants), worded in the given
 * language. `calibrate` (`sim/calibrate/fit`) refuses with them in the reader's language when
 * nothing can be fitted, and keeps them in English as the profile's reasons for each constant
 * left at its prior.
 */
import type { Problem } from '../../core/errors.js';
import type { MessageParams, T } from '../../i18n/index.js';

/** Least prompt-length spread, and longest prompt, that determine the prefill efficiencies. */
export const MIN_PREFILL_LENGTHS = 3;
export const MIN_PREFILL_RATIO = 4;
export const MIN_PREFILL_LONGEST = 1024;
/** Least spread of decode context (tokens) that determines the decode-attention bandwidth. */
export const MIN_CTX_SPREAD = 512;

/** What the runs give to determine the constants with. */
export interface CalibrationEvidence {
  /** The ids of the runs at concurrency 1. */
  lowRunIds: readonly string[];
  /** Decode gaps at low load. */
  decodeCount: number;
  /** Spread of their decode context (tokens). */
  ctxSpread: number;
  /** The distinct uncached prompt lengths at low load, ascending. */
  prefillLens: readonly number[];
  /** The levels with more than one request in flight, and their output rate (tok/s). */
  loaded: readonly { conc: number; rate: number | null }[];
  /** Whether one of them is saturated. */
  saturated: boolean;
}

/** Whether the prompt lengths at low load determine the prefill efficiencies. */
export function prefillDetermined(lens: readonly number[]): boolean {
  const hi = lens[lens.length - 1];
  return lens.length >= MIN_PREFILL_LENGTHS && hi >= MIN_PREFILL_RATIO * lens[0] && hi >= MIN_PREFILL_LONGEST;
}

/**
 * The problems of what `e` leaves undetermined, in `t`'s language (empty: everything is).
 * @example undeterminedProblems({ lowRunIds: [], decodeCount: 0, ctxSpread: 0, prefillLens: [], loaded: [], saturated: false }, EN).length // 3
 */
export function undeterminedProblems(e: CalibrationEvidence, t: T): Problem[] {
  const problems: Problem[] = [];
  const lows = e.lowRunIds.length
    ? t('sim.calibrate.lows', { ids: e.lowRunIds.join(', ') })
    : t('sim.calibrate.lows_none');
  if (!e.decodeCount)
    problems.push({
      path: 'eta_bw (ETA_BW)',
      message: t('sim.calibrate.undetermined.decode', { lows }),
      hint: t('sim.calibrate.undetermined.decode_hint'),
    });
  if (e.decodeCount && e.ctxSpread < MIN_CTX_SPREAD)
    problems.push({
      path: 'eta_bw_attn_decode (ETA_BW_ATTN_DECODE)',
      message: t('sim.calibrate.undetermined.ctx', { spread: e.ctxSpread, min: MIN_CTX_SPREAD }),
      hint: t('sim.calibrate.undetermined.ctx_hint'),
    });
  const lens = e.prefillLens;
  if (!prefillDetermined(lens)) {
    const params: MessageParams = {
      n: lens.length,
      range: lens.length
        ? t('sim.calibrate.undetermined.prefill_range', { lo: lens[0], hi: lens[lens.length - 1] })
        : '',
      lows,
    };
    problems.push({
      path: 'eta_gemm, eta_attn_prefill (ETA_GEMM_BY_FAMILY, ETA_ATTN_PREFILL)',
      message: t('sim.calibrate.undetermined.prefill', params),
      hint: t('sim.calibrate.undetermined.prefill_hint', {
        lengths: MIN_PREFILL_LENGTHS,
        ratio: MIN_PREFILL_RATIO,
        longest: MIN_PREFILL_LONGEST,
      }),
    });
  }
  if (!e.saturated)
    problems.push({
      path: 'frontend_chunk_ms (FRONTEND_CHUNK_MS)',
      message: e.loaded.length
        ? t('sim.calibrate.undetermined.saturated', {
            levels: e.loaded.map((r) => `c=${r.conc}: ${r.rate?.toFixed(0) ?? '-'} tok/s`).join(', '),
          })
        : t('sim.calibrate.undetermined.one_in_flight'),
      hint: t('sim.calibrate.undetermined.saturated_hint'),
    });
  return problems;
}
