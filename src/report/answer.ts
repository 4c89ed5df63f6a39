/**
 * @module report/answer
 * What an experiment answers, as plain data: the question it asked, the verdict in one sentence,
 * the key table, the lead chart, the runs it rests on, and an optional interval for a number that
 * comes from the simulator. Each experiment kind builds its own (`exp/kinds/*` `answer`); the
 * console, the HTML report, the Markdown write-up, `report --json` (`answer`) and the dashboard's
 * experiment page all render this one structure, in one order: the answer first, then the
 * evidence (findings), then the per-run detail.
 *
 * Pure data (no functions), so the store and `report --json` can carry it as it is.
 */

/** A cell of the answer's table: text, a number (rendered by the surface), or null ("no data"). */
export type AnswerCell = string | number | null;

/** The key table: column headers (already translated) and rows of cells. */
export interface AnswerTable {
  columns: string[];
  rows: AnswerCell[][];
}

/**
 * One axis of the lead chart: a human name, its unit (null: none), and whether it is logarithmic
 * (absent: a line chart's value axis turns logarithmic when its values span more than two orders
 * of magnitude, `report/chart-kit` `spanScale`).
 */
export interface AnswerAxis {
  name: string;
  unit: string | null;
  log?: boolean;
  /** Where a value axis starts and ends (absent: where the data take it). */
  min?: number;
  max?: number;
  /** Whole numbers only (users, concurrency): no tick between two of them. */
  integer?: boolean;
  /** A category axis: its labels, in order (the series' x values index into them). */
  categories?: string[];
}

/**
 * A line across the plot that belongs to a series (a knee at an x, an SLO at a y): drawn in the
 * series' colour on the series' axis, so its label says whose line it is.
 */
export interface AnswerMark {
  /** `x`: a vertical line at an x value; `y`: a horizontal line at a value of the series' axis. */
  at: 'x' | 'y';
  value: number;
  label: string;
}

/** One named series of the lead chart. */
export interface AnswerSeries {
  name: string;
  points: [number, number | null][];
  /** `y2`: drawn against the chart's right axis (`AnswerChart.y2`); absent: the left. */
  axis?: 'y2';
  dashed?: boolean;
  marks?: AnswerMark[];
}

/** The lead chart: a few named series over one x axis, on one or two y axes. */
export interface AnswerChart {
  type: 'line' | 'bar' | 'cdf';
  title: string;
  x: AnswerAxis;
  /** The left axis. */
  y: AnswerAxis;
  /** A right axis, for series in another unit (latency beside throughput); absent: none. */
  y2?: AnswerAxis;
  series: AnswerSeries[];
  /**
   * Ids of the report's own charts (`report/charts` `reportCharts`: `load-curve`, `ttft-cdf`)
   * this chart shows already: the surfaces that draw the answer leave those out, so a page
   * draws each chart once.
   */
  replaces?: string[];
}

/** A simulator-derived number's error band (issue: an honest error band on every answer). */
export interface AnswerInterval {
  /** What the interval is about (a metric key or a figure's name). */
  what: string;
  low: number;
  high: number;
  /** Where the band comes from, in a sentence. */
  note: string;
}

/** What an experiment answers. */
export interface ExperimentAnswer {
  /** The experiment kind that built it. */
  kind: string;
  /** The question the experiment asks, in a sentence. */
  question: string;
  /** The verdict in one sentence: the first thing every surface shows. */
  verdict: string;
  table: AnswerTable;
  /** Lines the table cannot hold (e.g. the A/B's quality check), in order; absent or empty for none. */
  notes?: string[];
  /** The chart that shows the answer best, or null when none does. */
  chart: AnswerChart | null;
  /** Store ids of the runs the answer rests on. */
  run_ids: string[];
  /**
   * The run whose numbers the verdict speaks of (the largest team meeting the SLO, the knee), for
   * the headline's cards under the answer; absent or null when the verdict names no one run.
   */
  focus_run_id?: string | null;
  /** For numbers from the simulator: the band around them; null otherwise. */
  interval: AnswerInterval | null;
  /**
   * The simulator's 80% error bands of the headline numbers the answer rests on (issue 26:
   * "TTFT p90 410 ms, 80% band 350–520 ms"), rendered after `interval`; absent or empty when no
   * number comes from the simulator.
   */
  bands?: AnswerInterval[];
}
