import { buildProgram } from './program.js';
import { err } from './term.js';

buildProgram()
  .parseAsync()
  .catch((e: unknown) => {
    const x = e as { code?: string; message?: string; exitCode?: number };
    if (x.code?.startsWith('commander.')) {
      // --help and --version end here too, with exit code 0; the error line is already written.
      process.exitCode = x.exitCode === 0 ? 0 : 2;
      return;
    }
    process.stderr.write(`${err.red('lectern:')} ${x.message ?? String(e)}\n`);
    process.exitCode = x.code === 'INVALID_SETTINGS' ? 2 : 1;
  });
