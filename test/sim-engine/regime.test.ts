/**
 * @module test/sim-engine/regime
 * `regimeOf`: the simulator's own series decide when present (waiting requests, KV usage), the
 * client heuristic (TTFT against decode steps) otherwise.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type RegimeReading, regimeOf } from '../../src/sim/fidelity/band.js';

/** Readings of `name` at 1 s intervals. */
const readings = (name: string, values: number[]): RegimeReading[] =>
  values.map((value, i) => ({ t_ms: i * 1000, name, value }));

describe('regimeOf', () => {
  const cases: {
    what: string;
    ttft: number | null;
    tpot: number | null;
    series?: RegimeReading[];
    want: 'low' | 'saturated';
  }[] = [
    { what: 'no series, short TTFT', ttft: 50, tpot: 10, want: 'low' },
    { what: 'no series, TTFT over 20 decode steps', ttft: 300, tpot: 10, want: 'saturated' },
    { what: 'no series, no TPOT', ttft: 300, tpot: null, want: 'low' },
    {
      what: 'queue empty throughout, though TTFT is long (API-server queue)',
      ttft: 300,
      tpot: 10,
      series: readings('waiting', [0, 0, 0, 0]),
      want: 'low',
    },
    {
      what: 'waiting in 2 of 4 readings',
      ttft: 50,
      tpot: 10,
      series: readings('waiting', [0, 3, 7, 0]),
      want: 'saturated',
    },
    {
      what: 'waiting in 1 of 8 readings only',
      ttft: 50,
      tpot: 10,
      series: readings('waiting', [0, 0, 0, 2, 0, 0, 0, 0]),
      want: 'low',
    },
    {
      what: 'KV near full without a queue',
      ttft: 50,
      tpot: 10,
      series: [...readings('waiting', [0, 0, 0, 0]), ...readings('kv_usage', [0.5, 0.97, 0.99, 0.96])],
      want: 'saturated',
    },
    {
      what: 'too few readings: the heuristic decides',
      ttft: 300,
      tpot: 10,
      series: readings('waiting', [0, 0]),
      want: 'saturated',
    },
  ];
  for (const c of cases)
    it(c.what, () => {
      assert.equal(regimeOf(c.ttft, c.tpot, c.series), c.want);
    });
});
