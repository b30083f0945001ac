import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDataLock, type DataLockInfo } from '../../server/store/data-lock.js';
import { json, tempDir } from '../helpers/app.js';
import { installTestModel } from '../helpers/embed-flow.js';
import { cliEnv, KEY, lecternDone, lecternInPty, lecternPiped } from '../helpers/pty.js';

// `lectern serve`: a Long-Trainer config, the data folder's lock (one process at a time, a dead holder's
// lock taken over), and --reload.

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const port = (s.address() as { port: number }).port;
  await new Promise((ok) => s.close(ok));
  return port;
}

async function lockWhere(
  dataDir: string,
  ok: (l: DataLockInfo | null) => boolean,
  timeoutMs = 60_000,
): Promise<DataLockInfo | null> {
  for (const end = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 100))) {
    const l = readDataLock(dataDir);
    if (ok(l)) return l;
    if (Date.now() > end) throw new Error(`the lock never got there: ${JSON.stringify(l)}`);
  }
}

describe('lectern serve', () => {
  it('reads a longtrainer.yaml given with -c (llm, embedding, chunking, server), owns the data folder, and its lock is taken over once it is killed', async () => {
    const cwd = tempDir('lectern-serve-');
    const dataDir = join(cwd, 'data');
    const port = await freePort();
    writeFileSync(
      join(cwd, 'longtrainer.yaml'),
      [
        'mongo_endpoint: mongodb://localhost:27017',
        'llm:',
        '  provider: extractive',
        'embedding:',
        '  provider: local',
        '  model_name: all-minilm-l6-v2-int8-pypi',
        'vector_store:',
        '  provider: faiss',
        'chunking:',
        '  chunk_size: 700',
        '  chunk_overlap: 70',
        'encrypt_chats: false',
        'server:',
        '  host: 127.0.0.1',
        `  port: ${port}`,
        '',
      ].join('\n'),
    );
    writeFileSync(join(cwd, 'notes.md'), '# Pumps\n\nA pump moves water uphill.\n');
    await installTestModel(dataDir);
    const server = lecternPiped(['serve', '-c', 'longtrainer.yaml', '--data-dir', dataDir], {
      cwd,
      env: cliEnv({ LECTERN_DOCUMENT_ROOTS: cwd }),
    });
    try {
      await server.waitFor(`on http://127.0.0.1:${port}`);
      expect(server.stderr()).toContain(
        'mongo_endpoint ignored: Lectern keeps its data in SQLite under the data folder',
      );
      expect(server.stderr()).toContain("vector_store faiss ignored: Lectern's vector store is usearch");
      const lock = readDataLock(dataDir)!;
      expect(lock).toMatchObject({
        owner: 'server',
        pid: server.child.pid,
        url: `http://127.0.0.1:${port}`,
        key_file: join(dataDir, 'api-key'),
        alive: true,
      });

      // The CLI finds the server through the lock and goes through it: the bot gets the file's llm.
      const created = await lecternDone(
        ['bot', 'create', '-p', 'You answer about pumps.', '--json', '--data-dir', dataDir],
        { cwd },
      );
      expect(created.code, created.stderr).toBe(0);
      const bot = JSON.parse(created.stdout);
      expect(bot.llm).toEqual({ provider: 'extractive' });
      const added = await lecternDone(['add-doc', bot.bot_id, 'notes.md', '--json', '--data-dir', dataDir], { cwd });
      expect(added.code, added.stderr).toBe(0);
      const jobId = JSON.parse(added.stdout).documents[0].job_id;
      const job = await json(
        await fetch(`${lock.url}/jobs/${jobId}`, {
          headers: { 'x-api-key': readFileSync(lock.key_file!, 'utf8').trim() },
        }),
      );
      expect(job.options).toMatchObject({ chunk_size: 700, chunk_overlap: 70 });

      // One process per data folder: a second server is refused, saying who holds it.
      const second = await lecternDone(['serve', '--data-dir', dataDir, '-p', '0'], { cwd });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(
        `lectern serve: the data folder ${dataDir} is in use by \`lectern serve\` (pid ${server.child.pid}) at http://127.0.0.1:${port}`,
      );
    } finally {
      // Killed outright: nothing runs to let go of the lock.
      server.child.kill('SIGKILL');
      await server.exited;
    }
    expect(readDataLock(dataDir)).toMatchObject({ pid: server.child.pid, alive: false });
    // A lock whose process is gone is taken over by the next command, which opens the folder itself.
    const list = await lecternDone(['bot', 'list', '--data-dir', dataDir], { cwd });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^[0-9a-f-]{36}\t-\t1\t0\t/m);
    expect(readDataLock(dataDir)).toBeNull();

    writeFileSync(join(cwd, 'encrypted.yaml'), 'encrypt_chats: sometimes\n');
    const refused = await lecternDone(['serve', '-c', 'encrypted.yaml', '--data-dir', dataDir], { cwd });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/encrypt_chats: sometimes is neither true nor false/);
  });

  it('--reload starts the server again when the config file changes; Ctrl-C stops it', async () => {
    const cwd = tempDir('lectern-serve-');
    const dataDir = join(cwd, 'data');
    const [first, second] = [await freePort(), await freePort()];
    const config = (port: number) =>
      writeFileSync(join(cwd, 'lectern.yaml'), `data_dir: ${dataDir}\nworkers: 1\nserver:\n  port: ${port}\n`);
    config(first);
    const serve = lecternInPty(['serve', '--reload'], { cwd });
    const before = await lockWhere(dataDir, (l) => l?.url === `http://127.0.0.1:${first}`);
    config(second);
    await serve.waitFor('lectern.yaml changed; restarting');
    const after = await lockWhere(dataDir, (l) => l?.url === `http://127.0.0.1:${second}`);
    expect(after!.pid).not.toBe(before!.pid);
    expect((await fetch(`http://127.0.0.1:${second}/docs`)).status).toBe(200);
    serve.write(KEY.ctrlC);
    expect(await serve.exited).toBe(0);
    expect(readDataLock(dataDir)).toBeNull();
  });
});
