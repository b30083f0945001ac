import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePath, saveExport, suggestedName } from '../../main/save-export.js';

describe('suggestedName', () => {
  it('reads plain and RFC 5987 names', () => {
    expect(suggestedName('attachment; filename="paper.zip"', 'x.zip')).toBe('paper.zip');
    expect(suggestedName("attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.zip", 'x.zip')).toBe('résumé.zip');
    expect(suggestedName(null, 'x.zip')).toBe('x.zip');
  });

  it('never lets the server choose a path', () => {
    expect(suggestedName('attachment; filename="../../.bashrc"', 'x.zip')).toBe('.bashrc');
    expect(suggestedName('attachment; filename="..\\\\evil.zip"', 'x.zip')).toBe('evil.zip');
    expect(suggestedName('attachment; filename=".."', 'x.zip')).toBe('x.zip');
  });
});

describe('freePath', () => {
  it('numbers the name until it is free', () => {
    const taken = new Set(['/d/a.zip', '/d/a (2).zip']);
    expect(freePath('/d', 'a.zip', (p) => taken.has(p))).toBe('/d/a (3).zip');
    expect(freePath('/d', 'b.zip', (p) => taken.has(p))).toBe('/d/b.zip');
  });
});

describe('saveExport', () => {
  let url = '';
  let dir = '';
  const server = createServer((req, res) => {
    if (req.headers['x-api-key'] !== 'k') {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'send the API key' } }));
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/zip', 'content-disposition': 'attachment; filename="job-1.zip"' })
      .end('PK-bytes');
  });
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lectern-export-'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the zip under its own name and never overwrites an earlier one', async () => {
    writeFileSync(join(dir, 'job-1.zip'), 'older');
    const path = await saveExport({ url, key: 'k', jobId: 'job-1', dir });
    expect(path).toBe(join(dir, 'job-1 (2).zip'));
    expect(readFileSync(path, 'utf8')).toBe('PK-bytes');
    expect(readFileSync(join(dir, 'job-1.zip'), 'utf8')).toBe('older');
  });

  it("reports the server's error message", async () => {
    await expect(saveExport({ url, key: 'wrong', jobId: 'job-1', dir })).rejects.toThrow('send the API key');
  });
});
