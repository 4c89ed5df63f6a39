/**
 * @module analysis/diagnose/default-lang
 * The language the diagnosis speaks when its caller names none: English, so every caller that
 * predates the catalogue (`diagnose(runs)`, `validityReasons(run)`) reads what it always read.
 */
import { type T, translator } from '../../i18n/index.js';

/** The English translator, the default `t` of every diagnosis function. */
export const EN: T = translator('en');
