/**
 * @module pipeline/client-options
 * Settings → a measurement's client options: the one place that says how a target's transport
 * settings (endpoint, stream, headers, API key, extra body, timeouts, session header) and the
 * generation settings (max tokens, temperature, top_p, stop, ignore_eos) become the
 * {@link ClientSettings} that `measureOn` (and the voice LLM leg) hands to `client/http`.
 * `run`/`demo`/`plan` (`measure`), `voice` and the gate's load check all build their client
 * options here, so a setting means the same request wherever it is given.
 */
import { DEFAULT_SESSION_HEADER } from '../client/http.js';
import type { ApiEndpoint, ClientOptions } from '../client/types.js';

/** Generation and transport settings of the client (everything but where and when). */
export type ClientSettings = Omit<ClientOptions, 'baseUrl' | 'clock' | 'dispatcher'>;

/**
 * Where and how requests are sent, in the settings' units (seconds). `TargetSettings` (`run`)
 * fits as it is, with the model and the API key resolved by the caller.
 */
export interface RequestTarget {
  endpoint: ApiEndpoint;
  model: string;
  stream: boolean;
  /** Extra request headers (may hold secrets). */
  headers?: Record<string, string>;
  /** The API key's value (from the environment); never stored or printed. */
  apiKey?: string;
  /** Merged into each request body last; null or absent: nothing. */
  extraBody?: Record<string, unknown> | null;
  /** Per-request limits in seconds; null or absent: none. */
  timeoutS?: number | null;
  timeoutTtftS?: number | null;
  /** The header that carries a session turn's session id; null or absent: `x-session-id`. */
  sessionHeader?: string | null;
}

/** The generation settings, as `run`'s settings name them (null or absent: not sent). */
export interface RequestGeneration {
  maxTokens?: number | null;
  temperature?: number | null;
  topP?: number | null;
  stop?: string[] | null;
  ignoreEos?: boolean;
}

/** The experiment file's generation section (snake_case, as the request body names them). */
export interface GenerationSpec {
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  ignore_eos?: boolean;
}

const msOf = (s: number | null | undefined): number | null =>
  s === null || s === undefined ? null : s * 1000;

/** The client options of a measurement from the target's and the generation's settings. */
export function clientOptionsOf(target: RequestTarget, generation: RequestGeneration): ClientSettings {
  return {
    endpoint: target.endpoint,
    model: target.model,
    stream: target.stream,
    maxTokens: generation.maxTokens ?? null,
    temperature: generation.temperature,
    topP: generation.topP ?? null,
    stop: generation.stop ?? null,
    ignoreEos: generation.ignoreEos ?? false,
    extraBody: target.extraBody ?? undefined,
    headers: target.headers,
    apiKey: target.apiKey,
    timeoutMs: msOf(target.timeoutS),
    timeoutTtftMs: msOf(target.timeoutTtftS),
    sessionHeader: target.sessionHeader ?? DEFAULT_SESSION_HEADER,
  };
}

/** An experiment file's generation section in {@link clientOptionsOf}'s terms. */
export function generationOfSpec(g: GenerationSpec): RequestGeneration {
  return {
    maxTokens: g.max_tokens ?? null,
    temperature: g.temperature,
    topP: g.top_p ?? null,
    stop: g.stop ?? null,
    ignoreEos: g.ignore_eos ?? false,
  };
}
