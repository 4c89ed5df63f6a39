/**
 * @module core/headers
 * The headers every request to a target carries, built one way for the load (`client/http`),
 * `check`, `run`'s model lookup and tokenizer, and `exp`'s probe, so that a probe is sent with
 * exactly the credentials the measurement will use.
 */

/**
 * Request headers for a target: names lower-cased (so no header is sent twice under two
 * spellings), the API key as `authorization: Bearer KEY`, and an `Authorization` the user gave
 * with `--header` winning over the key, as in the measurement client.
 *
 * @param apiKey the key, or undefined for none (never logged).
 * @param headers extra headers as the user wrote them.
 * @example targetHeaders('k', { 'X-Team': 'a' }) // { authorization: 'Bearer k', 'x-team': 'a' }
 */
export function targetHeaders(
  apiKey: string | undefined,
  headers: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const out: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}
