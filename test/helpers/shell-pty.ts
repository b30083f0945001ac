import { inPty, type Run } from './pty.js';

/** The prompt the shell prints, with the last command's exit status in it: `<0>$ `. */
const PROMPT = /<(\d+)>\$ $/;

export interface ShellSession extends Omit<Run, 'type'> {
  /** Types `s` a key at a time, as a person does. */
  type(s: string): Promise<void>;
  /** Types a command line and Enter; resolves once the shell prompts again, with the command's exit status and output. */
  run(line: string, opts?: { timeoutMs?: number }): Promise<{ status: number; output: string }>;
  /** Resolves once the shell prompts again after what was typed since `from`, with the exit status. */
  prompted(from: number, timeoutMs?: number): Promise<{ status: number; output: string }>;
}

/**
 * An interactive bash in a real pseudo-terminal, as a person has one: commands are typed into it (so `$(…)`,
 * `~`, `cd` and `&&` mean what they mean to a user) and each runs with the terminal as its stdin and stderr.
 * No profile or rc file is read; the prompt carries the last exit status so a test can read it.
 */
export function shellInPty(opts: { cwd: string; env: NodeJS.ProcessEnv; cols?: number }): ShellSession {
  const env: NodeJS.ProcessEnv = { ...opts.env, PS1: '<$?>$ ', PS2: '> ', HISTFILE: '/dev/null', INPUTRC: '/dev/null' };
  delete env.PROMPT_COMMAND;
  const term = inPty(['bash', '--noprofile', '--norc', '-i'], { cwd: opts.cwd, env, cols: opts.cols ?? 160 });
  const session: ShellSession = {
    ...term,
    type: (s) => term.type(s, 3),
    async prompted(from, timeoutMs = 60_000) {
      await term.waitFor(PROMPT, { from, timeoutMs });
      const seen = term.text().slice(from);
      return { status: Number(PROMPT.exec(seen)![1]), output: seen.replace(PROMPT, '') };
    },
    async run(line, { timeoutMs = 60_000 } = {}) {
      const from = term.text().length;
      await session.type(line);
      term.write('\r');
      return session.prompted(from, timeoutMs);
    },
  };
  return session;
}
