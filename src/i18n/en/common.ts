/** Prose shared by every command. */
export const common = {
  'common.lang.unknown': 'unknown language "{value}"',
  'common.lang.hint': 'use --lang en or --lang zh-CN (the default follows LC_ALL / LANG)',
  'common.none': 'none',
  'common.missing': 'missing',
} as const;
