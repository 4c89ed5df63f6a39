/**
 * @module cli/help
 * `--help` in the reader's language, where commander lets it be: commander 14 builds the help
 * from overridable methods of its `Help` class (`Command.configureHelp`; commander v14.0.3,
 * lib/help.js), so the titles, the usage line's `[options]`/`[command]`, each option's and
 * argument's description (`i18n/help`) and what commander adds to it (`(default: …)`,
 * `(choices: …)`) are rendered here in `t`'s language; the declarations stay English. Widths are
 * display columns (`core/text-width`: a Chinese character takes two), and lines wrap between
 * Chinese characters as well as at spaces, since Chinese prose has no spaces to wrap at.
 */
import { type Argument, Help, type HelpConfiguration, type Option } from '@commander-js/extra-typings';
import { displayWidth } from '../core/text-width.js';
import { translateHelpText } from '../i18n/help.js';
import type { MessageKey, T } from '../i18n/index.js';
import { translateStored } from '../i18n/stored.js';

const TITLES: Record<string, MessageKey> = {
  'Usage:': 'cli.help.usage',
  'Options:': 'cli.help.options',
  'Commands:': 'cli.help.commands',
  'Arguments:': 'cli.help.arguments',
  'Global Options:': 'cli.help.global_options',
};

// Wide characters are those core/text-width counts as two columns. Closing punctuation stays
// at the end of the line before it, and opening punctuation with what follows (the Chinese
// line-breaking rule, JIS X 4051 / W3C "Requirements for Chinese Text Layout" §3.1.7).
const WIDE = '\\u{2e80}-\\u{10ffff}';
const CLOSE = '，。、；：！？）」』》】”’…';
const OPEN = '（「『《【“‘';
/** One unbreakable piece of a line, with the spaces before it. */
const CHUNK = new RegExp(`\\s*[${OPEN}]*(?:[${WIDE}]|[^\\s${WIDE}]+)[${CLOSE}]*`, 'gu');

/** `str` wrapped to `width` display columns, keeping its own line breaks (commander's `boxWrap`, by columns). */
export function wrapColumns(str: string, width: number): string {
  const out: string[] = [];
  for (const line of str.split(/\r\n|\n/)) {
    const chunks = line.match(CHUNK);
    if (chunks === null) {
      out.push('');
      continue;
    }
    let current = chunks[0] as string;
    let used = displayWidth(current);
    for (const chunk of chunks.slice(1)) {
      const w = displayWidth(chunk);
      if (used + w <= width) {
        current += chunk;
        used += w;
        continue;
      }
      out.push(current);
      current = chunk.trimStart();
      used = displayWidth(current);
    }
    out.push(current);
  }
  return out.join('\n');
}

/** The help of every command in `t`'s language (given to `configureHelp`, which subcommands inherit). */
export function localHelp(t: T): HelpConfiguration {
  const text = (s: string) => (s ? (translateHelpText(s, t.lang) ?? s) : s);
  const words = (s: string) =>
    s
      .split(' ')
      .map((w) =>
        w === '[options]' ? t('cli.help.options_arg') : w === '[command]' ? t('cli.help.command_arg') : w,
      )
      .join(' ');
  /** A description and commander's additions (commander's `optionDescription` wording). */
  const withExtra = (description: string, extra: string[]) => {
    if (!extra.length) return description;
    const joined = extra.join(t('cli.help.extra_sep'));
    return description
      ? t('cli.help.extra', { description, extra: joined })
      : t('cli.help.extra_only', { extra: joined });
  };
  const choices = (values: readonly string[] | undefined) =>
    values ? [t('cli.help.choices', { values: values.map((v) => JSON.stringify(v)).join(', ') })] : [];
  return {
    // commander's titles, and the headings of option groups (Command.optionsGroup)
    styleTitle: (title: string) => {
      const key = TITLES[title];
      return key ? t(key) : text(title);
    },
    commandUsage(this: Help, cmd) {
      return words(Help.prototype.commandUsage.call(this, cmd));
    },
    subcommandTerm(this: Help, cmd) {
      return words(Help.prototype.subcommandTerm.call(this, cmd));
    },
    optionDescription(option: Option) {
      const extra = choices(option.argChoices);
      // As commander shows a default: for an option with a value, or a boolean default.
      const shown =
        option.required ||
        option.optional ||
        (option.isBoolean() && typeof option.defaultValue === 'boolean');
      if (option.defaultValue !== undefined && shown)
        extra.push(
          t('cli.help.default', {
            value: option.defaultValueDescription || JSON.stringify(option.defaultValue),
          }),
        );
      if (option.presetArg !== undefined && option.optional)
        extra.push(t('cli.help.preset', { value: JSON.stringify(option.presetArg) }));
      if (option.envVar !== undefined) extra.push(t('cli.help.env', { name: option.envVar }));
      return withExtra(text(option.description), extra);
    },
    argumentDescription(argument: Argument) {
      const extra = choices(argument.argChoices);
      if (argument.defaultValue !== undefined)
        extra.push(
          t('cli.help.default', {
            value: argument.defaultValueDescription || JSON.stringify(argument.defaultValue),
          }),
        );
      return withExtra(text(argument.description), extra);
    },
    // commander styles nothing unless told to (Help.style*), so there are no colour codes to skip
    displayWidth,
    boxWrap(this: Help, str: string, width: number) {
      return width < this.minWidthToWrap ? str : wrapColumns(str, width);
    },
  };
}

/**
 * One of commander's own errors (`error: missing required argument 'file'`), given to
 * `configureOutput`'s `outputError`, in `t`'s language: each line that is one of commander's
 * messages (`cli.commander.*`, its placeholders read as wildcards) is said again; anything
 * else is left as commander wrote it.
 */
export function commanderError(str: string, t: T): string {
  return str
    .split('\n')
    .map((line) => translateStored(line, t, ['cli.commander.']))
    .join('\n');
}
