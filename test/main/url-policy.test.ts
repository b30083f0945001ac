import { describe, expect, it } from 'vitest';
import { externalUrlAllowed, isSameDocument } from '../../main/url-policy.js';

describe('externalUrlAllowed', () => {
  it.each(['https://example.org/paper', 'http://example.org', 'mailto:ada@example.org'])(
    'opens %s in the system browser',
    (url) => {
      expect(externalUrlAllowed(url)).toBe(true);
    },
  );

  it.each([
    'file:///etc/passwd',
    'javascript:alert(1)',
    'smb://host/share',
    'vscode://open',
    'http://127.0.0.1:8000/jobs',
    'http://localhost:3000',
    'http://app.localhost',
    'http://[::1]:80/',
    'http://0.0.0.0/',
    'https://user:pw@example.org',
    'not a url',
  ])('refuses %s', (url) => {
    expect(externalUrlAllowed(url)).toBe(false);
  });
});

describe('isSameDocument', () => {
  it('treats hash changes as staying on the page', () => {
    expect(
      isSameDocument('file:///app/renderer/index.html#/library', 'file:///app/renderer/index.html#/jobs/1/review'),
    ).toBe(true);
  });

  it('treats anything else as navigation', () => {
    expect(isSameDocument('file:///app/renderer/index.html', 'file:///etc/passwd')).toBe(false);
    expect(isSameDocument('file:///app/renderer/index.html', 'https://example.org')).toBe(false);
    expect(isSameDocument('about:blank', '::')).toBe(false);
  });
});
