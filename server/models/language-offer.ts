/**
 * Whether to offer a multilingual embedding model for a document: English-only models (MiniLM, bge, e5)
 * place a German or Chinese text's vectors poorly, so its search finds little. Pure and without Node, so
 * the desk's embed panel and `lectern add-doc` decide alike.
 */
import type { EmbeddingLanguages } from './catalog.js';

/** The catalog's model for about a hundred languages: the one offered when none is installed. */
export const MULTILINGUAL_EMBEDDING_MODEL = 'multilingual-e5-small-int8';

/**
 * Read as English here. franc takes plain English prose for Scots now and then (the two share most of their
 * trigrams), and Scots is near enough to English for an English model anyway.
 */
const ENGLISH = new Set(['eng', 'sco']);

/** The fields of GET /models this decision reads. */
export interface ModelLanguages {
  id: string;
  name: string;
  task: string;
  languages: EmbeddingLanguages | null;
  installed: boolean;
  runnable: boolean;
}

export interface MultilingualOffer {
  /** The document's language: its ISO 639-3 code (detected_language.code) and its English name. */
  language: { code: string; name: string };
  /** The English-only model that would embed the document. */
  current: ModelLanguages;
  /** The multilingual model offered: an installed one first, else the catalog's. */
  model: ModelLanguages;
}

/** "German" for deu, "Chinese" for zho; the code itself for one the runtime cannot name. */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * The offer for a document detected as `detected` (a job's detected_language) that `embeddingModel` would
 * embed, among `models` (GET /models); null when it reads English, was not detected, or the detector's best
 * two guesses tied (confidence 0), or the model is not known to be English-only (a model of your own, or a
 * multilingual one), or no multilingual model can run.
 */
export function multilingualOffer(
  detected: { code: string; confidence?: number } | null | undefined,
  embeddingModel: string,
  models: readonly ModelLanguages[],
): MultilingualOffer | null {
  if (!detected || ENGLISH.has(detected.code) || detected.confidence === 0) return null;
  const current = models.find((m) => m.id === embeddingModel);
  if (current?.languages !== 'english') return null;
  const candidates = models.filter((m) => m.task === 'embedding' && m.languages === 'multilingual' && m.runnable);
  const model =
    candidates.find((m) => m.installed) ??
    candidates.find((m) => m.id === MULTILINGUAL_EMBEDDING_MODEL) ??
    candidates[0];
  if (!model) return null;
  return { language: { code: detected.code, name: languageName(detected.code) }, current, model };
}
