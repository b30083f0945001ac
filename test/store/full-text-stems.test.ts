import { describe, expect, it } from 'vitest';
import { chunkFullText, queryFullText, STEMMED_LANGUAGES, stemsOf } from '../../server/store/full-text-stems.js';
import { fullTextWords } from '../../server/store/full-text-words.js';

describe("stems in a document's language for both full-text indexes", () => {
  it('adds nothing to English text or queries, nor to text of no known language', () => {
    for (const text of ['The Sicilian Defence answers the king pawns, e.g. 1. e4 c5!', 'Über café 42', '机器学习'])
      for (const language of ['eng', null, 'zho']) {
        expect(chunkFullText(text, language)).toBe(fullTextWords(text));
        expect(queryFullText(text, language ? [language] : [])).toBe(fullTextWords(text));
      }
    expect(queryFullText('running houses', ['eng', 'zho'])).toBe('running houses');
  });

  it("puts each word's Snowball stem after the words when it differs from the word, folded as the words are", () => {
    expect(chunkFullText('„Die alten Häusern“ am Fluss', 'deu')).toBe(' Die alten Hausern  am Fluss alt haus');
    expect(chunkFullText('Les chevaux du journal', 'fra')).toBe('Les chevaux du journal le cheval');
    // One stem per occurrence, so a word's count weighs as before; an elided article is a word of its own.
    expect(stemsOf('Häuser, Häuser und Bücher', ['deu'])).toEqual(['haus', 'haus', 'buch']);
    expect(stemsOf('l’homme d’affaires', ['fra'])).toEqual(['homm', 'affair']);
    expect(stemsOf('Книги о домах', ['rus'])).toEqual(['книг', 'дом']);
    expect(stemsOf('casas canciones', ['spa'])).toEqual(['cas', 'cancion']);
  });

  it("joins a query's words by their stems in each language the collection holds", () => {
    expect(queryFullText('Haus Büchern', ['deu'])).toBe('Haus Buchern buch');
    expect(queryFullText('chevaux journaux', ['deu', 'fra', 'eng'])).toBe('chevaux journaux cheval journal');
    // The inflected form and the base form meet on one stem, whichever of them the text or the query holds.
    const stem = (word: string, language: string) => stemsOf(word, [language])[0] ?? word.toLowerCase();
    for (const [a, b, language] of [
      ['Haus', 'Häusern', 'deu'],
      ['cheval', 'chevaux', 'fra'],
      ['casa', 'casas', 'spa'],
      ['hus', 'husen', 'swe'],
    ] as const)
      expect(stem(a, language), `${a} ${b}`).toBe(stem(b, language));
  });

  it('knows the Snowball languages the detection names', () => {
    for (const code of ['deu', 'fra', 'spa', 'ita', 'por', 'nld', 'swe', 'nob', 'dan', 'fin', 'rus'])
      expect(STEMMED_LANGUAGES).toContain(code);
    expect(STEMMED_LANGUAGES).not.toContain('eng');
  });
});
