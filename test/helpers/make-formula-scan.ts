/**
 * A statistics paper's page made by the tests: prose with inline symbols, numbered display formulas, a code
 * listing in a monospaced font and a ruled table of estimates, set with Debian's DejaVu fonts on an A4 page,
 * together with its text in reading order (each formula, code line and table row as a line of its own, table
 * cells row by row). Scanned with makeScan, it is the page kind OCR reads worst: symbols, operators and
 * punctuation-heavy lines that a dictionary does not help with.
 */
import PDFDocument from 'pdfkit';
import { finish } from './make-pdf.js';

const DEJAVU = '/usr/share/fonts/truetype/dejavu';

export interface FormulaPage {
  pdf: Buffer;
  /** The page's text, one line per printed line, in reading order. */
  text: string;
}

type Part =
  | { kind: 'heading'; text: string }
  | { kind: 'prose'; text: string }
  | { kind: 'formula'; text: string; number: string }
  | { kind: 'code'; text: string }
  | { kind: 'table'; rows: string[][] };

const PAGE: readonly Part[] = [
  { kind: 'heading', text: '3 Estimating the variance of a mean' },
  { kind: 'prose', text: 'Let x1, ..., xn be independent draws with mean μ and variance σ² < ∞. The sample mean' },
  { kind: 'prose', text: 'and the unbiased estimator of the variance are' },
  { kind: 'formula', text: 'x̄ = (1/n) Σ xi,   s² = Σ (xi − x̄)² / (n − 1),', number: '(3.1)' },
  { kind: 'prose', text: 'and by Chebyshev’s inequality, for every ε > 0,' },
  { kind: 'formula', text: 'P(|x̄ − μ| ≥ ε) ≤ σ² / (n ε²).', number: '(3.2)' },
  { kind: 'prose', text: 'With α = 0.05 and n = 120 the statistic t = (x̄ − μ0) / (s / √n) = 2.31 gives p = 0.023,' },
  { kind: 'prose', text: 'so H0: μ = μ0 is rejected. The regression estimate and its variance are' },
  { kind: 'formula', text: 'β = (XᵀX)⁻¹ Xᵀy,   Var(β) = σ² (XᵀX)⁻¹,', number: '(3.3)' },
  { kind: 'formula', text: 'f(x; μ, σ) = exp(−(x − μ)² / 2σ²) / (σ √(2π)).', number: '(3.4)' },
  { kind: 'prose', text: 'Listing 1 computes a percentile bootstrap interval for any statistic of the sample:' },
  { kind: 'code', text: 'def bootstrap_ci(x, stat=np.mean, b=2000, alpha=0.05):' },
  { kind: 'code', text: '    rng = np.random.default_rng(42)' },
  { kind: 'code', text: '    boot = [stat(rng.choice(x, len(x))) for _ in range(b)]' },
  { kind: 'code', text: '    lo, hi = np.quantile(boot, [alpha / 2, 1 - alpha / 2])' },
  { kind: 'code', text: '    return {"lo": lo, "hi": hi, "se": np.std(boot, ddof=1)}' },
  { kind: 'prose', text: 'Table 2 lists the estimates of the three models fitted to the n = 120 observations.' },
  {
    kind: 'table',
    rows: [
      ['Model', 'β', 'SE', 't', 'p-value', 'R²'],
      ['OLS', '0.412', '0.051', '8.08', '<0.001', '0.36'],
      ['Ridge (λ=0.1)', '0.397', '0.049', '8.10', '<0.001', '0.35'],
      ['Lasso (λ=0.05)', '0.365', '0.055', '6.64', '0.002', '0.31'],
      ['Bootstrap', '0.409', '0.058', '7.05', '0.004', '–'],
    ],
  },
  { kind: 'prose', text: 'The intervals [0.31, 0.51] and [0.30, 0.50] overlap; the difference of 0.047 is not' },
  { kind: 'prose', text: 'significant (z = 0.64, p = 0.52), as E[s²] = σ² holds for each estimator in (3.1).' },
];

/** The page as a born-digital PDF and its text. */
export async function formulaPagePdf(): Promise<FormulaPage> {
  const doc = new PDFDocument({ size: 'A4', margin: 0, info: { CreationDate: new Date(Date.UTC(2026, 0, 1)) } });
  doc.registerFont('serif', `${DEJAVU}/DejaVuSerif.ttf`);
  doc.registerFont('serif-bold', `${DEJAVU}/DejaVuSerif-Bold.ttf`);
  doc.registerFont('serif-italic', `${DEJAVU}/DejaVuSerif-Italic.ttf`);
  doc.registerFont('mono', `${DEJAVU}/DejaVuSansMono.ttf`);
  const left = 72;
  const right = 595.28 - 72;
  const rule = (at: number, width: number) =>
    doc
      .moveTo(left, at)
      .lineTo(left + 400, at)
      .lineWidth(width)
      .stroke();
  const lines: string[] = [];
  let y = 80;
  for (const part of PAGE) {
    if (part.kind === 'heading') {
      doc.font('serif-bold').fontSize(14).text(part.text, left, y, { lineBreak: false });
      y += 28;
    } else if (part.kind === 'prose') {
      doc.font('serif').fontSize(10).text(part.text, left, y, { lineBreak: false });
      y += 15;
    } else if (part.kind === 'formula') {
      y += 5;
      doc.font('serif-italic').fontSize(11);
      doc.text(part.text, (left + right) / 2 - doc.widthOfString(part.text) / 2, y, { lineBreak: false });
      doc.font('serif').text(part.number, right - doc.widthOfString(part.number), y, { lineBreak: false });
      y += 22;
    } else if (part.kind === 'code') {
      doc
        .font('mono')
        .fontSize(9)
        .text(part.text, left + 18, y, { lineBreak: false });
      y += 13;
    } else {
      y += 8;
      const widths = [120, 60, 60, 50, 70, 40];
      rule(y, 0.8);
      y += 6;
      for (const [r, row] of part.rows.entries()) {
        let x = left + 4;
        doc.font(r === 0 ? 'serif-bold' : 'serif').fontSize(10);
        for (const [c, cell] of row.entries()) {
          doc.text(cell, x, y, { lineBreak: false });
          x += widths[c] ?? 60;
        }
        y += 16;
        if (r === 0) {
          rule(y - 3, 0.4);
          y += 3;
        }
      }
      rule(y, 0.8);
      y += 16;
    }
    if (part.kind === 'table') lines.push(...part.rows.map((row) => row.join(' ')));
    else lines.push(part.kind === 'formula' ? `${part.text} ${part.number}` : part.text);
  }
  return { pdf: await finish(doc), text: lines.join('\n') };
}
