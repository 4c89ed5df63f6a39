/**
 * @module client/check
 * `servelab check`: a baseline probe of an OpenAI-compatible endpoint. It lists the models,
 * sends one streaming chat request (temperature 0, max_tokens 64), and, when the model reasons,
 * a second one with thinking enabled and room to reach content (max_tokens 1024). It reports
 * what the wire looked like and what the server can do, and every problem comes with a hint.
 * The probes go through the real measurement client (`client/http`), so what `check` reports is
 * exactly what `run` will see; the plain requests (models, `/metrics`, `/version`, `/tokenize`)
 * are `client/engine-api`'s, the ones `run` and `exp` send.
 */

import { Agent } from 'undici';
import { requestMetrics } from '../analysis/request.js';
import type { Problem } from '../core/errors.js';
import { engineFromOwnedBy, type ListedModel, parseModelList } from '../core/models.js';
import { scrubSecrets } from '../core/redact.js';
import { displayWidth, padColumns } from '../core/text-width.js';
import { hostOf, redactUrl } from '../core/url.js';
import { type T, translator } from '../i18n/index.js';
import type { RequestRecord, Usage } from '../record/types.js';
import type { Clock } from '../runtime/clock.js';
import { tryTokenize } from '../workload/exact.js';
import {
  type ApiAnswer,
  type EngineApiOptions,
  getMetrics,
  getModels,
  getVersion,
  modelsUrl,
  tokenizeRemote,
} from './engine-api.js';
import { createHttpTarget, type SendResult } from './http.js';
import type { StreamInfo } from './stream.js';
import type { ClientOptions } from './types.js';

export interface CheckOptions {
  /** Base URL ending in /v1. */
  baseUrl: string;
  /** Model to probe; the first listed model when absent. */
  model?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  clock: Clock;
  /** Per-probe timeout (ms); default 60 000. The thinking probe gets 4×. */
  timeoutMs?: number;
  /** Name of the variable the key came from, for hints (default INFERENCE_API_KEY). */
  apiKeyEnv?: string;
  /** The language of the problems, notes and hints (default English). */
  t?: T;
}

const EN = translator('en');

export type EngineGuess = 'vllm' | 'sglang' | 'llamacpp' | 'servelab-sim' | 'unknown';

/** One probe request's result. Times in ms from send. */
export interface ProbeRequestResult {
  outcome: RequestRecord['outcome'];
  http_status: number | null;
  finish_reason: string | null;
  /** `data: [DONE]` seen. */
  done: boolean;
  usage: Usage | null;
  usage_where: StreamInfo['usage_where'];
  reasoning_field: StreamInfo['reasoning_field'];
  reached_content: boolean;
  ttft_ms: number | null;
  ttfr_ms: number | null;
  e2e_ms: number | null;
  chunks: number;
  error: string | null;
}

export interface CheckResult {
  ok: boolean;
  /** The URL probed (credentials removed). */
  base_url: string;
  reachable: boolean;
  /** Whether a key was sent at all. */
  key_sent: boolean;
  /** True when the server accepted the request (with or without a key), false on 401/403, null when unknown. */
  key_accepted: boolean | null;
  models: string[];
  model: string | null;
  engine: EngineGuess;
  /** `owned_by` of the probed model in /v1/models. */
  owned_by: string | null;
  /** The streaming probe (max_tokens 64). */
  stream: ProbeRequestResult | null;
  /** The thinking-enabled probe (max_tokens 1024), when the model reasons. */
  thinking: ProbeRequestResult | null;
  /** Stream ended with a finish_reason / with [DONE]. */
  finish_reason_seen: boolean;
  done_seen: boolean;
  usage_present: boolean;
  /** Usage arrived at the end of the stream, as `stream_options.include_usage` asks. */
  include_usage_honoured: boolean;
  /** `reasoning_content`, `reasoning`, or null (none seen). */
  reasoning_field: StreamInfo['reasoning_field'];
  capabilities: {
    metrics: boolean | null;
    tokenize: boolean | null;
    version: boolean | null;
    version_string: string | null;
    timings: boolean;
    ignore_eos: boolean | null;
  };
  problems: Problem[];
  /** Things worth knowing that do not make the check fail. */
  notes: Problem[];
}

