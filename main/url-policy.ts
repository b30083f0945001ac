/**
 * Which URLs the desktop window may open. Navigation inside the window is never allowed (the UI routes
 * with the hash); links leave for the system browser only when they are plain web or mail links, so a
 * crafted document cannot make the app open file:, javascript:, custom-protocol or local-service URLs.
 */
const EXTERNAL_SCHEMES = new Set(['https:', 'http:', 'mailto:']);

export function externalUrlAllowed(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (!EXTERNAL_SCHEMES.has(url.protocol)) return false;
  if (url.protocol === 'mailto:') return true;
  if (url.username || url.password) return false;
  const host = url.hostname.toLowerCase();
  // The app's own server and other local services are not "external": opening them in a browser would
  // hand them to a context that has no business with them.
  return !(
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    /^127\./.test(host) ||
    host === '0.0.0.0'
  );
}

/** A navigation that stays on the page the window loaded (a hash change), which Chromium reports too. */
export function isSameDocument(current: string, target: string): boolean {
  try {
    const a = new URL(current);
    const b = new URL(target);
    a.hash = '';
    b.hash = '';
    return a.href === b.href;
  } catch {
    return false;
  }
}
