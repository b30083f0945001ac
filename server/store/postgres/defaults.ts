/** The team server's database bounds when settings name none (the settings schema's defaults come from here). */

/** How long to wait for a connection or a statement's answer: a request's statements take milliseconds on a healthy database. */
export const DEFAULT_DATABASE_TIMEOUT_MS = 5000;
