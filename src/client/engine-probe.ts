/**
 * @module client/engine-probe
 * Which engine answers at a URL: {@link probeTarget} asks the server (`/version`, the `Server`
 * header, `/v1/models`, and per engine `/get_server_info` or `/props`) through
 * `client/engine-api` and tells vLLM, SGLang, llama.cpp and servelab's simulator apart, with
 * the evidence for each conclusion. The experiment record (`exp/experiment-record`) is built
 * from it.
 */
import { Agent, type Dispatcher } from 'undici';
import {
  engineFromOwnedBy,
  type ListedModel,
  modelEntryContext,
  parseModelList,
  propsContext,
  type ServerEngine,
} from '../core/models.js';
import { redactUrl, serverRoot } from '../core/url.js';
import { answeredBeforeFailing, apiRequest } from './engine-api.js';

export type EngineName = ServerEngine | 'unknown';

/** One model the target lists on `/v1/models`. */
export type ProbedModel = ListedModel;

export interface EngineProbeResult {
  /** The server root probed (userinfo stripped). */
  root_url: string;
  reachable: boolean;
  engine: EngineName;
  engine_version: string | null;
  server_header: string | null;
  models: ProbedModel[];
  /**
   * The context one request may fill, when the server says: the first model's `max_model_len`
   * (or llama.cpp's `meta.n_ctx`), else llama.cpp's `/props` n_ctx; per slot on llama.cpp.
   */
  max_model_len: number | null;
  /** Where {@link max_model_len} was read (`core/models` `ServedContext.source`); null with it. */
  max_model_len_source: string | null;
  /** How the engine and version were told, e.g. `owned_by=vllm on /v1/models`. */
  evidence: string[];
  /** Endpoints that failed, e.g. `/version: HTTP 404`. */
  errors: string[];
}

export interface ProbeOptions {
  /** Bearer token; sent, never recorded or echoed. */
  apiKey?: string;
  headers?: Record<string, string>;
  /** Per-request timeout, ms. Default 3000. */
  timeoutMs?: number;
  /** Reach the server through this undici dispatcher (the in-process simulator). */
  dispatcher?: Dispatcher;
}

interface GetResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

/**
 * Probe an OpenAI-compatible server for its engine, version and models. Never throws for an
 * unreachable or odd server: the result says what could not be learned (`errors`).
 * @param baseUrl base URL ending in /v1, e.g. `http://127.0.0.1:8000/v1`
 */
export async function probeTarget(baseUrl: string, opts: ProbeOptions = {}): Promise<EngineProbeResult> {
  const root = serverRoot(baseUrl);
  // The models list sits under the base URL, where `run` and `check` ask for it and where the
  // load goes (`/v1/models` for the usual …/v1 base), not at a fixed path under the root.
  const api = redactUrl(baseUrl)
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '');
  const modelsPath = `${api.startsWith(root) ? api.slice(root.length) : '/v1'}/models`;
  const timeout = opts.timeoutMs ?? 3000;
  const headers = { accept: 'application/json', ...opts.headers };
  // A private agent: no connection outlives the probe (and none is shared with the load run).
  const agent =
    opts.dispatcher ?? new Agent({ connect: { timeout }, headersTimeout: timeout, bodyTimeout: timeout });
  const out: EngineProbeResult = {
    root_url: root,
    reachable: false,
    engine: 'unknown',
    engine_version: null,
    server_header: null,
    models: [],
    max_model_len: null,
    max_model_len_source: null,
    evidence: [],
    errors: [],
  };
  const get = async (path: string): Promise<GetResult | undefined> => {
    try {
      const res = await apiRequest(`${root}${path}`, 'GET', {
        apiKey: opts.apiKey,
        headers,
        dispatcher: agent,
      });
      out.reachable = true;
      let json: unknown;
      try {
        json = JSON.parse(res.text);
      } catch {
        json = undefined;
      }
      const sv = res.headers.server;
      if (!out.server_header && typeof sv === 'string') out.server_header = sv;
      if (res.status >= 400) out.errors.push(`${path}: HTTP ${res.status}`);
      return { status: res.status, headers: res.headers, json };
    } catch (e) {
      if (answeredBeforeFailing(e)) out.reachable = true;
      // The message of a connection error names host and port only; headers never appear in it.
      out.errors.push(`${path}: ${(e as Error).message}`);
      return undefined;
    }
  };
  try {
    const [models, version] = await Promise.all([get(modelsPath), get('/version')]);
    out.models = parseModelList(models?.json);
    out.max_model_len =
      out.models.find((m) => m.parent === null)?.max_model_len ?? out.models[0]?.max_model_len ?? null;
    if (out.max_model_len !== null) {
      const raw = isRec(models?.json) && Array.isArray(models.json.data) ? models.json.data : [];
      const listed = raw.map(modelEntryContext).find((c) => c?.tokens === out.max_model_len);
      out.max_model_len_source = listed?.source ?? null;
    }
    const owner = out.models.find((m) => engineFromOwnedBy(m.owned_by) !== null)?.owned_by;
    if (owner) {
      out.engine = engineFromOwnedBy(owner) ?? 'unknown';
      out.evidence.push(`owned_by=${owner} on ${modelsPath}`);
    }
    const vj = version?.status === 200 && isRec(version.json) ? version.json : undefined;
    if (vj) {
      const named = typeof vj.engine === 'string' ? engineFromOwnedBy(vj.engine) : null;
      if (named && out.engine === 'unknown') {
        out.engine = named;
        out.evidence.push(`engine=${String(vj.engine)} on /version`);
      }
      if (typeof vj.version === 'string') {
        out.engine_version = vj.version;
        out.evidence.push(`version ${vj.version} from /version`);
      }
    }
    const server = out.server_header?.toLowerCase() ?? '';
    if (out.engine === 'unknown' && server.includes('llama')) {
      out.engine = 'llama.cpp';
      out.evidence.push(`Server: ${out.server_header}`);
    }
    // Engines that keep their version elsewhere.
    if (out.engine === 'llama.cpp' || (out.engine === 'unknown' && out.reachable && !vj)) {
      const props = await get('/props');
      const pj = props?.status === 200 && isRec(props.json) ? props.json : undefined;
      if (pj && typeof pj.build_info === 'string') {
        if (out.engine === 'unknown') {
          out.engine = 'llama.cpp';
          out.evidence.push('build_info on /props');
        }
        out.engine_version ??= pj.build_info;
        out.evidence.push(`version ${pj.build_info} from /props build_info`);
      }
      const fromProps = out.max_model_len === null ? propsContext(pj) : null;
      if (fromProps) {
        out.max_model_len = fromProps.tokens;
        out.max_model_len_source = fromProps.source;
      }
    }
    if (out.engine === 'sglang' && out.engine_version === null) {
      const info = await get('/get_server_info');
      const ij = info?.status === 200 && isRec(info.json) ? info.json : undefined;
      if (ij && typeof ij.version === 'string') {
        out.engine_version = ij.version;
        out.evidence.push(`version ${ij.version} from /get_server_info`);
      }
    }
    // A /version that answers {"version"} without any other clue is vLLM's shape; say so
    // only as a guess, since SGLang and others may answer the same way.
    if (out.engine === 'unknown' && vj && typeof vj.version === 'string' && server.includes('uvicorn')) {
      out.evidence.push('guess: uvicorn server with /version {version} looks like vLLM');
    }
  } finally {
    if (!opts.dispatcher) await agent.close();
  }
  return out;
}

const isRec = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
