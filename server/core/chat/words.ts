/**
 * Content words for matching answers and questions to sources: lower case, three letters or more,
 * common function words left out, cut to a 5-letter stem so "erupts" meets "eruption". Crude on purpose:
 * it only ranks a handful of retrieved sentences, where the question's rare words decide.
 */
const STOP = new Set(
  'the and for are but not you all any can had her was one our out has his how its may new now old see way who did get let put say she too use what when where which while with this that these those from into onto than then them they their there here have been were will would could should does doing about after again also because before being between both each few more most other some such only own same very just over under until why whom your yours itself answer question source sources document page'.split(
    ' ',
  ),
);

export function contentWords(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((w) => w.length >= 3 && !STOP.has(w)).map((w) => w.slice(0, 5));
}
