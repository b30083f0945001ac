import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataDir, loadSettings } from '../../server/config/load-settings.js';
import { tempDir } from '../helpers/app.js';

describe('settings', () => {
  it('takes flag over environment over config file over default', () => {
    const cwd = tempDir();
    writeFileSync(
      join(cwd, 'lectern.yaml'),
      'server:\n  port: 7000\n  host: 0.0.0.0\nchunking:\n  chunk_size: 300\ndata_dir: ./from-file\n',
    );
    const fromFile = loadSettings({ env: {}, cwd });
    expect(fromFile).toMatchObject({ port: 7000, host: '0.0.0.0', chunk_size: 300, data_dir: join(cwd, 'from-file') });
    const fromEnv = loadSettings({ env: { LECTERN_PORT: '7100', LECTERN_DATA_DIR: '/srv/lectern' }, cwd });
    expect(fromEnv).toMatchObject({ port: 7100, data_dir: '/srv/lectern', chunk_size: 300 });
    const fromFlag = loadSettings({ env: { LECTERN_PORT: '7100' }, cwd, flags: { port: '7200', data_dir: 'flagged' } });
    expect(fromFlag).toMatchObject({ port: 7200, data_dir: join(cwd, 'flagged') });
  });

  it('defaults to the platform data folder and refuses bad values clearly', () => {
    const cwd = tempDir();
    expect(loadSettings({ env: { XDG_DATA_HOME: '/x' }, cwd }).data_dir).toBe(defaultDataDir({ XDG_DATA_HOME: '/x' }));
    expect(defaultDataDir({ XDG_DATA_HOME: '/x' }, 'linux')).toBe('/x/lectern');
    expect(() => loadSettings({ env: { LECTERN_PORT: 'eighty' }, cwd })).toThrow(/invalid settings: \/port/);
    expect(() => loadSettings({ env: {}, cwd, configPath: 'missing.yaml' })).toThrow(/config file not found/);
  });

  it('reads allowed_private_hosts as a list from the file and comma-separated from the environment; outbound limits default', () => {
    const cwd = tempDir();
    expect(loadSettings({ env: {}, cwd })).toMatchObject({
      allowed_private_hosts: [],
      outbound_connect_timeout_ms: 10_000,
      outbound_timeout_ms: 180_000,
      outbound_max_bytes: 50 * 1024 * 1024,
      outbound_max_redirects: 5,
    });
    writeFileSync(join(cwd, 'lectern.yaml'), 'allowed_private_hosts:\n  - 127.0.0.1:11434\n  - "[::1]:8080"\n');
    expect(loadSettings({ env: {}, cwd }).allowed_private_hosts).toEqual(['127.0.0.1:11434', '[::1]:8080']);
    const env = { LECTERN_ALLOWED_PRIVATE_HOSTS: 'ollama.lan:11434, 10.0.0.5 ,', LECTERN_OUTBOUND_TIMEOUT_MS: '5000' };
    expect(loadSettings({ env, cwd })).toMatchObject({
      allowed_private_hosts: ['ollama.lan:11434', '10.0.0.5'],
      outbound_timeout_ms: 5000,
    });
    expect(() => loadSettings({ env: { LECTERN_ALLOWED_PRIVATE_HOSTS: 'http://10.0.0.5/' }, cwd })).toThrow(
      /invalid settings: \/allowed_private_hosts\/0/,
    );
  });

  it("bounds a team server's database waits at 5 s unless told; LECTERN_DATABASE_TIMEOUT_MS and the file set it; below 100 ms is refused", () => {
    const cwd = tempDir();
    expect(loadSettings({ env: {}, cwd }).database_timeout_ms).toBe(5000);
    expect(loadSettings({ env: { LECTERN_DATABASE_TIMEOUT_MS: '2500' }, cwd }).database_timeout_ms).toBe(2500);
    writeFileSync(join(cwd, 'lectern.yaml'), 'database_timeout_ms: 8000\n');
    expect(loadSettings({ env: {}, cwd }).database_timeout_ms).toBe(8000);
    expect(() => loadSettings({ env: { LECTERN_DATABASE_TIMEOUT_MS: '50' }, cwd })).toThrow(
      /invalid settings: \/database_timeout_ms/,
    );
  });
});
