/**
 * @module cli/main
 * The command line, kept thin: each command parses its flags, validates them into settings
 * (every problem at once, each with a hint) and hands over to the stages. Command bodies are
 * imported lazily so `servelab --help` stays fast.
 */
import { Command, CommanderError, Option } from '@commander-js/extra-typings';
import {
  asStorageError,
  ExitCode,
  formatProblem,
  TargetError,
  UsageError,
  worstExitCode,
} from '../core/errors.js';
import { rememberArgvSecrets } from '../core/redact.js';
import { parseLang, resolveLang, type T, translator } from '../i18n/index.js';
import { addSimOptions } from './commands/sim-flags.js';
import { declareVoiceCommand, VOICE } from './commands/voice-flags.js';
import { commanderError, localHelp } from './help.js';
import { type Io, processIo, redactingIo, takeStreamFailure } from './io.js';
import {
  addCompatOptions,
  addGenerationOptions,
  addLangOption,
  addLoadOptions,
  addOutputOptions,
  addRequestOptions,
  addTargetAliases,
  addTargetOption,
  addWorkloadOptions,
  LANG_OPTION_HELP,
  placeLangFlag,
} from './options.js';
import { formatStorageError } from './storage-errors.js';
import { unknownFlags } from './unknown-flags.js';
import { VERSION } from './version.js';

type Action = (io: Io) => Promise<number>;

/**
 * The language of the CLI's own framing (usage errors, unknown flags), read before commander
 * parses: `--lang X` / `--lang=X` anywhere in argv, else the locale. An unknown value reads as
 * the locale's language here; the command then reports it as a usage problem.
 */
function argvLang(argv: readonly string[], env: Io['env']): T {
  const i = argv.findIndex((a) => a === '--lang' || a.startsWith('--lang='));
  const flag = i < 0 ? undefined : argv[i].startsWith('--lang=') ? argv[i].slice(7) : argv[i + 1];
  return translator((flag === undefined ? undefined : parseLang(flag)) ?? resolveLang(undefined, env));
}

