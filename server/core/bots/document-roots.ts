import { realpathSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { AppError } from '../errors.js';

/** The folders paths may be read from: the setting document_roots, or the user's home folder when it is empty. */
export const documentRootsOf = (configured: readonly string[]): string[] => (configured.length ? [...configured] : [homedir()]);

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
 * taken from the first root. 404 FILE_NOT_FOUND when nothing is there, 403 PATH_NOT_ALLOWED outside.
 */
export function resolveInRoots(path: string, roots: readonly string[], rootsReal: readonly string[] = realRoots(roots)): { real: string; stat: Stats } {
  if (!path.trim() || path.includes('\0')) throw new AppError('VALIDATION_FAILED', 'path is empty or holds a NUL byte', [{ field: 'path' }]);
  const asked = isAbsolute(path) ? path : resolve(roots[0] ?? '/', path);
  let real: string;
  try {
    real = realpathSync(asked);
  } catch {
    throw new AppError('FILE_NOT_FOUND', `no file or folder at ${path}`);
  }
  if (!rootsReal.some((r) => within(real, r))) {
    throw new AppError('PATH_NOT_ALLOWED', `${path} is outside the folders documents may be read from (setting document_roots)`, { roots });
  }
  return { real, stat: statSync(real) };
}

function within(real: string, rootReal: string): boolean {
  const rel = relative(rootReal, real);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
}
