import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { repoRoot, tempDir } from '../helpers/app.js';

const exe = process.platform === 'win32' ? '.exe' : '';
/** Built by scripts/install.sh from its pinned Go module version. */
const actionlint = join(repoRoot, '.tools', 'bin', `actionlint${exe}`);
const workflowsDir = join(repoRoot, '.github', 'workflows');
const workflowFiles = (): string[] =>
  readdirSync(workflowsDir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();

/**
 * actionlint runs shellcheck on every `run:` script only when it finds it, and would silently check less
 * on a machine without it: the tests name it explicitly and need it (scripts/install.sh installs it).
 */
function shellcheck(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(dir, `shellcheck${exe}`);
    if (dir && existsSync(path)) return path;
  }
  return undefined;
}

interface Finding {
  message: string;
  filepath: string;
  line: number;
  column: number;
  kind: string;
}

/** actionlint's findings on the files, as JSON; exit 0 means none, 1 some, anything else that it could not run. */
async function lint(files: string[]): Promise<{ code: number; findings: Finding[]; stderr: string }> {
  expect(existsSync(actionlint), `${actionlint} is missing: \`bash scripts/install.sh\` builds it`).toBe(true);
  const checker = shellcheck();
  expect(checker, 'shellcheck is not on PATH: `bash scripts/install.sh` installs it').toBeDefined();
  const args = ['-format', '{{json .}}', '-shellcheck', checker!, ...files];
  const run = promisify(execFile)(actionlint, args, { cwd: repoRoot });
  let result: { code: number; stdout: string; stderr: string };
  try {
    result = { code: 0, ...(await run) };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    result = { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
  const findings = result.stdout.trim() ? (JSON.parse(result.stdout) as Finding[]) : [];
  return { code: result.code, findings, stderr: result.stderr };
}

const shown = (f: Finding): string => `${f.filepath}:${f.line}:${f.column}: ${f.message} [${f.kind}]`;

describe('GitHub workflows', () => {
  it('actionlint (with shellcheck) finds nothing in any workflow', async () => {
    const files = workflowFiles();
    expect(files).toEqual(expect.arrayContaining(['ci.yml', 'release.yml']));
    const { code, findings, stderr } = await lint(files.map((f) => join('.github', 'workflows', f)));
    expect(findings.map(shown)).toEqual([]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('the same check reports a broken workflow, shell mistakes included', async () => {
    const broken = join(tempDir('lectern-workflow-'), 'broken.yml');
    writeFileSync(
      broken,
      [
        'on: push',
        'jobs:',
        '  build:',
        '    runs-on: ubuntu-latst',
        '    steps:',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template
        '      - run: echo ${{ matrix.nothing }}',
        '      - run: cp $SRC out',
        '',
      ].join('\n'),
    );
    const { code, findings } = await lint([broken]);
    expect(code).toBe(1);
    const kinds = new Set(findings.map((f) => f.kind));
    expect([...kinds].sort()).toEqual(['expression', 'runner-label', 'shellcheck']);
    expect(findings.find((f) => f.kind === 'shellcheck')?.message).toContain('SC2086');
  });

  it('release.yml keeps every installer electron-builder.yml makes, and smoke-tests each OS', () => {
    const builder = parseYaml(readFileSync(join(repoRoot, 'electron-builder.yml'), 'utf8')) as Record<
      string,
      { target?: string[] }
    >;
    expect({ linux: builder.linux?.target, mac: builder.mac?.target, win: builder.win?.target }).toEqual({
      linux: ['AppImage', 'deb'],
      mac: ['dmg'],
      win: ['nsis'],
    });
    const release = parseYaml(readFileSync(join(workflowsDir, 'release.yml'), 'utf8')) as {
      jobs: {
        installers: {
          strategy: { matrix: { include: { name: string; targets: string; installers: string }[] } };
          steps: { run?: string }[];
        };
      };
    };
    const job = release.jobs.installers;
    const byName = Object.fromEntries(job.strategy.matrix.include.map((m) => [m.name, m]));
    expect(byName.linux).toMatchObject({
      targets: '--linux AppImage deb',
      installers: 'release/*.AppImage\nrelease/*.deb\n',
    });
    expect(byName.macos).toMatchObject({ targets: '--mac dmg', installers: 'release/*.dmg' });
    // electron-builder names the nsis installer "<productName> Setup <version>.exe".
    expect(byName.windows).toMatchObject({ targets: '--win nsis', installers: 'release/*Setup*.exe' });
    const smokeRuns = job.steps.filter((s) => s.run?.includes('--smoke-test'));
    expect(smokeRuns).toHaveLength(3);
  });
});
