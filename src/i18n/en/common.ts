/** Prose shared by every command. */
export const common = {
  'common.lang.unknown': 'unknown language "{value}"',
  'common.lang.hint': 'use --lang en or --lang zh-CN (the default follows LC_ALL / LANG)',
  'common.yaml.syntax': 'not valid YAML (or JSON): {error}',
  'common.yaml.aliases': 'its YAML aliases expand too far ({error})',
  'common.yaml.aliases_hint': 'write the repeated values out, or use fewer aliases (`*name`)',
  'common.none': 'none',
  'common.missing': 'missing',
} as const;
