import { describe, expect, it } from 'vitest';
import { DEFAULT_EMBEDDING_MODEL, MODEL_CATALOG } from '../../server/models/catalog.js';
import {
  languageName,
  MULTILINGUAL_EMBEDDING_MODEL,
  type ModelLanguages,
  multilingualOffer,
} from '../../server/models/language-offer.js';

// The catalog as GET /models lists it on a machine where nothing is installed (`installed` set per case).
const listed = (installed: string[] = []): ModelLanguages[] =>
  MODEL_CATALOG.map((m) => ({
    id: m.id,
    name: m.name,
    task: m.task,
    languages: m.task === 'embedding' ? (m.languages ?? null) : null,
    installed: installed.includes(m.id),
    runnable: true,
  }));
const GERMAN = { code: 'deu' };

describe('the catalog states what each embedding model reads', () => {
  it('every catalog embedding model says English or multilingual; only multilingual-e5 is multilingual', () => {
    const embedding = MODEL_CATALOG.filter((m) => m.task === 'embedding');
    expect(embedding.every((m) => m.languages === 'english' || m.languages === 'multilingual')).toBe(true);
    expect(embedding.filter((m) => m.languages === 'multilingual').map((m) => m.id)).toEqual([
      MULTILINGUAL_EMBEDDING_MODEL,
    ]);
  });
});

describe('multilingualOffer', () => {
  it('offers multilingual-e5 for a German document the default (English-only) model would embed, naming the language', () => {
    const offer = multilingualOffer(GERMAN, DEFAULT_EMBEDDING_MODEL, listed([DEFAULT_EMBEDDING_MODEL]));
    expect(offer).toMatchObject({
      language: { code: 'deu', name: 'German' },
      current: { id: DEFAULT_EMBEDDING_MODEL, languages: 'english' },
      model: { id: MULTILINGUAL_EMBEDDING_MODEL, installed: false },
    });
    expect(multilingualOffer({ code: 'zho' }, 'bge-small-en-v1.5-int8', listed())?.language.name).toBe('Chinese');
  });

  it('offers nothing for English, for no language detected, or for a model that reads many languages', () => {
    expect(multilingualOffer({ code: 'eng' }, DEFAULT_EMBEDDING_MODEL, listed())).toBeNull();
    expect(multilingualOffer(null, DEFAULT_EMBEDDING_MODEL, listed())).toBeNull();
    expect(multilingualOffer(undefined, DEFAULT_EMBEDDING_MODEL, listed())).toBeNull();
    expect(multilingualOffer(GERMAN, MULTILINGUAL_EMBEDDING_MODEL, listed())).toBeNull();
  });

  it('takes Scots for English (franc mistakes English prose for it), and a tie of the detector for no answer', () => {
    expect(multilingualOffer({ code: 'sco' }, DEFAULT_EMBEDDING_MODEL, listed())).toBeNull();
    expect(multilingualOffer({ code: 'deu', confidence: 0 }, DEFAULT_EMBEDDING_MODEL, listed())).toBeNull();
    expect(multilingualOffer({ code: 'deu', confidence: 0.1 }, DEFAULT_EMBEDDING_MODEL, listed())).not.toBeNull();
  });

  it('says nothing of a model whose languages are not known (one of your own) or that is not listed', () => {
    const mine: ModelLanguages = {
      id: 'my-e5',
      name: 'my-e5',
      task: 'embedding',
      languages: null,
      installed: true,
      runnable: true,
    };
    expect(multilingualOffer(GERMAN, 'my-e5', [...listed(), mine])).toBeNull();
    expect(multilingualOffer(GERMAN, 'text-embedding-3-small', listed())).toBeNull();
  });

  it('prefers a multilingual model already installed, and offers none that cannot run here', () => {
    const other: ModelLanguages = {
      id: 'labse-int8',
      name: 'LaBSE',
      task: 'embedding',
      languages: 'multilingual',
      installed: true,
      runnable: true,
    };
    expect(multilingualOffer(GERMAN, DEFAULT_EMBEDDING_MODEL, [...listed(), other])?.model.id).toBe('labse-int8');
    const unrunnable = listed().map((m) => (m.languages === 'multilingual' ? { ...m, runnable: false } : m));
    expect(multilingualOffer(GERMAN, DEFAULT_EMBEDDING_MODEL, unrunnable)).toBeNull();
  });

  it('names a language by its ISO 639-3 code, or gives the code back when it has no name', () => {
    expect(languageName('fra')).toBe('French');
    expect(languageName('ara')).toBe('Arabic');
    expect(languageName('qqq')).toBe('qqq');
    expect(languageName('not a code')).toBe('not a code');
  });
});
