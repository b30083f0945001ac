import { statSync } from 'node:fs';
import { openSavedVectors, type SavedVectors } from './saved-vectors.js';

/**
 * Saved index files opened for reading vectors by key, each kept open while the file stays as it was: a
 * copy reads a collection in many small batches, and the key → slot map costs a walk of the whole file.
 * A file saved again since (another size or time) is opened afresh.
 */
export function createSavedFiles() {
  const open = new Map<string, { stamp: string; saved: SavedVectors }>();
  const forget = (path: string): void => {
    open.get(path)?.saved.close();
    open.delete(path);
  };
  return {
    /** The file's vectors, or undefined when there is no saved file. */
    open(path: string): SavedVectors | undefined {
      const st = statSync(path, { throwIfNoEntry: false });
      if (!st || st.size === 0) {
        forget(path);
        return undefined;
      }
      const stamp = `${st.size}:${st.mtimeMs}:${st.ino}`;
      const kept = open.get(path);
      if (kept?.stamp === stamp) return kept.saved;
      forget(path);
      const saved = openSavedVectors(path);
      open.set(path, { stamp, saved });
      return saved;
    },
    forget,
  };
}
