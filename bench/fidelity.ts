/**
 * `npm run fidelity`: the simulator against the public measurements of `sim/fidelity/measurements`,
 * one line per row, then the median and largest |error| per regime. `--write` stores the
 * results in src/sim/fidelity/results.json, which `fidelityBand` (and `servelab plan`) read.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { bandsOf, runFidelity } from '../src/sim/fidelity/compare.js';
import { FIDELITY_ROWS } from '../src/sim/fidelity/measurements.js';
import { runFitData } from './fit-data.js';

const results = runFidelity();
const pad = (s: string, n: number) => s.padEnd(n);
console.log(
  `${pad('row', 26)}${pad('engine', 8)}${pad('model/gpu/tp', 26)}${pad('regime', 11)}${pad('metric', 13)}${pad('measured', 11)}${pad('simulated', 11)}error`,
);
for (const r of results) {
  const row = FIDELITY_ROWS.find((x) => x.id === r.id)!;
  console.log(
    `${pad(r.id, 26)}${pad(row.engine, 8)}${pad(`${row.model}/${row.gpu}/${row.tp}`, 26)}${pad(r.regime, 11)}${pad(r.metric, 13)}${pad(r.measured.toFixed(2), 11)}${pad(r.simulated.toFixed(2), 11)}${r.errorPct >= 0 ? '+' : ''}${r.errorPct.toFixed(1)}%`,
  );
}
const bands = bandsOf(results);
for (const b of bands)
  console.log(
    `${b.regime}: ${b.rows} rows, median |error| ${b.medianAbsErrorPct.toFixed(1)}%, max ${b.maxAbsErrorPct.toFixed(1)}%`,
  );
// The public fit experiments of issue 26, when ../shared/fit-data is there (not written to results.json).
console.log('');
runFitData();
if (process.argv.includes('--write')) {
  const file = resolve(import.meta.dirname, '../src/sim/fidelity/results.json');
  writeFileSync(file, `${JSON.stringify({ bands, results }, null, 2)}\n`);
  console.log(`wrote ${file}`);
}
