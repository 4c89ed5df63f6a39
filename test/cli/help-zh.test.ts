/**
 * `--help` in Chinese (issue 23: "Chinese everywhere prose appears … `--help` where commander
 * allows"). The program's command tree is taken from a real `main(['--help'])` (the command
 * whose help commander renders), so every command, option and argument a user can reach is
 * checked, not a list kept beside them:
 * - each description has a zh-CN translation (`i18n/zh-CN/help-text.ts` or a catalogue entry)
 *   that is Chinese and differs from its English text, and the table holds no entry that no
 *   description uses any more;
 * - each command's `--help` under LANG=zh_CN shows those translations, commander's own words in
 *   Chinese, and no line wider than 80 display columns;
 * - wrapping by display columns breaks Chinese between characters, keeps closing punctuation
 *   on its line, and wraps English exactly as commander does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Command, Help } from '@commander-js/extra-typings';
import { wrapColumns } from '../../src/cli/help.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { displayWidth } from '../../src/core/text-width.js';
import { HELP_TEXTS, helpTextEntry, translateHelpText } from '../../src/i18n/help.js';
import { CATALOGUES } from '../../src/i18n/index.js';
import '../helpers/node-warnings.js';

const CJK = /[\u4e00-\u9fff]/;
const ZH = { LANG: 'zh_CN.UTF-8' };

/** The program `main` builds under `env`: the command whose help `servelab --help` renders. */
async function programOf(env: Record<string, string>): Promise<Command> {
  // commander's own class (extra-typings re-exports it), observed, not replaced
  const proto = (await import('commander')).Command.prototype;
  const original = proto.helpInformation;
  let root: Command | undefined;
  proto.helpInformation = function (this: Command, ...args: Parameters<typeof original>) {
    root ??= this;
    return original.apply(this, args);
  };
  try {
    const io = memoryIo(env);
    assert.equal(await main(['--help'], io), 0, io.err());
  } finally {
    proto.helpInformation = original;
  }
  assert.ok(root, 'main rendered the program help');
  return root;
}

interface Described {
  /** `run --rate`, `exp init <kind>`, `exp run` */
  where: string;
  description: string;
}

/** Every command, option and argument `--help` shows, with the words commander shows for it. */
function reachable(root: Command): { commands: Described[]; items: Described[]; paths: string[][] } {
  const commands: Described[] = [];
  const items: Described[] = [];
  const paths: string[][] = [];
  const walk = (cmd: Command, path: string[]) => {
    const help = cmd.createHelp();
    paths.push(path);
    commands.push({ where: path.join(' ') || 'servelab', description: cmd.description() });
    for (const o of help.visibleOptions(cmd)) {
      items.push({ where: `${path.join(' ')} ${o.long ?? o.short}`, description: o.description });
      // the heading of its group of options (Command.optionsGroup), where it has one
      if (o.helpGroupHeading)
        items.push({ where: `${path.join(' ')} ${o.long}#heading`, description: o.helpGroupHeading });
    }
    for (const a of help.visibleArguments(cmd))
      items.push({ where: `${path.join(' ')} <${a.name()}>`, description: a.description });
    for (const sub of help.visibleCommands(cmd))
      if (sub.name() !== 'help') walk(sub as Command, [...path, sub.name()]);
  };
  walk(root, []);
  return { commands, items, paths };
}

