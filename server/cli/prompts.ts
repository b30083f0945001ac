import { createInterface, type Interface } from 'node:readline';
import { CliError } from './fail.js';
import { painter, colourOn } from './term.js';

/**
 * Questions on a terminal with node:readline (line editing, ↑/↓ history, Tab completes a choice): the
 * default is shown and taken on Enter; a wrong answer is said and asked again. Ctrl-C or Ctrl-D cancels.
 */
export interface Prompter {
  text(o: {
    label: string;
    default: string;
    choices?: readonly string[];
    check?: (value: string) => string | null;
  }): Promise<string>;
  confirm(o: { label: string; default: boolean; check?: (value: boolean) => string | null }): Promise<boolean>;
  close(): void;
}

/** Choices shown in the question itself; more are offered by Tab. */
const MAX_LISTED = 7;

export function createPrompter(
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): Prompter {
  const paint = painter(colourOn(output));
  let choices: readonly string[] = [];
  const rl: Interface = createInterface({
    input,
    output,
    terminal: true,
    historySize: 50,
    completer: (line: string) => [choices.filter((c) => c.startsWith(line)), line],
  });
  let cancel: ((e: Error) => void) | null = null;
  const cancelled = () => new CliError('CANCELLED', 'cancelled; nothing was written');
  rl.on('SIGINT', () => cancel?.(cancelled()));
  rl.on('close', () => cancel?.(cancelled()));

  const question = (prompt: string): Promise<string> =>
    new Promise((resolve, reject) => {
      cancel = reject;
      rl.question(prompt, (answer) => {
        cancel = null;
        resolve(answer.trim());
      });
    });

  const say = (problem: string) => output.write(`  ${paint.red('✖')} ${problem}\n`);

  return {
    async text({ label, default: def, choices: options = [], check }) {
      choices = options;
      // A long list (the catalog's models) would wrap the question over several lines: Tab lists and completes them.
      const listed =
        options.length > MAX_LISTED
          ? paint.dim(` [${options.length} choices: Tab lists them]`)
          : options.length > 1
            ? paint.dim(` [${options.join('/')}]`)
            : '';
      for (;;) {
        const answer =
          (await question(`${paint.cyan('?')} ${paint.bold(label)}${listed} ${paint.dim(`(${def})`)} `)) || def;
        const problem =
          options.length && !options.includes(answer)
            ? `${answer} is not one of ${options.join(', ')}`
            : (check?.(answer) ?? null);
        if (!problem) return answer;
        say(problem);
      }
    },
    async confirm({ label, default: def, check }) {
      choices = ['yes', 'no'];
      for (;;) {
        const answer = (
          await question(`${paint.cyan('?')} ${paint.bold(label)} ${paint.dim(def ? '(Y/n)' : '(y/N)')} `)
        ).toLowerCase();
        const value =
          answer === '' ? def : ['y', 'yes'].includes(answer) ? true : ['n', 'no'].includes(answer) ? false : null;
        const problem = value === null ? 'answer y or n' : (check?.(value) ?? null);
        if (problem === null && value !== null) return value;
        say(problem ?? 'answer y or n');
      }
    },
    close() {
      cancel = null;
      rl.close();
    },
  };
}
