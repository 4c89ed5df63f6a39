/**
 * @module core/yaml
 * The one reader of YAML (and JSON) text a user hands servelab outside an experiment file (a
 * simulator catalogue, a calibration profile, an inference-perf config): a syntax error, or an
 * alias bomb (yaml refuses aliases that expand past its `maxAliasCount`, 100 by default, with a
 * ReferenceError), is a usage error on the file with a hint, never a stack. The experiment file
 * keeps its own reader (`exp/schema`), which also gives each problem its line.
 */
import { parse } from 'yaml';
import { type T, translator } from '../i18n/index.js';
import { UsageError } from './errors.js';

/**
 * Parse `text` read from `label`.
 * @param syntaxHint what to do about a syntax error in this kind of file
 * @throws UsageError on a syntax error or an alias bomb
 */
export function parseUserYaml(
  text: string,
  label: string,
  syntaxHint: string,
  t: T = translator('en'),
): unknown {
  try {
    return parse(text);
  } catch (e) {
    const error = (e as Error).message.split('\n')[0];
    if (e instanceof ReferenceError)
      throw new UsageError([
        { path: label, message: t('common.yaml.aliases', { error }), hint: t('common.yaml.aliases_hint') },
      ]);
    throw new UsageError([{ path: label, message: t('common.yaml.syntax', { error }), hint: syntaxHint }]);
  }
}