describe('--help in Chinese', () => {
  it('every command, option and argument reachable from servelab --help has a Chinese description', async () => {
    const { commands, items } = reachable(await programOf(ZH));
    assert.ok(items.length > 200, `${items.length} options and arguments`);
    const problems: string[] = [];
    // Commands' descriptions (and the help and version options) come from the catalogue.
    for (const c of commands) if (!CJK.test(c.description)) problems.push(`${c.where}: ${c.description}`);
    for (const i of items) {
      if (CJK.test(i.description)) continue;
      const zh = translateHelpText(i.description, 'zh-CN');
      if (zh === undefined) problems.push(`${i.where}: no zh-CN entry for ${JSON.stringify(i.description)}`);
      else if (zh === i.description || !CJK.test(zh))
        problems.push(`${i.where}: the zh-CN entry is not Chinese: ${JSON.stringify(zh)}`);
    }
    assert.deepEqual(problems, [], 'add these to src/i18n/zh-CN/help-text.ts (keyed by the English text)');
  });

  it('the table holds no stale entry, and none equals its English text', async () => {
    const { items } = reachable(await programOf({ LANG: 'C' }));
    const used = new Set(items.map((i) => helpTextEntry(i.description, 'zh-CN')?.key));
    const table = HELP_TEXTS['zh-CN'];
    const stale = Object.keys(table).filter((k) => !used.has(k));
    assert.deepEqual(stale, [], 'no option or argument has this English description any more');
    const same = Object.entries(table).filter(([en, zh]) => zh === en || !CJK.test(zh));
    assert.deepEqual(same, []);
    // commander's own words are catalogue entries, translated too
    for (const key of Object.keys(CATALOGUES.en).filter((k) => k.startsWith('cli.help.')))
      assert.notEqual(
        (CATALOGUES['zh-CN'] as Record<string, string>)[key],
        (CATALOGUES.en as Record<string, string>)[key],
        key,
      );
  });

  it('each command’s --help under zh_CN shows the translations, in at most 80 columns', async () => {
    const { items, paths } = reachable(await programOf(ZH));
    const bare = (s: string) => s.replace(/\s+/g, '');
    const problems: string[] = [];
    let shown = 0;
    for (const path of paths) {
      const io = memoryIo(ZH);
      assert.equal(await main([...path, '--help'], io), 0, `${path.join(' ')}: ${io.err()}`);
      const out = io.out();
      const where = ['servelab', ...path, '--help'].join(' ');
      assert.match(out, /^用法： servelab/, where);
      assert.doesNotMatch(
        out,
        /\[options\]|\[command\]|\(default: |^(?:Options|Arguments|Commands):/m,
        where,
      );
      for (const line of out.split('\n'))
        if (displayWidth(line) > 80) problems.push(`${where}: ${displayWidth(line)} columns: ${line}`);
      const prefix = `${path.join(' ')} `;
      for (const i of items.filter(
        (i) => i.where.startsWith(prefix) && !i.where.slice(prefix.length).includes(' '),
      )) {
        const zh = translateHelpText(i.description, 'zh-CN') ?? i.description;
        if (!bare(out).includes(bare(zh))) problems.push(`${where}: ${i.where} is not shown as ${zh}`);
        shown++;
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(shown > 200, `${shown} descriptions checked in the rendered help`);
  });

  it('commander’s default and the usage words are Chinese; English help keeps commander’s words', async () => {
    const zh = memoryIo(ZH);
    assert.equal(await main(['runs', 'export', '--help'], zh), 0, zh.err());
    assert.match(zh.out(), /^用法： servelab runs export \[选项\] <id>$/m);
    assert.match(
      zh.out(),
      /^ {2}--format <fmt> +csv、jsonl、json 或 chrome-trace（引擎步骤，供 Perfetto 打开）\n +（默认："jsonl"）$/m,
    );
    const en = memoryIo({ LANG: 'C' });
    assert.equal(await main(['runs', 'export', '--help'], en), 0, en.err());
    assert.match(en.out(), /^Usage: servelab runs export \[options\] <id>$/m);
    assert.match(
      en.out(),
      /^ {2}--format <fmt> +csv, jsonl, json or chrome-trace \(the engine steps, for\n +Perfetto\) \(default: "jsonl"\)$/m,
    );
  });
  it('--lang before the command, or on a group of commands, gives that command’s help', async () => {
    for (const [args, usage] of [
      [['--lang', 'zh-CN', 'run', '--help'], /^用法： servelab run \[选项\]$/m],
      [['--lang=zh-CN', 'exp', 'run', '--help'], /^用法： servelab exp run \[选项\] <file>$/m],
      [['exp', '--help', '--lang', 'zh-CN'], /^用法： servelab exp \[选项\] \[命令\]$/m],
      [['trace', '--lang', 'zh-CN', '--help'], /^用法： servelab trace \[选项\] \[命令\]$/m],
      [['runs', 'export', '--help', '--lang', 'zh-CN'], /^用法： servelab runs export \[选项\] <id>$/m],
    ] as const) {
      const io = memoryIo({ LANG: 'C' });
      assert.equal(await main([...args], io), 0, `${args.join(' ')}: ${io.err()}`);
      assert.match(io.out(), usage, args.join(' '));
    }
    // runs export takes --lang outside --help too: its usage problems (no store here) read in Chinese.
    const io = memoryIo({ LANG: 'C' });
    assert.equal(await main(['runs', 'export', 'x', '--db', 'none.db', '--lang', 'zh-CN'], io), 1);
    assert.match(io.err(), /^ {2}- --db: /m);
    assert.doesNotMatch(io.err(), /no store|unknown option/);
  });
});

describe('commander’s own errors in Chinese', () => {
  it('says each in the reader’s language, and points at the help of the command it is about', async () => {
    const rows: [string[], RegExp, RegExp][] = [
      [['exp', 'run'], /^错误：缺少必需的参数 'file'$/m, /^error: missing required argument 'file'$/m],
      [
        ['merge', 'a.json'],
        /^错误：未给出必需的选项 '--expect <n>'$/m,
        /^error: required option '--expect <n>' not specified$/m,
      ],
      [
        ['run', 'extra'],
        /^错误：'run' 的参数过多：应有 0 个，实际给了 1 个。$/m,
        /^error: too many arguments for 'run'\. Expected 0 arguments but got 1\.$/m,
      ],
      [
        ['exp', 'rnu'],
        /^错误：未知命令 'rnu'\n（你是不是想用 run？）$/m,
        /^error: unknown command 'rnu'\n\(Did you mean run\?\)$/m,
      ],
    ];
    for (const [args, zh, en] of rows) {
      const z = memoryIo(ZH);
      assert.equal(await main(args, z), 1, args.join(' '));
      assert.match(z.err(), zh, args.join(' '));
      assert.match(
        z.err(),
        new RegExp(
          `提示：参见 'servelab ${args[0]}${args[0] === 'exp' && args[1] === 'run' ? ' run' : ''} --help'`,
        ),
      );
      const e = memoryIo({ LANG: 'C' });
      assert.equal(await main(args, e), 1, args.join(' '));
      assert.match(e.err(), en, args.join(' '));
    }
  });
});

describe('wrapping by display columns', () => {
  it('breaks Chinese between characters, never before closing punctuation, within the width', () => {
    const s =
      '把 report.json、requests.jsonl 和 summary.csv 写到这个目录，然后以 JSON 写到文件或标准输出（默认：无）';
    for (const width of [12, 20, 33, 40]) {
      const lines = wrapColumns(s, width).split('\n');
      assert.equal(lines.join('').replace(/\s/g, ''), s.replace(/\s/g, ''), 'nothing lost');
      for (const l of lines) {
        assert.ok(displayWidth(l) <= width || !/\s|[\u4e00-\u9fff]/.test(l.slice(1)), `${width}: ${l}`);
        assert.doesNotMatch(l, /^[，。、；：）]/, `${width}: a line starts with closing punctuation: ${l}`);
        assert.doesNotMatch(l, /（$/, `${width}: a line ends with opening punctuation: ${l}`);
      }
    }
  });

  it('wraps English exactly as commander does', () => {
    const help = new Help();
    const s =
      "receive the engine's OpenTelemetry spans (OTLP/HTTP) on this local port and send a traceparent with every request, so each record is joined to its span (default: off)\nsecond  line";
    for (const width of [40, 57, 80]) assert.equal(wrapColumns(s, width), help.boxWrap(s, width), `${width}`);
  });
});
