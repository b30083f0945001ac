import type { NetPolicy } from '../core/net/types.js';
import type { Settings } from '../schemas/settings.js';

/** The outbound policy the settings describe: one per server, and one per CLI command that goes out. */
export function netPolicyOf(settings: Settings): NetPolicy {
  return {
    allowedPrivateHosts: settings.allowed_private_hosts,
    connectTimeoutMs: settings.outbound_connect_timeout_ms,
    totalTimeoutMs: settings.outbound_timeout_ms,
    maxBytes: settings.outbound_max_bytes,
    maxRedirects: settings.outbound_max_redirects,
  };
}
