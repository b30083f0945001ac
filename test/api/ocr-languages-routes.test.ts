/**
 * The admin routes of OCR languages (GET /ocr-languages, POST and DELETE /ocr-languages/{code}), with the
 * real server: who may use them (a reader lists, only an unscoped admin changes), the refusals (an unknown
 * code, a local copy outside document_roots, a registry the outbound rules refuse, a tarball that does not
 * match its integrity, a language only a local copy gives), an install from a local server speaking the npm
 * registry's protocol (allowed through allowed_private_hosts) read by a job at once, and its undo.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  enc,
  ingest,
  json,
  listAll,
  repoRoot,
  serverClient,
  startServer,
  tempDir,
  type TestServer,
} from '../helpers/app.js';
import { createKey, lecternAsync } from '../helpers/keys-cli.js';
import { scriptScan, SCRIPT_FONTS } from '../helpers/make-script-scan.js';
import { startNpmRegistry, type NpmRegistry } from '../helpers/npm-registry.js';

const packages = join(repoRoot, 'node_modules', '@tesseract.js-data');
const GERMAN = [
  'Größere Änderungen im Straßenbau',
  'Die Straße führt über die Brücke zum Rathaus.',
  'Wir müssen die Prüfung bis Freitag abschließen.',
];

let server: TestServer;
let registry: NpmRegistry;
let corrupt: NpmRegistry;
let unlisted: NpmRegistry;
let reader: (method: string, path: string, body?: unknown) => Promise<Response>;
let reviewer: typeof reader;
let scopedAdmin: typeof reader;
let admin: typeof reader;

beforeAll(async () => {
  [registry, corrupt, unlisted] = await Promise.all([
    startNpmRegistry(['deu']),
    startNpmRegistry(['deu'], { corrupt: true }),
    startNpmRegistry(['deu']),
  ]);
  server = await startServer({
    settings: { allowed_private_hosts: [registry.host, corrupt.host], document_roots: [packages] },
  });
  const as = (secret: string) => (method: string, path: string, body?: unknown) =>
    serverClient(server.url, secret).call(method, path, body === undefined ? {} : { json: body });
  const job = (await ingest(server, 'a.md', enc('# Alpha\n\nA job for a scoped key.\n'))).job_id as string;
  reader = as((await createKey(server, 'lang-reader', 'reader')).secret);
  reviewer = as((await createKey(server, 'lang-reviewer', 'reviewer')).secret);
  scopedAdmin = as((await createKey(server, 'lang-scoped', 'admin', { jobs: [job] })).secret);
  admin = as((await createKey(server, 'lang-admin', 'admin')).secret);
});
afterAll(async () => {
  await server?.close();
  await Promise.all([registry?.close(), corrupt?.close(), unlisted?.close()]);
});

const errorOf = async (res: Response) => ({ status: res.status, ...(await json(res)).error });
const deuRow = async () =>
  (await json(await reader('GET', '/ocr-languages'))).languages.find((l: { code: string }) => l.code === 'deu');

describe('/ocr-languages', () => {
  it('lists the languages for a reader, as `lectern languages list --json` prints them', async () => {
    const res = await reader('GET', '/ocr-languages');
    expect(res.status).toBe(200);
    const listed = await json(res);
    expect(listed.languages_dir).toBe(join(server.dataDir, 'ocr-languages'));
    expect(listed.languages.find((l: { code: string }) => l.code === 'eng')).toMatchObject({
      installed: true,
      bundled: true,
    });
    expect(listed.languages.find((l: { code: string }) => l.code === 'rus')).toMatchObject({
      installed: false,
      install: expect.stringContaining('apt-get install tesseract-ocr-rus'),
    });
    const cli = await lecternAsync(['languages', 'list', '--json', '--data-dir', server.dataDir]);
    expect(cli.status, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual(listed);
  });

  it('lets only an unscoped admin install or remove, and refuses an unknown code, a copy outside document_roots and a registry not allowed', async () => {
    for (const who of [reader, reviewer, scopedAdmin]) {
      expect((await errorOf(await who('POST', '/ocr-languages/deu', { registry: registry.url }))).status).toBe(403);
      expect((await errorOf(await who('DELETE', '/ocr-languages/deu'))).status).toBe(403);
    }
    expect(await errorOf(await admin('POST', '/ocr-languages/klingon', {}))).toMatchObject({
      status: 400,
      code: 'OCR_LANGUAGE_UNKNOWN',
      details: { unknown: ['klingon'], known: expect.arrayContaining(['deu', 'ara']) },
    });
    const outside = join(tempDir('lectern-outside-'));
    expect(await errorOf(await admin('POST', '/ocr-languages/deu', { from: outside }))).toMatchObject({
      status: 403,
      code: 'PATH_NOT_ALLOWED',
    });
    expect(
      await errorOf(await admin('POST', '/ocr-languages/deu', { from: join(packages, 'no-such-copy') })),
    ).toMatchObject({ status: 404, code: 'FILE_NOT_FOUND' });
    expect(await errorOf(await admin('POST', '/ocr-languages/deu', { registry: unlisted.url }))).toMatchObject({
      status: 403,
      code: 'URL_NOT_ALLOWED',
    });
    expect(unlisted.connections()).toBe(0);
    expect(await errorOf(await admin('POST', '/ocr-languages/deu', { registry: corrupt.url }))).toMatchObject({
      status: 422,
      code: 'LANGUAGE_CHECKSUM_MISMATCH',
    });
    expect(await errorOf(await admin('POST', '/ocr-languages/fra', { registry: registry.url }))).toMatchObject({
      status: 502,
      code: 'LANGUAGE_DOWNLOAD_FAILED',
    });
    expect(await errorOf(await admin('POST', '/ocr-languages/rus', {}))).toMatchObject({
      status: 422,
      code: 'LANGUAGE_NOT_ON_REGISTRY',
      details: { install: expect.stringContaining('--from') },
    });
    expect(
      await errorOf(await admin('POST', '/ocr-languages/ara', { from: join(repoRoot, 'package.json') })),
    ).toMatchObject({ status: 403, code: 'PATH_NOT_ALLOWED' });
    expect(
      await errorOf(await admin('POST', '/ocr-languages/deu', { from: join(packages, 'eng', 'package.json') })),
    ).toMatchObject({ status: 422, code: 'LANGUAGE_SOURCE_INVALID' });
    expect(await errorOf(await admin('DELETE', '/ocr-languages/deu'))).toMatchObject({
      status: 404,
      code: 'OCR_LANGUAGE_NOT_INSTALLED',
    });
    expect(await errorOf(await admin('DELETE', '/ocr-languages/eng'))).toMatchObject({
      status: 404,
      code: 'OCR_LANGUAGE_NOT_INSTALLED',
      message: expect.stringContaining('ships with the app'),
    });
    // Nothing of all that was installed.
    expect(await deuRow()).toMatchObject({ installed: false, install: 'lectern languages add deu' });
  });

  it('installs from an npm registry the server may reach, a job reads with it at once; removing it is the undo', async () => {
    const before = registry.requests.length;
    const res = await admin('POST', '/ocr-languages/deu', { registry: registry.url });
    expect(res.status).toBe(201);
    const note = await json(res);
    const model = readFileSync(join(server.dataDir, 'ocr-languages', 'deu.traineddata.gz'));
    expect(note).toMatchObject({
      code: 'deu',
      package: '@tesseract.js-data/deu@1.0.0',
      integrity: expect.stringMatching(/^sha512-/),
      bytes: model.length,
      source: expect.stringContaining(registry.url),
    });
    expect(registry.requests.slice(before)).toEqual([
      'GET /@tesseract.js-data%2fdeu/1.0.0',
      'GET /@tesseract.js-data/deu/-/deu-1.0.0.tgz',
    ]);
    expect(model.equals(readFileSync(join(packages, 'deu', '4.0.0_best_int', 'deu.traineddata.gz')))).toBe(true);
    expect(await deuRow()).toMatchObject({
      installed: true,
      bundled: false,
      package: '@tesseract.js-data/deu@1.0.0',
      bytes: model.length,
    });

    // Installed already: nothing fetched.
    const again = await admin('POST', '/ocr-languages/deu', { registry: registry.url });
    expect(again.status).toBe(200);
    expect(await json(again)).toEqual({ code: 'deu', already: true });
    expect(registry.requests.length).toBe(before + 2);

    const job = await ingest(server, 'de.png', scriptScan(GERMAN, { font: SCRIPT_FONTS.latin, seed: 21 }), {
      ocr_language: 'eng+deu',
    });
    expect(job.options.ocr_language).toBe('eng+deu');
    expect(job.detected_language).toMatchObject({ code: 'deu', source: 'ocr' });
    const text = (await listAll(server, `/jobs/${job.job_id}/blocks`)).map((b) => b.text).join('\n');
    expect(text).toContain('Die Straße führt über die Brücke zum Rathaus.');

    const removed = await admin('DELETE', '/ocr-languages/deu');
    expect(removed.status).toBe(200);
    expect(await json(removed)).toEqual({ removed: 'deu' });
    expect(await deuRow()).toMatchObject({ installed: false, file: null });
    const missing = await server.upload('de.png', scriptScan(GERMAN, { font: SCRIPT_FONTS.latin }), {
      ocr_language: 'eng+deu',
    });
    expect(await errorOf(missing)).toMatchObject({
      status: 409,
      code: 'OCR_LANGUAGE_MISSING',
      details: { missing: ['deu'] },
    });
    // The job read before stays as it was.
    expect((await json(await server.call('GET', `/jobs/${job.job_id}`))).status).toBe('ready_for_review');
  });

  it('installs from a local copy inside document_roots (force installs again)', async () => {
    const res = await admin('POST', '/ocr-languages/deu', { from: join(packages, 'deu') });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({
      code: 'deu',
      package: '@tesseract.js-data/deu@1.0.0',
      integrity: null,
      source: join(packages, 'deu'),
    });
    const forced = await admin('POST', '/ocr-languages/deu', { force: true, registry: registry.url });
    expect(forced.status).toBe(201);
    expect((await json(forced)).integrity).toMatch(/^sha512-/);
    expect(await deuRow()).toMatchObject({ installed: true, source: expect.stringContaining(registry.url) });
    expect((await admin('DELETE', '/ocr-languages/deu')).status).toBe(200);
  });
});
