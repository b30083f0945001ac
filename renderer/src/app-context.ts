import type { Api } from './api/client.js';
import type { Capabilities } from './api/capabilities.js';
import type { Bridge } from './api/connection.js';

/** What every screen gets: the API client, what the server offers, and the desktop bridge if any. */
export interface AppContext {
  api: Api;
  caps: Capabilities;
  bridge?: Bridge;
  navigate(hash: string): void;
}

/** A mounted screen; `dispose` stops its timers and requests when the user leaves it. */
export interface Screen {
  element: HTMLElement;
  dispose(): void;
}
