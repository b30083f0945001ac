import { sql, type SQL } from 'drizzle-orm';

/**
 * The languages a collection's chunk_vectors rows are indexed in, for either dialect: one index seek per
 * language on chunk_vectors_language_idx (collection, language), however many rows the collection has, since
 * every keyword search reads them.
 */
export const collectionLanguagesSql = (collection: string): SQL => sql`
  WITH RECURSIVE l(language) AS (
    SELECT min(language) FROM chunk_vectors WHERE collection = ${collection}
    UNION ALL
    SELECT (SELECT min(cv.language) FROM chunk_vectors cv WHERE cv.collection = ${collection} AND cv.language > l.language)
    FROM l WHERE l.language IS NOT NULL)
  SELECT language FROM l WHERE language IS NOT NULL`;
