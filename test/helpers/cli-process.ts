/**
 * The CLI as a real process (test/helpers/cli-entry.ts under tsx, no build): exit code, stdout
 * and stderr, in the C locale unless `env` says otherwise, run from the repository (where tsx
 * resolves), so every path given should be absolute. A Node warning on its stderr fails the
 * call (./node-warnings).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { assertNoNodeWarning } from './node-warnings.js';

const ROOT = join(import.meta.dirname, '..', '..');
const ENTRY = join(ROOT, 'test', 'helpers', 'cli-entry.ts');

export function cliProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], {
      cwd: ROOT,
      env: { ...process.env, LANG: 'C', LC_ALL: '', LC_MESSAGES: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      try {
        assertNoNodeWarning(err, `servelab ${args.join(' ')}`);
        resolve({ code, out, err });
      } catch (e) {
        reject(e);
      }
    });
  });
}
