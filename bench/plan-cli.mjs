/**
 * @module bench/plan-cli
 * Runs `servelab plan` with argv[2…] as the CLI would, then prints its CPU time as the last
 * stderr line (`bench-cpu-ms N`), for bench/plan.ts. Plain JavaScript, so that with a built
 * `dist/` it starts exactly as `bin/servelab.js` does (no tsx). With SERVELAB_BENCH_SRC=1 it
 * loads the TypeScript sources instead (run it under `--import tsx`).
 */
const entry = process.env.SERVELAB_BENCH_SRC ? '../src/cli/main.ts' : '../dist/cli/main.js';
const { main } = await import(entry);
const code = await main(process.argv.slice(2));
const cpu = process.cpuUsage();
process.stderr.write(`bench-cpu-ms ${((cpu.user + cpu.system) / 1000).toFixed(1)}\n`);
process.exitCode = code;