/** Names that suggest a reasoning model even when no reasoning deltas were seen. */
const REASONING_NAME = /qwen3|qwq|deepseek-r1|r1-distill|gpt-oss|magistral|phi-4-reasoning|think/i;

/**
 * Map `owned_by` to the engine it reveals (see {@link engineFromOwnedBy}); llama.cpp is spelled
 * `llamacpp` here, as `check` has always reported it.
 */
export function guessEngine(ownedBy: string | null | undefined): EngineGuess {
  const e = engineFromOwnedBy(ownedBy);
  return e === null ? 'unknown' : e === 'llama.cpp' ? 'llamacpp' : e;
}

interface Got {
  status: number | null;
  text: string;
  error: string | null;
  code: string;
}

function probeOf(res: SendResult): ProbeRequestResult {
  const r = res.record;
  const m = requestMetrics(r);
  const rounded = (ms: number | undefined) => (ms === undefined ? null : round(ms));
  return {
    outcome: r.outcome,
    http_status: r.http_status,
    finish_reason: r.finish_reason,
    done: r.done,
    usage: r.usage,
    usage_where: res.info.usage_where,
    reasoning_field: res.info.reasoning_field,
    reached_content: r.first_content_at_ms !== null,
    ttft_ms: rounded(m.ttft_ms),
    ttfr_ms: rounded(m.ttfr_ms),
    e2e_ms: rounded(m.e2e_ms),
    chunks: r.chunk_times_ms.length,
    error: r.error,
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/**
 * Probe an endpoint. Never throws for a bad or unreachable server: everything wrong is a
 * problem in the result (with a hint), and `ok` is false when there is any.
 */
export async function runCheck(opts: CheckOptions): Promise<CheckResult> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const keyEnv = opts.apiKeyEnv ?? 'INFERENCE_API_KEY';
  const secrets = [opts.apiKey];
  const base = opts.baseUrl.replace(/\/+$/, '');
  const host = hostOf(base);
  const result: CheckResult = {
    ok: false,
    base_url: redactUrl(base),
    reachable: false,
    key_sent: Boolean(opts.apiKey),
    key_accepted: null,
    models: [],
    model: null,
    engine: 'unknown',
    owned_by: null,
    stream: null,
    thinking: null,
    finish_reason_seen: false,
    done_seen: false,
    usage_present: false,
    include_usage_honoured: false,
    reasoning_field: null,
    capabilities: {
      metrics: null,
      tokenize: null,
      version: null,
      version_string: null,
      timings: false,
      ignore_eos: null,
    },
    problems: [],
    notes: [],
  };
  const tr = opts.t ?? EN;
  const problem = (message: string, hint: string) =>
    result.problems.push({ message: scrubSecrets(message, secrets), hint });
  const note = (message: string, hint: string) =>
    result.notes.push({ message: scrubSecrets(message, secrets), hint });
  const keyHint = tr(opts.apiKey ? 'check.key.rejected' : 'check.key.set', { env: keyEnv });

  // The probes below (and `run`) send the same headers (`core/headers`): a --header
  // Authorization beats the key.
  const agent = new Agent({ connections: 8, headersTimeout: 0, bodyTimeout: 0 });

  /** One plain request of `client/engine-api`, within the probe timeout; never throws. */
  const get = async (send: (o: EngineApiOptions) => Promise<ApiAnswer>): Promise<Got> => {
    const ac = new AbortController();
    const cancel = opts.clock.setTimer(
      () => ac.abort(new Error(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    try {
      const res = await send({
        apiKey: opts.apiKey,
        headers: opts.headers,
        dispatcher: agent,
        signal: ac.signal,
      });
      return { status: res.status, text: res.text, error: null, code: '' };
    } catch (err) {
      const e = err as { message?: string; code?: string; cause?: { code?: string; message?: string } };
      const code = e.code ?? e.cause?.code ?? '';
      const msg = e.cause?.message ?? e.message ?? String(err);
      return { status: null, text: '', error: scrubSecrets(msg, secrets), code };
    } finally {
      cancel();
    }
  };

  const probeTarget = (over: Partial<ClientOptions>) =>
    createHttpTarget({
      baseUrl: base,
      endpoint: 'chat',
      model: result.model ?? '',
      stream: true,
      maxTokens: 64,
      temperature: 0,
      apiKey: opts.apiKey,
      headers: opts.headers,
      clock: opts.clock,
      timeoutMs,
      ...over,
    });
  let probeSeq = 0;
  const probe = async (over: Partial<ClientOptions>, prompt: string): Promise<SendResult> => {
    const target = probeTarget(over);
    const id = `servelab-check-${++probeSeq}`;
    try {
      return await target.sendDetailed({
        id,
        planned_id: id,
        attempt: 1,
        phase: 'measure',
        spec: { index: 0, prompt, input_len: null, output_len: null },
        planned_at_ms: null,
        signal: new AbortController().signal,
      });
    } finally {
      await target.close();
    }
  };

  try {
    // 1. /v1/models: reachability, key, models, engine. Messages name the URL really fetched
    // (credentials removed), which is /v1/models only when --url ends in /v1.
    const shown = redactUrl(modelsUrl(base));
    const models = await get((o) => getModels(base, o));
    if (models.status === null) {
      const refused = models.code === 'ECONNREFUSED' || /ECONNREFUSED/.test(models.error ?? '');
      if (refused) problem(tr('check.refused', { host }), tr('check.refused.hint', { host }));
      else problem(tr('check.unreachable', { host, error: models.error }), tr('check.unreachable.hint'));
      return finish(result);
    }
    result.reachable = true;
    if (models.status === 401 || models.status === 403) {
      result.key_accepted = false;
      problem(
        tr('check.status_on', { status: models.status, method: 'GET', url: shown }),
        tr('check.status_key.hint', { status: models.status, keyHint }),
      );
      return finish(result);
    }
    let listed: ListedModel[] = [];
    if (models.status >= 200 && models.status < 300) {
      result.key_accepted = true;
      try {
        listed = parseModelList(JSON.parse(models.text));
      } catch {
        problem(tr('check.models_not_json', { url: shown }), tr('check.models_not_json.hint'));
      }
    } else if (models.status === 404) {
      problem(tr('check.models_404', { url: shown }), tr('check.models_404.hint'));
    } else {
      problem(
        tr('check.models_status', { url: shown, status: models.status }),
        tr('check.models_status.hint'),
      );
    }
    result.models = listed.map((m) => m.id);
    result.model = opts.model ?? result.models[0] ?? null;
    if (result.model === null) {
      problem(tr('check.no_model', { url: shown }), tr('check.no_model.hint'));
      return finish(result);
    }
    // Judged after the probe: some servers (llama.cpp) serve whatever name a request carries.
    const unlisted = !!opts.model && listed.length > 0 && !result.models.includes(opts.model);
    const entry = listed.find((m) => m.id === result.model) ?? listed[0];
    result.owned_by = entry?.owned_by ?? null;
    result.engine = guessEngine(result.owned_by);

    // 2. the streaming probe alone (its TTFT must not share the server with other probes),
    // then the capability probes together
    const streamRes = await probe({}, 'Say hello in one short sentence.');
    const [metrics, version, tokenize, ignoreEos] = await Promise.all([
      get((o) => getMetrics(base, o)),
      get((o) => getVersion(base, o)),
      // Judged as `run` judges it (workload/exact `tryTokenize`): it must count, not just answer 200.
      tryTokenize(tokenizeRemote(base, result.model, opts.apiKey, opts.headers ?? {}, agent)),
      probe({ ignoreEos: true, maxTokens: 4 }, 'Hi'),
    ]);
    const s = probeOf(streamRes);
    result.stream = s;
    if (s.http_status === 401 || s.http_status === 403) {
      result.key_accepted = false;
      problem(
        tr('check.status_on', {
          status: s.http_status,
          method: 'POST',
          url: redactUrl(`${base}/chat/completions`),
        }),
        tr('check.status_key.hint', { status: s.http_status, keyHint }),
      );
      return finish(result);
    }
    if (s.http_status !== null && s.http_status >= 200 && s.http_status < 300) result.key_accepted = true;
    if (unlisted) {
      if (s.outcome === 'ok' || s.outcome === 'length')
        note(
          tr('check.model_ignored', { served: result.models.join(', '), model: opts.model }),
          tr('check.model_ignored.hint', { first: result.models[0] }),
        );
      else
        problem(
          tr('check.model_not_served', { model: opts.model }),
          tr('check.model_not_served.hint', { served: result.models.join(', ') }),
        );
    }
    result.finish_reason_seen = s.finish_reason !== null;
    result.done_seen = s.done;
    result.usage_present = s.usage !== null;
    result.include_usage_honoured =
      s.usage_where === 'separate_chunk' ||
      s.usage_where === 'finish_chunk' ||
      s.usage_where === 'every_chunk';
    result.reasoning_field = s.reasoning_field;
    result.capabilities.timings = streamRes.info.timings_seen;
    if (result.engine === 'unknown' && streamRes.info.timings_seen) result.engine = 'llamacpp';

    if (s.outcome === 'http_error')
      problem(
        tr('check.chat_failed', { error: s.error }),
        s.http_status === 404
          ? tr('check.chat_failed.hint_404', { model: result.model })
          : tr('check.chat_failed.hint'),
      );
    else if (s.outcome === 'connect_error')
      problem(tr('check.chat_connect', { error: s.error }), tr('check.refused.hint', { host }));
    else if (s.outcome === 'timeout')
      problem(tr('check.chat_timeout', { error: s.error }), tr('check.chat_timeout.hint'));
    else if (s.outcome === 'stream_error')
      problem(tr('check.chat_stream_error', { error: s.error }), tr('check.chat_stream_error.hint'));
    else if (s.outcome === 'incomplete')
      problem(tr('check.chat_incomplete'), tr('check.chat_incomplete.hint'));
    if (s.outcome !== 'http_error' && s.outcome !== 'connect_error' && s.outcome !== 'timeout') {
      if (!s.done) problem(tr('check.no_done'), tr('check.no_done.hint'));
      if (!result.usage_present) problem(tr('check.no_usage'), tr('check.no_usage.hint'));
    }

    // capabilities
    const present = (g: Got) => (g.status === null ? null : g.status >= 200 && g.status < 300);
    result.capabilities.metrics = present(metrics);
    result.capabilities.version = present(version);
    result.capabilities.tokenize = tokenize.counts;
    if (!tokenize.counts && tokenize.probe !== null)
      note(
        tr('check.tokenize_no_count', { probe: tokenize.probe, longer: tokenize.longer }),
        tr('check.tokenize_no_count.hint'),
      );
    if (result.capabilities.version) {
      try {
        const v = (JSON.parse(version.text) as { version?: unknown }).version;
        result.capabilities.version_string = typeof v === 'string' ? v : null;
      } catch {
        result.capabilities.version_string = null;
      }
    }
    const ie = ignoreEos.record;
    result.capabilities.ignore_eos =
      ie.outcome === 'ok' || ie.outcome === 'length' || ie.outcome === 'no_content'
        ? true
        : ie.outcome === 'http_error' &&
            ie.http_status !== null &&
            ie.http_status >= 400 &&
            ie.http_status < 500
          ? false
          : null;
    if (result.capabilities.ignore_eos === false)
      note(tr('check.ignore_eos_rejected'), tr('check.ignore_eos_rejected.hint'));
    if (result.capabilities.metrics === false) note(tr('check.no_metrics'), tr('check.no_metrics.hint'));

    // 3. reasoning: a second probe with thinking enabled and room to reach content
    const reasons = s.reasoning_field !== null || REASONING_NAME.test(result.model);
    if (reasons) {
      const thinkRes = await probe(
        {
          maxTokens: 1024,
          timeoutMs: timeoutMs * 4,
          extraBody: { chat_template_kwargs: { enable_thinking: true } },
        },
        'What is 17 * 23? Answer with the number.',
      );
      const think = probeOf(thinkRes);
      result.thinking = think;
      result.reasoning_field ??= think.reasoning_field;
      if (think.outcome === 'length' && !think.reached_content)
        note(tr('check.thinking_exhausted'), tr('check.thinking_exhausted.hint'));
      else if (think.outcome !== 'ok' && think.outcome !== 'length')
        problem(
          tr('check.thinking_failed', {
            outcome: `${think.outcome}${think.error ? `: ${think.error}` : ''}`,
          }),
          tr('check.thinking_failed.hint'),
        );
      if (result.reasoning_field === null)
        note(tr('check.no_reasoning_deltas', { model: result.model }), tr('check.no_reasoning_deltas.hint'));
    }
  } finally {
    await agent.destroy();
  }
  return finish(result);
}

function finish(r: CheckResult): CheckResult {
  r.ok = r.problems.length === 0;
  return r;
}

function yn(v: boolean | null, t: T = EN): string {
  return t(v === null ? 'check.unknown' : v ? 'check.yes' : 'check.no');
}

function ms(v: number | null): string {
  return v === null ? '–' : `${v.toFixed(1)} ms`;
}

function probeLine(p: ProbeRequestResult, t: T): string {
  const parts = [p.outcome, `finish_reason ${p.finish_reason ?? t('check.none')}`, `[DONE] ${yn(p.done, t)}`];
  if (p.ttfr_ms !== null) parts.push(`TTFR ${ms(p.ttfr_ms)}`);
  parts.push(`TTFT ${ms(p.ttft_ms)}`, `E2E ${ms(p.e2e_ms)}`);
  if (p.usage?.completion_tokens != null) parts.push(`${p.usage.completion_tokens} tokens`);
  if (p.usage?.reasoning_tokens != null) parts.push(`${p.usage.reasoning_tokens} reasoning`);
  return parts.join(', ');
}

/**
 * A human-readable report of a {@link CheckResult} (no colours; ends with a newline), its labels
 * in `t`'s language (the problems and notes are in the language {@link runCheck} was given).
 */
export function formatCheck(r: CheckResult, t: T = EN): string {
  const y = (v: boolean | null) => yn(v, t);
  const rows: [string, string][] = [
    [t('check.row.reachable'), y(r.reachable)],
    [
      t('check.row.api_key'),
      t(
        r.key_accepted === false
          ? r.key_sent
            ? 'check.key.state_rejected'
            : 'check.key.state_required'
          : r.key_accepted
            ? r.key_sent
              ? 'check.key.state_accepted'
              : 'check.key.state_not_required'
            : 'check.unknown',
      ),
    ],
  ];
  if (r.reachable && r.key_accepted !== false) {
    rows.push([t('check.row.engine'), r.owned_by ? `${r.engine} (owned_by ${r.owned_by})` : r.engine]);
    rows.push([t('check.row.models'), r.models.length ? r.models.join(', ') : t('check.models.none')]);
    rows.push([t('check.row.model'), r.model ?? '–']);
  }
  if (r.stream) {
    rows.push([t('check.row.stream'), probeLine(r.stream, t)]);
    rows.push([
      t('check.row.usage'),
      r.usage_present
        ? t('check.usage.present', {
            where: r.stream.usage_where ?? '?',
            honoured: y(r.include_usage_honoured),
          })
        : t('check.usage.missing'),
    ]);
    rows.push([t('check.row.reasoning_field'), r.reasoning_field ?? t('check.none')]);
    if (r.thinking)
      rows.push([
        t('check.row.thinking'),
        `${probeLine(r.thinking, t)}, ${t('check.thinking.reached', { yn: y(r.thinking.reached_content) })}`,
      ]);
    const c = r.capabilities;
    const ie =
      c.ignore_eos === null
        ? 'check.unknown'
        : c.ignore_eos
          ? 'check.ignore_eos.accepted'
          : 'check.ignore_eos.rejected';
    rows.push([
      t('check.row.capabilities'),
      [
        `/metrics ${y(c.metrics)}`,
        `/tokenize ${y(c.tokenize)}`,
        `/version ${c.version_string ?? y(c.version)}`,
        `timings ${y(c.timings)}`,
        `ignore_eos ${t(ie)}`,
      ].join(', '),
    ]);
  }
  const w = Math.max(...rows.map(([k]) => displayWidth(k)));
  const lines = [`servelab check ${r.base_url}`, ...rows.map(([k, v]) => `  ${padColumns(k, w)}  ${v}`)];
  const list = (title: string, ps: Problem[]) => {
    if (ps.length === 0) return;
    lines.push(title);
    for (const p of ps)
      lines.push(`  - ${p.message}`, ...(p.hint ? [`    ${t('cli.hint', { hint: p.hint })}`] : []));
  };
  list(t('check.problems'), r.problems);
  list(t('check.notes'), r.notes);
  const n = r.problems.length;
  lines.push(
    t(r.ok ? 'check.result.ok' : n === 1 ? 'check.result.failed_one' : 'check.result.failed', { n }),
  );
  return `${lines.join('\n')}\n`;
}
