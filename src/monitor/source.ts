/**
 * @module monitor/source
 * What the scraper polls: a source of readings (a `/metrics` URL, nvidia-smi, …) and what one
 * read returns. Its own module so that the sources (`monitor/nvidia-smi`) and the scraper
 * that polls them both import it, instead of each other.
 */
import type { EngineKind, Normalized } from './maps.js';
import type { Sample } from './prom-parse.js';

/** What a source returns from one read. */
export interface SourceReading {
  values: Normalized;
  /** Raw samples, when the source is a `/metrics` endpoint. */
  samples?: Sample[];
  engine?: EngineKind;
  /** Lines of the exposition that did not parse. */
  parse_errors?: number;
}

/** Anything the scraper can poll: a `/metrics` URL, nvidia-smi, … */
export interface ScrapeSource {
  /** Label used in points and stats; must not contain credentials. */
  name: string;
  /** One reading. Must honour `signal` (the scraper aborts it at the timeout and at stop). */
  read(signal: AbortSignal): Promise<SourceReading>;
}
