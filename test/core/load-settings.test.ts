import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataDir, loadSettings } from '../../server/config/load-settings.js';
import { tempDir } from '../helpers/app.js';

describe('settings', () => {
  it('takes flag over environment over config file over default', () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'lectern.yaml'), 'server:\n  port: 7000\n  host: 0.0.0.0\nchunking:\n  chunk_size: 300\ndata_dir: ./from-file\n');
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
});
