/**
 * @module monitor/listen
 * Bind one of servelab's own local listeners (the Prometheus exporter, the OTLP receiver): a
 * port in use or refused is the user's to fix, so it becomes a {@link UsageError} with the
 * caller's words; anything else rejects as it came.
 */
import type { Server } from 'node:http';
import { type Problem, UsageError } from '../core/errors.js';

/** Listen on `host:port` (0: any free port); resolves with the bound port and its URL. */
export function listenLocal(
  server: Server,
  host: string,
  port: number,
  problem: (code: 'EADDRINUSE' | 'EACCES') => Problem,
): Promise<{ port: number; url: string }> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' || err.code === 'EACCES' ? new UsageError([problem(err.code)]) : err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const addr = server.address();
      const bound = typeof addr === 'object' && addr ? addr.port : port;
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({ port: bound, url: `http://${shown}:${bound}` });
    });
  });
}
