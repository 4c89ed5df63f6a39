/**
 * Exports in the three formats parse back to the stored records.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import type { RequestRecord } from '../../src/record/types.js';
import {
  CSV_COLUMNS,
  csvCell,
  type ExportFormat,
  exportRun,
  openStore,
  type Store,
} from '../../src/store/index.js';
import { collector, makeErrorRecord, makeRecord, parseCsv, tempDir } from './helpers.js';

const tmp = tempDir();
let store: Store;
let runId: string;
const recs: RequestRecord[] = [makeRecord(0), makeErrorRecord(1), makeRecord(2, 20, 7)];

before(() => {
  store = openStore(join(tmp.dir, 'x.db'));
  runId = store.createRun({ kind: 'run', label: 'exp,"odd" label', config: { concurrency: 2 } }).id;
  for (const r of recs) store.appendRecord(runId, r);
  store.addSeries(runId, [{ source: 's', name: 'vllm:num_requests_waiting', t_ms: 1, value: 0 }]);
  store.finishRun(runId, { requests: 3 }, 'completed');
});
after(() => {
  store.close();
  tmp.cleanup();
});

async function exportText(format: ExportFormat, id = runId): Promise<string> {
  const c = collector();
  await exportRun(store, id, format, c.out);
  return c.text();
}

describe('exportRun', () => {
  it('csv: a header and one flat row per record, quoting where needed', async () => {
    const rows = parseCsv(await exportText('csv'));
    assert.deepEqual(rows[0], [...CSV_COLUMNS]);
    assert.equal(rows.length, 1 + recs.length);
    const col = (name: (typeof CSV_COLUMNS)[number], row: number) => rows[row + 1][CSV_COLUMNS.indexOf(name)];
    for (let i = 0; i < recs.length; i++) {
      assert.equal(rows[i + 1].length, CSV_COLUMNS.length);
      assert.equal(col('run_id', i), runId);
      assert.equal(col('seq', i), String(i));
      assert.equal(col('id', i), recs[i].id);
      assert.equal(col('outcome', i), recs[i].outcome);
      assert.equal(col('error', i), recs[i].error ?? '');
      assert.deepEqual(JSON.parse(col('chunk_times_ms', i)), recs[i].chunk_times_ms);
      assert.equal(col('n_chunks', i), String(recs[i].chunk_times_ms.length));
      assert.equal(
        col('completion_tokens', i),
        recs[i].usage ? String(recs[i].usage?.completion_tokens) : '',
      );
      assert.equal(
        col('first_token_at_ms', i),
        recs[i].first_token_at_ms === null ? '' : String(recs[i].first_token_at_ms),
      );
    }
    assert.equal(col('chunk_kinds', 0), 'rccc');
    assert.deepEqual(JSON.parse(col('timings', 1)), recs[1].timings);
  });

  it('jsonl: one record per line with run_id and seq', async () => {
    const lines = (await exportText('jsonl')).trimEnd().split('\n');
    assert.equal(lines.length, recs.length);
    lines.forEach((l, i) => {
      const { run_id, seq, ...rest } = JSON.parse(l) as RequestRecord & { run_id: string; seq: number };
      assert.equal(run_id, runId);
      assert.equal(seq, i);
      assert.deepEqual(rest, recs[i]);
    });
  });

  it('json: one object with the run, its records and series', async () => {
    const doc = JSON.parse(await exportText('json')) as {
      format: string;
      run: { id: string; status: string; config: unknown; summary: unknown; label: string };
      records: RequestRecord[];
      series: unknown[];
    };
    assert.equal(doc.format, 'servelab-run');
    assert.equal(doc.run.id, runId);
    assert.equal(doc.run.status, 'completed');
    assert.equal(doc.run.label, 'exp,"odd" label');
    assert.deepEqual(doc.run.summary, { requests: 3 });
    assert.deepEqual(doc.records, recs);
    assert.equal(doc.series.length, 1);
  });

  it('json of a run with no records is still valid JSON', async () => {
    const empty = store.createRun({ kind: 'plan' });
    const doc = JSON.parse(await exportText('json', empty.id)) as { records: unknown[] };
    assert.deepEqual(doc.records, []);
  });

  it('accepts an id prefix; refuses unknown runs and formats as usage errors', async () => {
    const rows = parseCsv(await exportText('csv', runId.slice(0, 6)));
    assert.equal(rows.length, 1 + recs.length);
    await assert.rejects(exportText('csv', 'zzzzzzzz'), UsageError);
    await assert.rejects(
      exportText('parquet' as ExportFormat),
      (e: unknown) => e instanceof UsageError && /csv, jsonl, json/.test(e.message),
    );
  });

  it('csvCell quotes commas, quotes and newlines and leaves nulls empty', () => {
    assert.equal(csvCell(null), '');
    assert.equal(csvCell('a,b'), '"a,b"');
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell('x\ny'), '"x\ny"');
    assert.equal(csvCell(1.5), '1.5');
    assert.equal(csvCell(false), 'false');
  });
});
