/**
 * Ordered-list numbers as the reader sees them. Flow extractors keep an ordered item's number as a
 * text prefix ("3. Restart the service") because reviewers and answers refer to steps by number;
 * bullets carry no information and are dropped.
 */

function alpha(n: number): string {
  let s = '';
  for (let k = n; k > 0; k = Math.floor((k - 1) / 26)) s = String.fromCharCode(97 + ((k - 1) % 26)) + s;
  return s;
}

function roman(n: number): string {
  const table: Array<[number, string]> = [
    [1000, 'm'],
    [900, 'cm'],
    [500, 'd'],
    [400, 'cd'],
    [100, 'c'],
    [90, 'xc'],
    [50, 'l'],
    [40, 'xl'],
    [10, 'x'],
    [9, 'ix'],
    [5, 'v'],
    [4, 'iv'],
    [1, 'i'],
  ];
  let s = '';
  let k = n;
  for (const [value, digits] of table) {
    while (k >= value) {
      s += digits;
      k -= value;
    }
  }
  return s;
}

/** The marker for item number `n` of an <ol type="...">: 1, a, A, i, I (decimal otherwise). */
export function listMarker(n: number, type: string | undefined): string {
  // Letters and roman numerals have no zero or negatives (nor sensible huge values): decimal then.
  if (n < 1 || n > 3999) return String(n);
  switch (type) {
    case 'a':
      return alpha(n);
    case 'A':
      return alpha(n).toUpperCase();
    case 'i':
      return roman(n);
    case 'I':
      return roman(n).toUpperCase();
    default:
      return String(n);
  }
}
