import { Command } from 'commander';
import { addModelsCommands } from './models.js';
import { serve } from './serve.js';

const program = new Command('lectern').description('Lectern: offline document review, search and chat');

program
  .command('serve')
  .description('start the HTTP server (both APIs, the docs at /docs)')
  .option('-c, --config <path>', 'YAML configuration file (default: ./lectern.yaml when present)')
  .option('--host <host>', 'listen host (default 127.0.0.1)')
  .option('-p, --port <port>', 'listen port (default 8000)')
  .option('--data-dir <dir>', 'where the database, originals and exports live')
  .option('--workers <n>', 'worker threads (0 = one per core)')
  .action(serve);

addModelsCommands(program);

program.parseAsync().catch((err: unknown) => {
  const e = err as { code?: string; message?: string };
  process.stderr.write(`lectern: ${e.message ?? String(err)}\n`);
  process.exit(e.code === 'INVALID_SETTINGS' ? 2 : 1);
});
