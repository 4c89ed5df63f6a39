/**
 * @module report/run/sessions
 * The sessions block of the console summary: how the sessions ended, the user's wait, turns per
 * user-minute, one row per turn (TTFT p50/p90, the user's wait, prompt size, cache hit rate and
 * the sharing the workload intended), and the intended sharing next to the server's prefix-cache
 * hit rate. Pure: summary in, text out; "no data" prints `-`.
 */
import type { SessionsSummary } from '../../analysis/sessions.js';
import { type T, translator } from '../../i18n/index.js';
import { grid, num, pct, section } from './summary-table.js';

const EN = translator('en');

/**
 * Render a run's sessions block (empty for a run that is not a sessions run).
 * @example process.stdout.write(formatSessions(report.sessions ?? null, t));
 */
export function formatSessions(s: SessionsSummary | null, t: T = EN): string {
  if (!s) return '';
  const u = s.user_ttft_ms;
  const head = grid([
    [t('sessions.table.users'), String(s.sessions.planned)],
    [t('sessions.table.completed'), String(s.sessions.completed)],
    [t('sessions.table.ended_early'), String(s.sessions.ended_early)],
    [t('sessions.table.turns'), `${s.turns.succeeded} / ${s.turns.planned}`],
    [t('sessions.table.turns_per_minute'), num(s.turns_per_user_minute, 2)],
    [t('sessions.table.user_ttft'), `${num(u.p50, 1)} / ${num(u.p90, 1)} / ${num(u.p99, 1)}`],
  ]);
  const rows = grid([
    [
      t('sessions.table.turn'),
      'n',
      'ttft p50',
      'ttft p90',
      'user p50',
      'user p90',
      t('sessions.table.prompt_tokens'),
      t('sessions.table.cache_hit'),
      t('sessions.table.intended'),
    ],
    ...s.per_turn.map((r) => [
      String(r.turn + 1),
      String(r.succeeded),
      num(r.ttft_ms.p50, 1),
      num(r.ttft_ms.p90, 1),
      num(r.user_ttft_ms.p50, 1),
      num(r.user_ttft_ms.p90, 1),
      num(r.prompt_tokens_mean, 0),
      pct(r.cache_hit_rate),
      pct(r.intended_sharing),
    ]),
  ]);
  const sharing = grid([
    [t('sessions.table.sharing_intended'), pct(s.intended_sharing)],
    [t('sessions.table.sharing_documents'), pct(s.intended_document_sharing)],
    [t('sessions.table.sharing_usage'), pct(s.cache_hit_rate)],
    [t('sessions.table.sharing_server'), pct(s.server_prefix_hit_rate)],
  ]);
  return [
    ...section(t('sessions.table.title'), head),
    ...section(t('sessions.table.per_turn'), rows),
    ...section(t('sessions.table.sharing'), sharing),
  ]
    .map((l) => `${l}\n`)
    .join('');
}
