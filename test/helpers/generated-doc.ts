/**
 * Docs sections generated from code: a section sits between `<!-- NAME:start … -->` and
 * `<!-- NAME:end -->` markers, and the test that owns it checks the doc holds what the code
 * generates now, or rewrites it when run with `UPDATE_DOCS=1`.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * Assert that `doc` holds `generated` between its `name` markers (with `UPDATE_DOCS` set, write
 * it there instead), and return the section as the doc had it.
 * @param doc path of the Markdown file
 * @param name marker name (`sim-settings` for `<!-- sim-settings:start … -->`)
 * @param testFile the test that owns the section, named in the failure's hint
 */
export function assertGeneratedSection(
  doc: string,
  name: string,
  generated: string,
  testFile: string,
): string {
  const text = readFileSync(doc, 'utf8');
  const start = new RegExp(`<!-- ${name}:start[^\\n]*-->\\n`).exec(text);
  const end = text.indexOf(`\n<!-- ${name}:end -->`);
  const rel = relative(ROOT, doc);
  assert.ok(start && end > start.index, `${rel} has the ${name} markers`);
  const from = start.index + start[0].length;
  const section = text.slice(from, end);
  if (process.env.UPDATE_DOCS) writeFileSync(doc, text.slice(0, from) + generated + text.slice(end));
  else
    assert.equal(
      section,
      generated,
      `${rel} is out of date: run UPDATE_DOCS=1 node --import tsx --test ${relative(ROOT, testFile)}`,
    );
  return section;
}
