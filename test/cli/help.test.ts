import { Help, type Command, type Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../server/cli/program.js';
import { tempDir } from '../helpers/app.js';
import { lecternDone } from '../helpers/pty.js';

// `lectern --help` and every command's --help, read in a real terminal as a person reads them. The commands
// and options come from commander's own tree (the one bin/lectern.js parses with), not from a list written
// here, so a command or option added later is held to the same rule: every option listed, and examples of
// the command in use whose flags all exist.

interface Node {
  path: string[];
  cmd: Command;
}

function walk(cmd: Command, path: string[] = []): Node[] {
  return [{ path, cmd }, ...cmd.commands.flatMap((sub) => walk(sub, [...path, sub.name()]))];
}

const program = buildProgram();
const tree = walk(program);
const helpOption = (cmd: Command): Option => new Help().visibleOptions(cmd).find((o) => o.long === '--help')!;
/** Every option the command declares (hidden ones too: a hidden option is still one the help must name), and -h. */
const optionsOf = (cmd: Command): Option[] => [...cmd.options, helpOption(cmd)];

/** The command a `lectern …` example line runs, and the flags it gives (quoted arguments and comments left out). */
function exampleCommand(line: string): { path: string[]; flags: string[] } {
  const after = line.slice(line.indexOf('lectern ') + 'lectern '.length);
  // Only this command's own words: up to a comment, a pipe, a redirection or the end of $( … ).
  const words = after
    .replace(/"[^"]*"|'[^']*'/g, 'ARG')
    .replace(/\s*(#|\||<|>|\)|;|&&).*$/, '')
    .split(/\s+/)
    .filter(Boolean);
  const path: string[] = [];
  let cmd = program;
  for (const w of words) {
    const sub = cmd.commands.find((c) => c.name() === w);
    if (!sub) break;
    path.push(w);
    cmd = sub;
  }
  return { path, flags: words.filter((w) => /^-{1,2}[a-zA-Z]/.test(w)).map((w) => w.replace(/=.*$/, '')) };
}

/** Runs `fn` over `items`, `n` at a time: two cores are shared with other test runs. */
async function inTurns<T, R>(items: T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]!);
      }
    }),
  );
  return results;
}

describe('lectern --help', () => {
  it('the tree holds every command a user is sent to, with their subcommands', () => {
    const names = tree.map((n) => n.path.join(' '));
    // Not the whole list (the walk below is): the ones the five-minute path, init's next steps and the README name.
    for (const c of [
      'init',
      'serve',
      'bot list',
      'bot create',
      'bot delete',
      'add-doc',
      'chat',
      'models pull',
      'models import',
      'models list',
      'models verify',
      'keys create',
      'languages add',
    ]) {
      expect(names).toContain(c);
    }
  });

  it("lectern --help and every command's and subcommand's --help, in a terminal, list each of its options and show it in use", async () => {
    const cwd = tempDir('lectern-help-');
    const runs = await inTurns(tree, 3, (n) => lecternDone([...n.path, '--help'], { cwd, pty: true }));
    const problems: string[] = [];
    runs.forEach((r, i) => {
      const { path, cmd } = tree[i]!;
      const name = ['lectern', ...path].join(' ');
      if (r.code !== 0) return void problems.push(`${name} --help exited ${r.code}: ${r.stdout}`);
      const help = r.stdout;
      // The options table: each option's flags at the start of its line, as commander writes them.
      const optionLines = help
        .split('\n')
        .filter((l) => /^\s+-/.test(l))
        .map((l) => l.trim());
      for (const o of optionsOf(cmd)) {
        if (!optionLines.some((l) => l.startsWith(o.flags))) problems.push(`${name} --help does not list ${o.flags}`);
      }
      for (const sub of cmd.commands) {
        if (!new RegExp(`^\\s+${sub.name()}\\b`, 'm').test(help))
          problems.push(`${name} --help does not list its command ${sub.name()}`);
      }
      const section = /\nExamples\b[^\n]*:\n([\s\S]*)$/.exec(help)?.[1];
      if (!section) return void problems.push(`${name} --help has no Examples section`);
      const uses = section.split('\n').filter((l) => /^\s+\$ .*\blectern /.test(l));
      // A group's examples may show its subcommands; the root's, any command.
      const own = uses.filter((l) => [...exampleCommand(l).path, ''].join(' ').startsWith([...path, ''].join(' ')));
      if (own.length === 0) problems.push(`${name} --help has no example of ${name} in use`);
      // An example must run: each flag it gives is one its command has.
      for (const line of uses) {
        const ex = exampleCommand(line);
        const target = tree.find((t) => t.path.join(' ') === ex.path.join(' '))!.cmd;
        const known = optionsOf(target)
          .flatMap((o) => [o.long, o.short])
          .filter(Boolean);
        for (const f of ex.flags)
          if (!known.includes(f))
            problems.push(
              `${name} --help: the example "${line.trim()}" gives ${f}, which lectern ${ex.path.join(' ')} does not have`,
            );
      }
    });
    expect(problems, problems.join('\n')).toEqual([]);
    // Sanity of the walk itself: it reached the subcommands of every group.
    expect(tree.length).toBeGreaterThanOrEqual(22);
  });
});
