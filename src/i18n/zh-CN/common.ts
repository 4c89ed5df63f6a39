import type { common as en } from '../en/common.js';

/** 所有命令共用的文字。 */
export const common: Record<keyof typeof en, string> = {
  'common.lang.unknown': '未知语言 "{value}"',
  'common.lang.hint': '请使用 --lang en 或 --lang zh-CN（默认跟随 LC_ALL / LANG）',
  'common.yaml.syntax': '不是有效的 YAML（或 JSON）：{error}',
  'common.yaml.aliases': 'YAML 别名展开过多（{error}）',
  'common.yaml.aliases_hint': '把重复的值直接写出来，或少用别名（`*name`）',
  'common.none': '无',
  'common.missing': '缺失',
};
