/**
 * Compares what a newer version reads with what the older one read: every key and value the older answer
 * had must be there and equal (numbers exactly), arrays keep their length and order, and a key the newer
 * answer adds is allowed. A change of the API made on purpose since the older version is named in
 * `changes`, narrowly: one key, one value before, one after.
 */

export interface KnownChange {
  /** The key, wherever it appears. */
  key: string;
  from: unknown;
  to: unknown;
  /** Why the newer version answers differently: said in the failure listing if the change no longer holds. */
  why: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 160 ? `${s.slice(0, 160)}…` : s;
};

/** The differences, one line each with the path of the value (empty: the newer answer holds the older one). */
export function differences(
  expected: unknown,
  actual: unknown,
  changes: readonly KnownChange[] = [],
  path = '$',
): string[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${show(actual)}`];
    const out =
      expected.length === actual.length ? [] : [`${path}: expected ${expected.length} items, got ${actual.length}`];
    const n = Math.min(expected.length, actual.length);
    for (let i = 0; i < n; i++) out.push(...differences(expected[i], actual[i], changes, `${path}[${i}]`));
    return out;
  }
  if (isObject(expected)) {
    if (!isObject(actual)) return [`${path}: expected an object, got ${show(actual)}`];
    const out: string[] = [];
    for (const [key, value] of Object.entries(expected)) {
      const at = `${path}.${key}`;
      if (!Object.hasOwn(actual, key)) {
        out.push(`${at}: missing (expected ${show(value)})`);
        continue;
      }
      const change = changes.find((c) => c.key === key && Object.is(c.from, value) && Object.is(c.to, actual[key]));
      if (!change) out.push(...differences(value, actual[key], changes, at));
    }
    return out;
  }
  return Object.is(expected, actual) || sameScore(expected, actual)
    ? []
    : [`${path}: expected ${show(expected)}, got ${show(actual)}`];
}

/**
 * A search score recorded on another machine: the query's vector is computed afresh with this CPU's SIMD kernels,
 * whose float32 sums round in another order, so scores agree to about seven digits, not to the last bit. Whole
 * numbers (counts, ids, versions) must still be equal.
 */
function sameScore(expected: unknown, actual: unknown): boolean {
  if (typeof expected !== 'number' || typeof actual !== 'number') return false;
  if (Number.isInteger(expected) && Number.isInteger(actual)) return false;
  return Math.abs(expected - actual) <= 1e-6 * Math.max(1, Math.abs(expected));
}
