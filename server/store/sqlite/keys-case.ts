/**
 * Drizzle rows name columns in camelCase and the repositories answer in snake_case; for tables whose
 * columns map one to one (jobs, blocks), the names are turned over rather than listed twice.
 */
const toCamel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const toSnake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A drizzle row as a record of snake_case fields. */
export function snakeCased<R>(row: object): R {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[toSnake(k)] = v;
  return out as R;
}

/** Snake_case fields as a drizzle row's (undefined ones left out, so an update leaves them as they are). */
export function camelCased<R>(fields: object): R {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[toCamel(k)] = v;
  return out as R;
}
