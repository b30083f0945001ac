import type { Api } from './api/client.js';
import type { Capabilities } from './api/capabilities.js';
import type { Bridge } from './api/connection.js';
import type { DeskMemory } from './review/desk-memory.js';

/**
 * What every screen gets: the API client, what the server offers, the desktop bridge if any, and what
 * the review desk keeps of each job while another screen is shown.
 */
export interface AppContext {
  api: Api;
  caps: Capabilities;
  bridge?: Bridge;
  desks: DeskMemory;
  navigate(hash: string): void;
}

/** A mounted screen; `dispose` stops its timers and requests when the user leaves it. */
export interface Screen {
  element: HTMLElement;
  dispose(): void;
}
