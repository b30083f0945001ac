/** Roles of API keys, weakest first: each role may do everything the roles before it may. */
export const ROLES = ['reader', 'reviewer', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (s: string): s is Role => (ROLES as readonly string[]).includes(s);

/** Whether a key of role `held` may use a route that needs `needed`. */
export const roleAllows = (held: Role, needed: Role): boolean => ROLES.indexOf(held) >= ROLES.indexOf(needed);

/** What a key may see: the listed bots (with their documents and chats) and jobs; both empty means everything. */
export interface KeyScope {
  bots: string[];
  jobs: string[];
}

export const isScoped = (scope: KeyScope): boolean => scope.bots.length > 0 || scope.jobs.length > 0;

/** Who sends a request, once its X-API-Key is checked. `scope` is null for keys that see everything. */
export interface Identity {
  name: string;
  role: Role;
  scope: KeyScope | null;
}
