import type { Locator, Page } from 'playwright-core';

/**
 * Types a question into a chat pane (the job's panel or a bot's, named by its selector), sends it, and returns the
 * locator of that question's turn, the newest one asking it, for the caller to wait on the status it expects.
 */
export async function sendQuestion(page: Page, pane: string, question: string): Promise<Locator> {
  await page.fill(`${pane} textarea[name=question]`, question);
  await page.click(`${pane} button.ask`);
  return page
    .locator(`${pane} .turn`)
    .filter({ has: page.locator('.question', { hasText: question }) })
    .last();
}
