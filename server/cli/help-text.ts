/**
 * The "Examples:" block a command's --help ends with (`lectern <command> --help` always shows the command
 * in use), from the command lines themselves, each optionally followed by `# why`.
 */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`;
}
