/**
 * Font styles (bold, monospace, math) per pdf.js font id.
 *
 * pdf.js's text content names fonts by an internal id ("g_d0_f7"); the real PostScript name
 * ("XHWNIA+CMBX12") comes with the text layer's styles in the patched pdf.js Lectern runs, else from
 * page.commonObjs once a page's operator list has been built. Each font is classified once, by name. Fonts without a usable name (Type 3 bitmap fonts from dvips,
 * anonymous "F1" fonts) fall back to a width test: every glyph of a monospace font has one advance.
 */

export interface FontStyle {
  bold: boolean;
  mono: boolean;
  math: boolean;
}

const PLAIN: FontStyle = { bold: false, mono: false, math: false };

// Typewriter families: Latin Modern / Computer Modern / EC / tx / px / psnfss Courier and common
// system monospace faces.
const MONO_RE =
  /mono|courier|typewriter|consol|menlo|inconsolata|cousine|fixedsys|sourcecode|firacode|andale|lettergothic|^(?:cmtt|lmtt|sftt|ectt|tctt|txtt|pxtt|ntxtt|pcr[a-z]?\d|ucr|zi4|beramono)/i;
// TeX math fonts, AMS symbol fonts and the usual OpenType math faces. Plain "Symbol" is left out:
// word processors set bullets and the odd Greek letter in it, which is not an equation.
const MATH_RE =
  /math|^(?:cmmi|cmsy|cmex|cmbsy|cmmib|msbm|msam|eufm|eufb|eusm|eusb|eurm|rsfs|lasy|wasy|stmary|esint|txsy|txmi|txex|pxsy|pxmi|pxex|ntxmi|ntxsy|ntxex|mnsymbol|bbold|dsrom|stix|xits)/i;
// Bold faces by name: generic weight words, and the TeX short names (cmbx, sfbx = bold extended,
// sfsx/ecsx = sans bold, psnfss "ptmb8r"-style names, URW's "-Medi").
const BOLD_RE =
  /bold|black|heavy|semibold|demi|-medi$|^(?:cmbx|cmb\d|cmssbx|cmbsy|cmmib|sfbx|sfsx|sfrb|sfxc|ecbx|ecsx|ecrb|tcbx|lmbx)|^p[a-z]{2}b\d/i;

/** Names that say nothing about the face: width statistics decide instead. */
const GENERIC_RE = /^(?:type ?3|t3|f\d+|font\d*|r\d+|[a-z]{0,2}\d*)$/i;

/** Drops the subset tag ("ABCDEF+") and style suffix separators so the regexes see the family. */
export function baseFontName(name: string): string {
  return name.replace(/^[A-Z]{6}\+/, '').trim();
}

export function classifyFontName(rawName: string): FontStyle {
  const name = baseFontName(rawName);
  return {
    bold: BOLD_RE.test(name),
    mono: MONO_RE.test(name),
    math: MATH_RE.test(name),
  };
}

interface WidthStats {
  n: number;
  sum: number;
  sumSq: number;
}

export class FontRegistry {
  private readonly named = new Map<string, FontStyle>();
  private readonly generic = new Set<string>();
  private readonly widths = new Map<string, WidthStats>();

  /** True once the font's name has been read (or found to be unavailable). */
  isResolved(id: string): boolean {
    return this.named.has(id) || this.generic.has(id);
  }

  /** Records a font from the object pdf.js put into commonObjs (a FontFaceObject, or an error). */
  resolve(id: string, fontObject: unknown): void {
    const obj = fontObject as { name?: unknown; bold?: unknown; black?: unknown } | null;
    const name = typeof obj?.name === 'string' ? obj.name : '';
    if (!name || GENERIC_RE.test(baseFontName(name))) {
      this.generic.add(id);
      return;
    }
    const style = classifyFontName(name);
    // pdf.js derives bold/black from the name and the descriptor's ForceBold flag as well.
    if (obj?.bold === true || obj?.black === true) style.bold = true;
    this.named.set(id, style);
  }

  /** Marks a font whose name could not be read (treated like a generic name). */
  markUnknown(id: string): void {
    if (!this.named.has(id)) this.generic.add(id);
  }

  /**
   * Feeds the width test: advance per character relative to the font size. Only strings of 4+
   * characters count, so that a single wide or narrow glyph cannot decide it.
   */
  noteWidth(id: string, text: string, width: number, size: number): void {
    if (this.named.has(id) || text.length < 4 || size <= 0 || width <= 0) return;
    const ratio = width / (text.length * size);
    const s = this.widths.get(id) ?? { n: 0, sum: 0, sumSq: 0 };
    s.n++;
    s.sum += ratio;
    s.sumSq += ratio * ratio;
    this.widths.set(id, s);
  }

  style(id: string): FontStyle {
    const named = this.named.get(id);
    if (named) return named;
    const s = this.widths.get(id);
    if (s && s.n >= 3) {
      const mean = s.sum / s.n;
      const variance = Math.max(0, s.sumSq / s.n - mean * mean);
      // Monospace: every string has the same advance per character (cv under 1 %; proportional text
      // set in long lines averages out to 2.9-3.8 % on the fixtures), and that advance is a plausible
      // typewriter width (0.5-0.65 em).
      if (mean > 0.4 && mean < 0.7 && Math.sqrt(variance) / mean < 0.01) return { ...PLAIN, mono: true };
    }
    return PLAIN;
  }
}
