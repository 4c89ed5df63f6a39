/**
 * Every experiment leads with its own answer, on every surface. For each shipped template
 * (`servelab exp init KIND`, as shipped, its simulators on the virtual clock): `exp run` through
 * the CLI, then `report ID` on the console, `--json`, `--html` and `--md`, and the dashboard's
 * experiment API over loopback (`servelab dashboard --port 0`). Each must carry the same verdict
 * sentence, and show it before any finding, headline or run table.
 *
 * Kinds whose `answer` is not written yet are in {@link PENDING}; the test fails when a pending
 * kind has one, so the set cannot go stale (empty it as the kinds get their answers).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { KINDS } from '../../src/exp/index.js';
import { escapeHtml } from '../../src/report/comparison-table.js';
import '../helpers/node-warnings.js';

/** Every kind `exp init` ships a template of, that this test runs. */
const SHIPPED = [
  'ab',
  'baseline',
  'prefix-cache',
  'concurrency-sweep',
  'rate-sweep',
  'mixed-input',
  'matrix',
  'team-assistant',
] as const;

/** Kinds without an `answer` yet (the lead empties this as they get one). */
const PENDING = new Set<string>([]);

/**
 * The shipped template on the virtual clock: every simulator target gets `clock: virtual`, so
 * the run takes no wall time and a seed reproduces it. Nothing else changes: the kind's
 * structure (levels, phases, sides, blocks) is as shipped.
 */
function virtualTemplate(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let sims = 0;
  for (let i = 0; i < lines.length; i++) {
    out.push(lines[i]);
    if (!/^ {4}sim:[ \t]*$/.test(lines[i])) continue;
    sims += 1;
    // The block's own lines (deeper than `sim:`); a template may set the clock itself.
    let j = i + 1;
    while (j < lines.length && /^ {6}/.test(lines[j])) j += 1;
    const block = lines.slice(i + 1, j).map((l) => l.replace(/^( {6})clock:.*$/, '$1clock: virtual'));
    if (!block.some((l) => /^ {6}clock: virtual/.test(l))) out.push('      clock: virtual');
    out.push(...block);
    i = j - 1;
  }
  assert.ok(sims > 0, 'the template has a simulator target to put on the virtual clock');
  return out.join('\n');
}

const dir = mkdtempSync(join(tmpdir(), 'servelab-answers-'));
const db = join(dir, 'answers.db');
after(() => rmSync(dir, { recursive: true, force: true }));

/** Run the CLI in-process; fail with its stderr when it does not exit 0. */
async function cli(args: string[]): Promise<{ out: string; err: string }> {
  const io = memoryIo({}, dir);
  const code = await main(args, io);
  assert.equal(code, 0, `servelab ${args.join(' ')}\n${io.err().slice(-3000)}`);
  return { out: io.out(), err: io.err() };
}

/** GET a loopback URL: status and body. */
function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

/** `a` occurs in `text` before `b` (or `b` does not occur at all). */
function before_(text: string, a: string, b: string | RegExp, what: string): void {
  const i = text.indexOf(a);
  assert.ok(i >= 0, `${what}: the verdict is missing\n${a}`);
  const j = typeof b === 'string' ? text.indexOf(b) : text.search(b);
  if (j >= 0) assert.ok(i < j, `${what}: the verdict comes after ${String(b)}`);
}

/** What each answered kind's experiment left: its id, name and verdict. */
const answered = new Map<string, { id: string; name: string; verdict: string; consoleOut: string }>();

