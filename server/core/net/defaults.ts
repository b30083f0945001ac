import type { NetPolicy } from './types.js';

/** The policy's limits when settings name none (the settings schema's defaults come from here). */
export const NET_DEFAULTS = {
  connectTimeoutMs: 10_000,
  // A remote model streams a whole answer through one request; on a slow CPU server that takes minutes.
  totalTimeoutMs: 180_000,
  // Far above any page or provider answer (64 embeddings of 3072 floats as JSON are about 4 MB).
  maxBytes: 50 * 1024 * 1024,
  maxRedirects: 5,
} as const;

/** Nothing private allowed: for tools that never go out (tests' and benches' model imports) or a bare start. */
export const DEFAULT_NET_POLICY: NetPolicy = { allowedPrivateHosts: [], ...NET_DEFAULTS };
