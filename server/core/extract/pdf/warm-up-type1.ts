/**
 * A small Type 1 font program written here for the warm-up PDF. TeX output (most papers and manuals) embeds
 * its fonts as Type 1 programs, which pdf.js decrypts, parses and converts to CFF on every new document: code
 * that a thread warmed only on standard fonts runs cold on its first real documents (`npm run bench:extract`
 * shows a document's first reading against its warm ones). The glyphs are plain shapes (a box and a curve
 * each): only the font machinery has to run, not look right.
 */

/** Glyph names of the printable ASCII range in StandardEncoding (32..126), plus those WinAnsi adds that we use. */
const ASCII_NAMES = (
  'space exclam quotedbl numbersign dollar percent ampersand quoteright parenleft parenright asterisk plus comma ' +
  'hyphen period slash zero one two three four five six seven eight nine colon semicolon less equal greater ' +
  'question at A B C D E F G H I J K L M N O P Q R S T U V W X Y Z bracketleft backslash bracketright ' +
  'asciicircum underscore quoteleft a b c d e f g h i j k l m n o p q r s t u v w x y z braceleft bar ' +
  'braceright asciitilde'
).split(' ');
const GLYPHS = ['.notdef', ...ASCII_NAMES, 'quotesingle', 'grave', 'bullet'];

/** The glyph a WinAnsi code selects, as far as this font has it (39 and 96 differ from StandardEncoding). */
function winAnsiGlyph(code: number): string {
  if (code === 39) return 'quotesingle';
  if (code === 96) return 'grave';
  if (code === 149) return 'bullet';
  return ASCII_NAMES[code - 32] ?? '.notdef';
}

/** Widths of WinAnsi codes `first`..`last`, for the font dictionary's /Widths. */
export function winAnsiWidths(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => glyphWidth(winAnsiGlyph(first + i)));
}

/** Advance width of a glyph, varied like a book face (a uniform width would read as a typewriter font). */
function glyphWidth(name: string): number {
  if (name === 'space') return 250;
  if (/^(?:[ijl]|period|comma|colon|semicolon|exclam|quote\w*|bar)$/.test(name)) return 278;
  if (/^(?:[frtI]|paren\w+|bracket\w+|hyphen|slash)$/.test(name)) return 333;
  if (/^[mw]$/.test(name)) return 722;
  if (/^[MW]$/.test(name)) return 889;
  if (/^[A-Z]$/.test(name)) return 667;
  return 500;
}

/** A Type 1 charstring number (Adobe Type 1 Font Format, 6.2). */
function num(v: number): number[] {
  if (v >= -107 && v <= 107) return [v + 139];
  if (v >= 108 && v <= 1131) return [((v - 108) >> 8) + 247, (v - 108) & 0xff];
  if (v >= -1131 && v <= -108) return [((-v - 108) >> 8) + 251, (-v - 108) & 0xff];
  return [255, (v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];
}

const HSBW = 13;
const RMOVETO = 21;
const RLINETO = 5;
const RRCURVETO = 8;
const CLOSEPATH = 9;
const ENDCHAR = 14;

function glyphProgram(name: string, index: number): number[] {
  const w = glyphWidth(name);
  if (name === 'space' || name === '.notdef') return [...num(0), ...num(w), HSBW, ENDCHAR];
  const h = 400 + (index % 7) * 40;
  const inner = w - 80;
  return [
    ...[0, w].flatMap(num),
    HSBW,
    ...[40, 0].flatMap(num),
    RMOVETO,
    ...[inner, 0].flatMap(num),
    RLINETO,
    ...[0, h].flatMap(num),
    RLINETO,
    ...[-inner / 4, 60, -inner / 2, 60, -(inner - inner / 4 - inner / 2), -60].map(Math.round).flatMap(num),
    RRCURVETO,
    CLOSEPATH,
    ENDCHAR,
  ];
}

/** Type 1 encryption (eexec with r = 55665, charstrings with r = 4330), after `lenIV` zero bytes. */
function encrypt(plain: ArrayLike<number>, key: number, lenIV = 4): Uint8Array {
  const out = new Uint8Array(lenIV + plain.length);
  let r = key;
  for (let i = 0; i < out.length; i++) {
    const c = (i < lenIV ? 0 : (plain[i - lenIV] as number)) ^ (r >> 8);
    out[i] = c;
    r = ((c + r) * 52845 + 22719) & 0xffff;
  }
  return out;
}

export interface Type1Program {
  /** The three parts as a PDF FontFile stream holds them: clear text, eexec-encrypted, trailer. */
  bytes: Uint8Array;
  length1: number;
  length2: number;
  length3: number;
}

export function type1Program(fontName: string): Type1Program {
  const latin1 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
  const clear = latin1(
    `%!PS-AdobeFont-1.0: ${fontName} 001.000\n` +
      `12 dict begin\n/FontInfo 2 dict dup begin /FullName (${fontName}) readonly def /Weight (Medium) readonly def end readonly def\n` +
      `/FontName /${fontName} def\n/Encoding StandardEncoding def\n/PaintType 0 def\n/FontType 1 def\n` +
      `/FontMatrix [0.001 0 0 0.001 0 0] readonly def\n/FontBBox {0 -200 1000 900} readonly def\n` +
      `currentdict end\ncurrentfile eexec\n`,
  );
  const parts: Uint8Array[] = [
    latin1(
      'dup /Private 9 dict dup begin\n/RD {string currentfile exch readstring pop} executeonly def\n' +
        '/ND {noaccess def} executeonly def\n/NP {noaccess put} executeonly def\n/BlueValues [-20 0 680 700] def\n' +
        `/MinFeature {16 16} def\n/password 5839 def\n/lenIV 4 def\n/Subrs 0 array\n2 index /CharStrings ${GLYPHS.length} dict dup begin\n`,
    ),
  ];
  GLYPHS.forEach((name, i) => {
    const cs = encrypt(glyphProgram(name, i), 4330);
    parts.push(latin1(`/${name} ${cs.length} RD `), cs, latin1(' ND\n'));
  });
  parts.push(
    latin1('end\nend\nreadonly put\nnoaccess put\ndup /FontName get exch definefont pop\nmark currentfile closefile\n'),
  );
  const secret = encrypt(Buffer.concat(parts), 55665);
  const trailer = latin1(`${'0'.repeat(64)}\n`.repeat(8) + 'cleartomark\n');
  return {
    bytes: Buffer.concat([clear, secret, trailer]),
    length1: clear.length,
    length2: secret.length,
    length3: trailer.length,
  };
}