describe('every experiment leads with its own answer', () => {
  it('PENDING lists exactly the shipped kinds without an answer', () => {
    for (const kind of SHIPPED) {
      assert.ok(Object.hasOwn(KINDS, kind), `${kind} is a kind`);
      const has = typeof (KINDS[kind] as { answer?: unknown }).answer === 'function';
      if (PENDING.has(kind))
        assert.ok(!has, `${kind} has an answer now: remove it from PENDING in this test`);
      else assert.ok(has, `${kind} has no answer: write one (or, for now, list it in PENDING)`);
    }
  });

  for (const kind of SHIPPED) {
    if (PENDING.has(kind)) continue;
    describe(kind, () => {
      before(async () => {
        const init = await cli(['exp', 'init', kind]);
        writeFileSync(join(dir, `${kind}.yaml`), virtualTemplate(init.out));
        const run = await cli(['exp', 'run', `${kind}.yaml`, '--db', db]);
        const id = /experiment ([a-z0-9]+):/.exec(run.err)?.[1];
        assert.ok(id, run.err);
        const json = await cli(['report', id, '--db', db, '--json']);
        const report = JSON.parse(json.out);
        assert.ok(report.answer, `${kind}: report --json has an answer`);
        const name = /^name: (.+)$/m.exec(init.out)?.[1]?.trim() ?? kind;
        answered.set(kind, { id, name, verdict: report.answer.verdict, consoleOut: run.out });
      });

      it('exp run prints the answer first', () => {
        const a = answered.get(kind);
        assert.ok(a);
        assert.ok(a.verdict.length > 0);
        before_(a.consoleOut, a.verdict, /^runs: /m, 'exp run');
        before_(a.consoleOut, a.verdict, /^warning: /m, 'exp run');
      });

      it('report --json carries the answer before the runs, the table and the findings', async () => {
        const a = answered.get(kind);
        assert.ok(a);
        const { out } = await cli(['report', a.id, '--db', db, '--json']);
        const report = JSON.parse(out);
        assert.equal(report.answer.verdict, a.verdict);
        assert.equal(report.answer.kind, kind);
        for (const k of ['question', 'verdict', 'table', 'chart', 'run_ids'])
          assert.ok(k in report.answer, k);
        assert.ok(report.answer.run_ids.length > 0);
        // The kind's own lead chart: A against B (two lines, every block pooled), cold against warm.
        if (kind === 'ab')
          assert.deepEqual(
            report.answer.chart.series.map((x: { name: string }) => x.name),
            ['A bf16-kv', 'B fp8-kv'],
          );
        if (kind === 'baseline') assert.equal(report.answer.chart.type, 'bar');
        const keys = Object.keys(report);
        for (const k of ['runs', 'table', 'findings'])
          assert.ok(keys.indexOf('answer') < keys.indexOf(k), `answer before ${k}`);
      });

      it('report on the console, --html and --md lead with the verdict; the page is titled with the name', async () => {
        const a = answered.get(kind);
        assert.ok(a);
        const html = join(dir, `${kind}.html`);
        const md = join(dir, `${kind}.md`);
        const { out } = await cli(['report', a.id, '--db', db, '--html', html, '--md', md]);
        before_(out, a.verdict, /^run {2,}/m, 'report console (run table)');
        before_(out, a.verdict, /^valid: /m, 'report console (the diagnosis)');
        before_(out, a.verdict, /^findings: /m, 'report console (the findings)');
        const page = readFileSync(html, 'utf8');
        const v = escapeHtml(a.verdict);
        assert.match(page, new RegExp(`<title>${escapeHtml(a.name)}</title>`));
        for (const later of ['id="headline"', 'class="finding', '<table class="comparison', 'class="level"'])
          before_(page, v, later, `report --html (${later})`);
        // One level (a baseline's targets at concurrency 1) is no load curve: no knee to reach.
        if (kind === 'baseline') assert.doesNotMatch(page, /Knee: not reached/);
        const text = readFileSync(md, 'utf8');
        assert.match(text, new RegExp(`^# ${a.name}$`, 'm'));
        for (const later of ['**valid', '**NOT VALID', '## 1.', '## 5.'])
          before_(text, `**${a.verdict}**`, later, `report --md (${later})`);
      });
    });
  }

  describe('the dashboard', () => {
    it("leads each experiment's page with its answer (API over loopback)", async () => {
      const kinds = [...answered.keys()];
      assert.ok(kinds.length > 0, 'some kind was answered');
      const io = memoryIo({}, dir);
      const served = main(['dashboard', '--db', db, '--port', '0'], io);
      try {
        // The ready line names the port the server bound.
        let url: string | undefined;
        while (!url) {
          url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(io.out())?.[1];
          if (!url) {
            assert.equal(io.err(), '', 'the dashboard started');
            await new Promise((r) => setImmediate(r));
          }
        }
        for (const kind of kinds) {
          const a = answered.get(kind);
          assert.ok(a);
          const r = await get(`${url}/api/experiments/${a.id}`);
          assert.equal(r.status, 200, r.body);
          const body = JSON.parse(r.body);
          assert.equal(body.answer?.verdict, a.verdict, `${kind}: the dashboard's answer`);
          const keys = Object.keys(body);
          for (const k of ['headline_html', 'table_html', 'diagnosis_html'])
            assert.ok(keys.indexOf('answer_html') < keys.indexOf(k), `answer_html before ${k}`);
          assert.ok(body.answer_html.includes(escapeHtml(a.verdict)), `${kind}: the answer section`);
        }
        // The page puts the answer section above the headline.
        const js = await get(`${url}/app.js`);
        before_(js.body, "fragment('experiment-answer'", "fragment('experiment-headline'", 'the page');
      } finally {
        io.interrupt();
        await served;
      }
    });
  });
});
