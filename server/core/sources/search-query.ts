/**
 * What both searches (encyclopedia articles, web results) check before asking the remote anything: a
 * query that is not blank, and a number of results from 1 to 50.
 */
import { AppError } from '../errors.js';

/**
 * The query, trimmed. `VALIDATION_FAILED` for a blank query, or for a `count` that is not a whole number
 * from 1 to 50 (the message names it `countName`, `details` gives it as the caller's API names it).
 */
export function checkedQuery(query: string, countName: string, count: number, details: Record<string, number>): string {
  if (!Number.isInteger(count) || count < 1 || count > 50) {
    throw new AppError('VALIDATION_FAILED', `${countName} must be a whole number from 1 to 50`, details);
  }
  const q = query.trim();
  if (q === '') throw new AppError('VALIDATION_FAILED', 'the search query is empty');
  return q;
}
