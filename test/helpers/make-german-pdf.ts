import { onePagePdf } from './make-pdf.js';

/** Prose a language detector reads as German (deu) beyond doubt, with umlauts and ß in its words. */
export const GERMAN_LINES = [
  'Die Stadt am Fluss',
  '',
  'Die alten Häuser am Marktplatz wurden um das Jahr 1900 gebaut.',
  'In den schmalen Straßen wohnen viele Familien mit ihren Kindern.',
  'Jede Familie besitzt ein Buch über die Geschichte der Stadt, und',
  'im Sommer feiern alle gemeinsam ein großes Fest vor dem Rathaus.',
  'Die Brücke über den Fluss ist älter als die Kirche und wird jedes',
  'Jahr von vielen Besuchern aus dem ganzen Land bewundert.',
];

/** A one-page PDF with a text layer in German, in pdfkit's Helvetica (WinAnsi has the umlauts and ß). */
export function makeGermanPdf(lines: readonly string[] = GERMAN_LINES): Promise<Buffer> {
  return onePagePdf((doc) => {
    lines.forEach((line, i) => {
      doc
        .font(i === 0 ? 'Helvetica-Bold' : 'Helvetica')
        .fontSize(i === 0 ? 16 : 11)
        .text(line, 72, 72 + i * 18, { lineBreak: false });
    });
  });
}
