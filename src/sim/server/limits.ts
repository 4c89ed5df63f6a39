/**
 * @module sim/server/limits
 * Defaults of the server's request limits, apart from `server.ts` so that `sim/settings`
 * (which declares every setting) can name them without importing the server.
 */

/**
 * Largest request body by default: 10 MiB. A prompt that fills a 128k-token context is about
 * 0.5 MB of text, so 10 MiB leaves room for token-id prompts and long chat histories while a
 * runaway client is refused at once. (nginx, often put in front of vLLM, is stricter:
 * `client_max_body_size` defaults to 1 MiB; vLLM's uvicorn sets no limit.)
 */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
