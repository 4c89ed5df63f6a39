/**
 * Headless Debian chromium for browser tests, driven by playwright-core (never a downloaded
 * browser). Where chromium is missing a suite skips with an install hint; under CI=true that is
 * an error instead, because CI installs it.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.SERVELAB_CHROMIUM ?? '/usr/bin/chromium';

/** `false` when chromium is there, else the skip reason; throws under CI=true. */
export function chromiumSkip(): string | false {
  if (existsSync(CHROMIUM)) return false;
  const reason = `chromium not found at ${CHROMIUM}; install it with: apt-get install chromium`;
  if (process.env.CI === 'true') throw new Error(`${reason} (required under CI=true)`);
  return reason;
}

/** Launch it with the flags this closed network needs (no background connections). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}
