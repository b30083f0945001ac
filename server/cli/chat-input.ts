import { createInterface } from 'node:readline';
import { out } from './term.js';

/**
 * The chat's terminal input. A question is read by a fresh readline interface (line editing, ↑/↓ through
 * `history`, newest first); while an answer is written no interface is open, so keys typed then do not
 * echo into the answer, and the terminal stays raw so Ctrl-C arrives as a key that stops the answer
 * rather than as a signal that would end the session.
 */
export function readQuestion(prompt: string, history: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    const rl = createInterface({
      input: process.stdin,
      output: process.stdout,
      terminal: true,
      history: [...history],
      historySize: 200,
      removeHistoryDuplicates: true,
    });
    let settled = false;
    const done = (value: string | null): void => {
      if (settled) return;
      settled = true;
      rl.close();
      resolve(value);
    };
    // Ctrl-C at the prompt clears the line, as a shell does; on an empty line it says how to leave.
    rl.on('SIGINT', () => {
      const empty = rl.line.length === 0;
      process.stdout.write(`^C\n${empty ? `${out.dim('(exit or Ctrl-D ends the chat)')}\n` : ''}`);
      done('');
    });
    rl.on('close', () => done(null));
    rl.question(prompt, (answer) => done(answer));
  });
}

/** Calls `onCtrlC` when Ctrl-C is pressed until the returned function is called. */
export function watchCtrlC(onCtrlC: () => void): () => void {
  const stdin = process.stdin;
  if (!stdin.isTTY) return () => undefined;
  stdin.setRawMode(true);
  const onData = (data: Buffer): void => {
    if (data.includes(0x03)) onCtrlC();
  };
  stdin.on('data', onData);
  stdin.resume();
  return () => {
    stdin.removeListener('data', onData);
    stdin.setRawMode(false);
    stdin.pause();
  };
}
