import { realpathSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { AppError } from '../errors.js';

/** The folders paths may be read from: the setting document_roots, or the user's home folder when it is empty. */
export const documentRootsOf = (configured: readonly string[]): string[] =>
  configured.length ? [...configured] : [homedir()];

/**
 * The roots' real paths (a root that does not exist holds nothing). Resolving a folder's files, pass
 * them to resolveInRoots once for all files instead of resolving every root again for each.
 */
export function realRoots(roots: readonly string[]): string[] {
  return roots.flatMap((r) => {
    try {
      return [realpathSync(r)];
    } catch {
      return [];
    }
  });
}

/**
 * Resolves a caller's path to a real file or folder inside one of the document roots, symlinks followed
 * (a link inside a root pointing out of it is refused like the path it points to). Relative paths are
 * taken from the first root. 403 PATH_NOT_ALLOWED outside the roots, whether or not anything is there (a
 * caller must not learn which files exist elsewhere), 404 FILE_NOT_FOUND inside them when nothing is there.
 */
export function resolveInRoots(
  path: string,
  roots: readonly string[],
  rootsReal: readonly string[] = realRoots(roots),
): { real: string; stat: Stats } {
  if (!path.trim() || path.includes('\0'))
    throw new AppError('VALIDATION_FAILED', 'path is empty or holds a NUL byte', [{ field: 'path' }]);
  const asked = isAbsolute(path) ? path : resolve(roots[0] ?? '/', path);
  const found = realPathOf(asked);
  if (!rootsReal.some((r) => within(found.real, r))) {
    throw new AppError(
      'PATH_NOT_ALLOWED',
      `${path} is outside the folders documents may be read from (setting document_roots)`,
      { roots },
    );
  }
  if (!found.exists) throw new AppError('FILE_NOT_FOUND', `no file or folder at ${path}`);
  return { real: found.real, stat: statSync(found.real) };
}

/**
 * Where a path really leads: its real path when it exists, else the real path of its nearest existing
 * folder with the missing rest appended (a missing file under a link out of the roots is outside them too).
 */
function realPathOf(asked: string): { real: string; exists: boolean } {
  const missing: string[] = [];
  for (let at = resolve(asked); ; at = dirname(at)) {
    try {
      return { real: join(realpathSync(at), ...missing), exists: missing.length === 0 };
    } catch {
      // Not there (or not readable): try the folder above. The filesystem root always resolves.
      if (dirname(at) === at) return { real: at, exists: false };
      missing.unshift(basename(at));
    }
  }
}

function within(real: string, rootReal: string): boolean {
  const rel = relative(rootReal, real);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
}