/** Run the CLI with `argv` (without node and script) and return the exit code. */
export async function main(argv: string[], given: Io = processIo()): Promise<number> {
  rememberArgvSecrets(argv, given.env);
  const io = redactingIo(given);
  let action: Action | undefined;
  const t = argvLang(argv, io.env);
  const program = new Command('servelab')
    .description(t('cli.cmd.program'))
    .version(VERSION, '-V, --version', t('cli.help.version'))
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(commanderError(s, t)),
    })
    // --help in the chosen language (cli/help): every subcommand inherits it
    // (Command.copyInheritedSettings); the help option and command, and the commands'
    // descriptions, are catalogue entries.
    .configureHelp(localHelp(t))
    .helpOption('-h, --help', t('cli.help.help'))
    .helpCommand('help [command]', t('cli.help.help'));

  const run = program.command('run').description(t('cli.cmd.run'));
  addTargetOption(run, 'url').option(
    '--endpoint <kind>',
    'chat or completions (vLLM path forms /v1/chat/completions, /v1/completions too; default chat)',
  );
  addTargetOption(run, 'extra_body')
    .option('--header <k:v>', 'extra request header (repeatable)', (v: string, p: string[] | undefined) => [
      ...(p ?? []),
      v,
    ])
    .option('--api-key-env <name>', 'environment variable holding the API key', 'INFERENCE_API_KEY')
    .option(
      '--session-header <name>',
      "sessions: the header carrying each turn's session id, for routers with affinity",
      'x-session-id',
    )
    .option('--retries <n>', 'retry failed attempts up to n times (each attempt is its own record)', '0')
    .option(
      '--no-fail-fast',
      'keep sending when the first 20 requests all fail with the same 401/403/404 or context-length 400',
    )
    .option(
      '--scrape <url>',
      "Prometheus /metrics URL to scrape during the run (repeatable; default: the target's /metrics if it answers)",
      (v: string, p: string[] | undefined) => [...(p ?? []), v],
    )
    .option('--no-scrape', "don't scrape the target's /metrics")
    .option('--scrape-interval <s>', 'scrape interval in seconds', '1')
    .option(
      '--metrics-port <p>',
      "serve servelab's own Prometheus metrics on this port during the run (0 = any)",
    )
    .option('--db <file>', 'the store (an SQLite file)', 'servelab.db')
    .option('--no-db', "don't record into the store")
    .option('--label <text>', 'a label for this run in the store')
    .option(
      '--shard <i/N>',
      'send shard i of N (requests k with k mod N = i; default $JOB_COMPLETION_INDEX/$SERVELAB_SHARD_COUNT)',
    )
    .option('--start-at <time>', "the shards' common start (RFC 3339); needed with N > 1")
    .option('--start-in <s>', 'the common start, this many seconds from now')
    .option(
      '--late-policy <p>',
      'a shard more than 1 s late: fail (default: send nothing, exit non-zero) or truncate',
    )
    .option(
      '--workers <n>',
      'split the run over n child processes on this host (auto: one per core), merged exactly (default 1)',
    );
  addRequestOptions(run);
  addGenerationOptions(run);
  addWorkloadOptions(run);
  addLoadOptions(run);
  addOutputOptions(run);
  addTargetAliases(addCompatOptions(run))
    .option('--host <host>', 'vLLM: --url http://HOST:PORT/v1 (default host 127.0.0.1)')
    .option('--port <port>', 'vLLM: --url http://HOST:PORT/v1 (default port 8000)')
    .option('--backend <name>', 'vLLM: openai-chat is --endpoint chat; vllm, openai: completions')
    .option('--disable-stream', 'SGLang: --no-stream');
  addLangOption(run);
  run.action((opts) => {
    action = async (io) =>
      (await import('./commands/run.js')).runCommand(opts, io, argv.slice(argv.indexOf('run') + 1));
  });

  const check = program
    .command('check')
    .description(t('cli.cmd.check'))
    .requiredOption(
      '--url <base>',
      'OpenAI base URL, e.g. http://127.0.0.1:8000/v1 (a bare http://host:port gets /v1)',
    )
    .option('--model <name>', 'model to probe (default: the first listed)')
    .option('--api-key-env <name>', 'environment variable holding the API key', 'INFERENCE_API_KEY')
    .option('--json [file]', 'write the result as JSON to file, or stdout');
  addLangOption(check).action((opts) => {
    action = async (io) => (await import('./commands/check.js')).checkCommand(opts, io);
  });

  const gate = program
    .command('gate')
    .description(t('cli.cmd.gate'))
    .option('--old <base>', 'the old version: OpenAI base URL, e.g. http://10.0.0.1:8000/v1')
    .option('--new <base>', 'the new version: OpenAI base URL')
    .option('--url <base>', 'one endpoint: the same checks as a conformance report, without a diff')
    .option('--model <name>', 'model to ask for (default: the first /v1/models lists)')
    .option('--checks <list>', 'all, or check ids, group names or numbers, comma-separated', 'all')
    .option('--json [file]', 'write the result as JSON to file, or stdout')
    .option('--junit <file>', 'write a JUnit XML report (CI)')
    .option('--probe', 'repeat the cheap checks at a low rate against both pools until --duration ends')
    .option('--duration <d>', 'with --probe: how long, e.g. 10m, 90s (default 10m)')
    .option('--interval <d>', 'with --probe: pause between passes (default 30s)')
    .option('--timeout <s>', 'per-request timeout in seconds (default 120)')
    .option('--seed <n>', 'seed of the sampled requests (default 1)')
    .option('--api-key-env <name>', 'environment variable holding the API key', 'INFERENCE_API_KEY');
  addLangOption(gate).action((opts) => {
    action = async (io) => (await import('./commands/gate.js')).gateCommand(opts, io);
  });

  const demo = program
    .command('demo')
    .description(t('cli.cmd.demo', { voice: VOICE }))
    .argument('[kind]', `${VOICE}: time the first-audio path (ASR → LLM → TTS) on the simulator instead`)
    .option(
      '--out <dir>',
      'where to write the reports (default servelab-out/demo, or servelab-out/demo-voice)',
    )
    .option('--json [file]', 'write both summaries as JSON to file, or stdout');
  addLangOption(demo).action((kind, opts) => {
    action = async (io) => {
      if (kind === VOICE) return (await import('./commands/voice.js')).demoVoiceCommand(opts, io);
      if (kind !== undefined)
        throw new UsageError([
          { path: 'demo', message: t('voice.demo.unknown', { kind }), hint: t('voice.demo.unknown_hint') },
        ]);
      return (await import('./commands/demo.js')).demoCommand(opts, io);
    };
  });

  const voice = declareVoiceCommand(program, t);
  addGenerationOptions(voice);
  addLangOption(voice).action((opts) => {
    action = async (io) => (await import('./commands/voice.js')).voiceCommand(opts, io);
  });

  const sim = program.command('sim').description(t('cli.cmd.sim'));
  addSimOptions(sim, 'sim')
    .addOption(new Option('--seed <n>', 'deprecated: the name of --sim-seed until now').hideHelp())
    .option('--json [file]', 'write {url, base_url, port, model} as JSON to file, or stdout, once listening');
  addLangOption(sim).action((opts) => {
    action = async (io) => (await import('./commands/sim.js')).simCommand(opts, io);
  });

  const plan = program.command('plan').description(t('cli.cmd.plan'));
  addSimOptions(plan, 'plan');
  addGenerationOptions(plan, false);
  addWorkloadOptions(plan);
  addLoadOptions(plan);
  addOutputOptions(plan);
  addCompatOptions(plan);
  addLangOption(plan);
  plan
    .option('--endpoint <kind>', 'chat or completions (streamed; default chat)')
    .option(
      '--find-max-concurrency',
      'search for the largest closed-loop concurrency at which 99% of requests meet --slo',
    )
    .option(
      '--find-max-users',
      'sessions: search for the most users (at this think time) for which 99% of turns meet --slo',
    )
    .option('--db <file>', 'the store (an SQLite file)', 'servelab.db')
    .option('--no-db', "don't record into the store")
    .action((opts) => {
      action = async (io) => (await import('./commands/plan.js')).planCommand(opts, io);
    });

  const exp = program.command('exp').description(t('cli.cmd.exp'));
  addLangOption(
    exp
      .command('init')
      .description(t('cli.cmd.exp_init'))
      .argument('[kind]', 'the experiment kind or a lesson (without one, the error lists them)')
      .argument('[file]', 'write the template here instead of stdout (refused if it exists)')
      .option('--force', 'overwrite FILE if it exists')
      .option(
        '--url <url>',
        "a lesson: run it against this engine (OpenAI base URL) instead of the simulator; twice for a lesson's two sides",
        (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
      ),
  ).action((kind, file, opts) => {
    action = async (io) => (await import('./commands/runs.js')).expInitCommand(kind, file, io, opts);
  });
  addLangOption(
    exp
      .command('run')
      .description(t('cli.cmd.exp_run'))
      .argument('<file>', 'experiment YAML')
      .option('--db <file>', 'the store (an SQLite file)', 'servelab.db')
      .option('--no-db', "don't record into the store")
      .option('--json [file]', 'write the result as JSON to file, or stdout'),
  ).action((file, opts) => {
    action = async (io) => (await import('./commands/exp.js')).expRunCommand(file, opts, io);
  });
  addLangOption(
    exp
      .command('rerun')
      .description(t('cli.cmd.exp_rerun'))
      .argument('<id>', 'experiment id (a unique prefix is enough)')
      .option('--db <file>', 'the store (an SQLite file)', 'servelab.db')
      .option('--json [file]', 'write the result as JSON to file, or stdout'),
  ).action((id, opts) => {
    action = async (io) => (await import('./commands/exp.js')).expRerunCommand(id, opts, io);
  });
  addLangOption(
    exp
      .command('list')
      .description(t('cli.cmd.exp_list'))
      .option('--db <file>', 'the store (an SQLite file)', 'servelab.db')
      .option('--json [file]', 'write the list as JSON to file, or stdout'),
  ).action((opts) => {
    action = async (io) => (await import('./commands/runs.js')).expListCommand(opts, io);
  });

  const runs = program.command('runs').description(t('cli.cmd.runs'));
  addLangOption(
    runs
      .command('list')
      .description(t('cli.cmd.runs_list'))
      .option('--db <file>', 'the store (an SQLite file)', 'servelab.db')
      .option('--json [file]', 'write the list as JSON to file, or stdout'),
  ).action((opts) => {
    action = async (io) => (await import('./commands/runs.js')).runsCommand('list', [], opts, io);
  });
  runs
    .command('show')
    .description(t('cli.cmd.runs_show'))
    .argument('<id>', 'run id (a unique prefix is enough)')
    .option('--db <file>', 'the store (an SQLite file)', 'servelab.db')
    .option('--json [file]', 'write the run as JSON to file, or stdout')
    .option('--lang <lang>', LANG_OPTION_HELP)
    .action((id, opts) => {
      action = async (io) => (await import('./commands/runs.js')).runsCommand('show', [id], opts, io);
    });
  runs
    .command('export')
    .description(t('cli.cmd.runs_export'))
    .argument('<id>', 'run id (a unique prefix is enough)')
    .option('--format <fmt>', 'csv, jsonl, json or chrome-trace (the engine steps, for Perfetto)', 'jsonl')
    .option('--out <file>', 'write to a file instead of stdout')
    .option('--db <file>', 'the store (an SQLite file)', 'servelab.db')
    .option('--lang <lang>', LANG_OPTION_HELP)
    .action((id, opts) => {
      action = async (io) => (await import('./commands/runs.js')).runsCommand('export', [id], opts, io);
    });

  addLangOption(program.command('report').description(t('cli.cmd.report')))
    .argument('<refs...>', 'run ids, experiment ids or report.json files')
    .option('--html <file>', 'write a self-contained HTML report')
    .option(
      '--md <file>',
      'write the Markdown project write-up (its charts as SVG files in NAME.charts/ next to it)',
    )
    .option('--gpu-hour-usd <price>', 'GPU price per hour for the cost columns')
    .option('--title <text>', 'report title')
    .option(
      '--request <id>',
      'the request the step timeline is drawn for (a request id, or its workload index); default: the worst stall',
    )
    .option(
      '--trace-events <file>',
      "write the run's engine steps (--record-steps) as Chrome Trace Event Format JSON, for the Perfetto UI",
    )
    .option('--db <file>', 'the store (an SQLite file)', 'servelab.db')
    .option('--json [file]', 'write the report as JSON to file, or stdout')
    .action((refs, opts) => {
      action = async (io) => (await import('./commands/report.js')).reportCommand(refs, opts, io);
    });
  program
    .command('merge')
    .description(t('cli.cmd.merge'))
    .argument('<files...>', 'the shard reports, report.shard-<i>-of-<N>.json')
    .requiredOption('--expect <n>', 'the number of shards N (a missing or extra shard is refused)')
    .requiredOption('--out <dir>', 'folder for the merged report.json (and requests.jsonl with --exact)')
    .option('--exact', "recompute every statistic from the shards' records, not their histograms")
    .option('--allow-missing', "merge what is there; missing shards' planned requests count as lost")
    .option('--json [file]', 'write the merged report as JSON to file, or stdout')
    .option('--lang <lang>', LANG_OPTION_HELP)
    .action((files, opts) => {
      action = async (io) => (await import('./commands/merge.js')).mergeCommand(files, opts, io);
    });
  program
    .command('k8s')
    .description(t('cli.cmd.k8s'))
    .command('render')
    .description(t('cli.cmd.k8s_render'))
    .argument(
      '[run...]',
      "run's flags, after --, e.g. -- --url http://engine:8000/v1 --rate 200 --duration 300",
    )
    .requiredOption('--shards <n>', 'the number of shard pods N')
    .option('--start-at <time>', 'the common start (RFC 3339)')
    .option('--start-in <s>', 'the common start, this many seconds after the first shard pod starts')
    .option('--name <name>', 'name prefix of the objects', 'servelab')
    .option('--image <ref>', 'container image with servelab on its PATH', `servelab:${VERSION}`)
    .option('--cpu <q>', 'CPU of each shard pod (requests = limits)', '2')
    .option('--memory <q>', 'memory of each shard pod (requests = limits)', '4Gi')
    .option('--storage <q>', 'size of the ReadWriteMany results volume', '5Gi')
    .option('--merge-wait <s>', 'seconds the merge Job waits for every shard file', '3600')
    .option('--metrics-port <p>', "port of each shard's Prometheus exporter", '9464')
    .option('--lang <lang>', LANG_OPTION_HELP)
    .action((runArgs, opts) => {
      action = async (io) => (await import('./commands/k8s.js')).k8sRenderCommand(runArgs, opts, io);
    });
  addLangOption(
    program
      .command('diagnose')
      .description(t('cli.cmd.diagnose'))
      .argument('<refs...>', 'run ids, experiment ids or report.json files')
      .option('--db <file>', 'the store (an SQLite file)', 'servelab.db')
      .option('--json [file]', 'write the diagnosis as JSON to file, or stdout'),
  ).action((refs, opts) => {
    action = async (io) => (await import('./commands/report.js')).diagnoseCommand(refs, opts, io);
  });
  program
    .command('calibrate')
    .description(t('cli.cmd.calibrate'))
    .argument('<refs...>', 'run ids, experiment ids (e.g. of `exp init calibration`) or report.json files')
    .option('--out <file>', 'write the calibration profile (YAML) here; use it with --profile')
    .option('--model <name>', "catalogue model the runs were measured on (default: the runs' record)")
    .option('--gpu <name>', "catalogue GPU the runs were measured on (default: a simulated target's)")
    .option('--tp <n>', "tensor-parallel size (default: 1, or a simulated target's)")
    .option('--dtype <t>', 'weight precision: bf16, fp16, fp8, int4 (default: bf16)')
    .option('--kv-cache-dtype <t>', 'KV cache precision: auto, fp8 (default: auto)')
    .option('--engine <name>', 'engine: vllm-v1, vllm-v0, sglang (default: vllm-v1)')
    .option('--api-server-count <n>', 'API server processes of the engine (default: 1)')
    .option('--catalogue <file>', 'YAML/JSON file with extra GPUs and models')
    .option('--db <file>', 'the store (an SQLite file)', 'servelab.db')
    .option('--json [file]', 'write the profile as JSON to file, or stdout')
    .option('--lang <lang>', LANG_OPTION_HELP)
    .action((refs, opts) => {
      action = async (io) => (await import('./commands/calibrate.js')).calibrateCommand(refs, opts, io);
    });
  addLangOption(
    program
      .command('trace')
      .description(t('cli.cmd.trace'))
      .command('stats')
      .description(t('cli.cmd.trace_stats'))
      .argument('<file>', 'the trace (Azure or BurstGPT CSV, Mooncake or servelab JSONL)')
      .option('--trace-format <fmt>', 'azure, burstgpt, mooncake or servelab (default: detected)')
      .option('--trace-block-size <n>', 'tokens per Mooncake hash block (default 512)')
      .option('--html <file>', 'write the statistics and their charts as a self-contained HTML page')
      .option('--json [file]', 'write the statistics as JSON to file, or stdout'),
  ).action((file, opts) => {
    action = async (io) => (await import('./commands/trace.js')).traceStatsCommand(file, opts, io);
  });
  addLangOption(program.command('dashboard').description(t('cli.cmd.dashboard')))
    .option('--db <file>', 'the store (an SQLite file)', 'servelab.db')
    .option('--port <p>', 'listen port (0 = any free port)', '8600')
    .option('--host <addr>', 'listen address', '127.0.0.1')
    .action((opts) => {
      action = async (io) => (await import('./commands/dashboard.js')).dashboardCommand(opts, io);
    });

  argv = placeLangFlag(program as unknown as Command, argv);
  // Every unknown flag at once, each with the nearest known one (commander stops at the first).
  const unknown = unknownFlags(program as unknown as Command, argv);
  if (unknown.flags.length) {
    io.stderr.write(
      `${t(unknown.flags.length > 1 ? 'cli.error.unknown_options' : 'cli.error.unknown_option')}\n${unknown.flags
        .map(
          (u) =>
            `  - ${u.flag}${
              u.passed
                ? ` ${t('cli.error.flag_of', { command: u.passed.command })}`
                : u.suggestion
                  ? ` ${t('cli.error.did_you_mean', { flag: u.suggestion })}`
                  : ''
            }`,
        )
        .join('\n')}\n  ${t('cli.hint', {
        hint: unknown.rewritten
          ? t('cli.error.after_dashdash_hint', {
              command: unknown.flags.find((u) => u.passed)?.passed?.command ?? '',
              line: `servelab ${unknown.rewritten.join(' ')}`,
            })
          : t('cli.error.unknown_hint', { command: unknown.command }),
      })}\n`,
    );
    return ExitCode.usage;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.code === 'commander.help'
      )
        return ExitCode.ok;
      // The command the error is about: the deepest one argv names.
      const path: string[] = [];
      for (let cmd = program as unknown as Command; ; ) {
        const sub = cmd.commands.find((c) => c.name() === argv[path.length]);
        if (!sub) break;
        path.push(sub.name());
        cmd = sub as unknown as Command;
      }
      io.stderr.write(
        `${t('cli.hint', { hint: t('cli.error.see_help', { command: path.length ? path.join(' ') : '<command>' }) })}\n`,
      );
      return ExitCode.usage;
    }
    throw err;
  }
  if (!action) {
    io.stdout.write(program.helpInformation());
    return ExitCode.ok;
  }
  const code = await runAction(action, io, t);
  // A stream's write error is emitted on a later tick: let it arrive before looking.
  await new Promise((r) => setImmediate(r));
  const lost = takeStreamFailure();
  if (!lost) return code;
  const e = asStorageError(lost, 'stdout');
  if (e) io.stderr.write(formatStorageError(e, t));
  return worstExitCode([code, ExitCode.storage]);
}

/** Run a command body, turning user errors into messages with hints and exit codes (framed in `t`'s language). */
export async function runAction(action: Action, io: Io, t: T = translator('en')): Promise<number> {
  const hint = (h: string) => t('cli.hint', { hint: h });
  try {
    return await action(io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(
        `${t('cli.error.invalid_usage')}\n${err.problems.map((p) => `  - ${formatProblem(p, hint).replace(/\n/g, '\n  ')}`).join('\n')}\n`,
      );
      return ExitCode.usage;
    }
    if (err instanceof TargetError) {
      io.stderr.write(
        `${t('cli.error.target', { message: err.message })}\n${err.hint ? `  ${hint(err.hint)}\n` : ''}`,
      );
      return ExitCode.nothingSucceeded;
    }
    // A full disk, a read-only mount, a locked or damaged store: the user's to fix, not a bug.
    const storage = asStorageError(err, (err as { path?: string }).path ?? '');
    if (storage) {
      io.stderr.write(formatStorageError(storage, t));
      return ExitCode.storage;
    }
    io.stderr.write(`${t('cli.error.internal')}\n${err instanceof Error ? err.stack : String(err)}\n`);
    return ExitCode.usage;
  }
}
