export type Route =
  | { screen: 'library' }
  | { screen: 'bots' }
  | { screen: 'models' }
  | { screen: 'bot'; botId: string }
  | { screen: 'review' | 'chunks' | 'finalize' | 'audit' | 'search'; jobId: string; params: URLSearchParams };

const JOB_SCREENS = new Set(['review', 'chunks', 'finalize', 'audit', 'search']);

/**
 * `#/jobs/<id>/<screen>?<params>`, `#/bots` and `#/bots/<id>`; anything else is the library. Hash routes
 * never reload the page.
 */
export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const m = /^\/jobs\/([^/]+)\/(\w+)$/.exec(path);
  if (m && JOB_SCREENS.has(m[2] ?? '')) {
    return { screen: m[2] as 'review', jobId: decodeURIComponent(m[1] ?? ''), params: new URLSearchParams(query) };
  }
  if (path === '/bots' || path === '/bots/') return { screen: 'bots' };
  if (path === '/models' || path === '/models/') return { screen: 'models' };
  const bot = /^\/bots\/([^/]+)$/.exec(path);
  if (bot) return { screen: 'bot', botId: decodeURIComponent(bot[1] ?? '') };
  return { screen: 'library' };
}
