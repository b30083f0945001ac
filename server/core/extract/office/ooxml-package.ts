/**
 * An OOXML package (XLSX, PPTX) opened for streaming reads: every member is measured first by the DOCX
 * path's zip guard (flow/zip-guard.ts), so a bomb fails with DECOMPRESSED_TOO_LARGE before anything is
 * parsed; then parts are inflated one at a time (at most `maxDecompressedPartBytes` each, outside the V8
 * heap) and fed to an XML tokenizer in slices, so no part is ever held as one string or as a DOM.
 */
import { Parser } from 'htmlparser2';
import { readCentralDirectory, readEntry } from '../flow/docx-zip.js';
import { checkZipInflation, type HeldXml } from '../flow/zip-guard.js';
import type { DocumentLimits } from '../limits.js';

/** A package that cannot be read as the format it was sniffed as; `code` is e.g. XLSX_INVALID. */
export function packageError(code: string, message: string): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

/** Elements by local name (prefixes vary between writers: `x:c` and `c` are the same cell). */
export interface XmlHandler {
  open?(name: string, attrs: Record<string, string>): void;
  text?(text: string): void;
  close?(name: string): void;
}

export const localName = (name: string): string => name.slice(name.indexOf(':') + 1);

/** An attribute by local name (`r:id`, whatever the prefix). */
export function attr(attrs: Record<string, string>, local: string): string | undefined {
  if (attrs[local] !== undefined) return attrs[local];
  for (const [k, v] of Object.entries(attrs)) if (localName(k) === local) return v;
  return undefined;
}

/** The relationship id an element points with (`r:id`): a prefixed `id`, as a plain `id` is the element's own (`<p:sldId id="256" r:id="rId2">`). */
export function relId(attrs: Record<string, string>): string {
  for (const [k, v] of Object.entries(attrs)) if (k.includes(':') && localName(k) === 'id') return v;
  return '';
}

export interface Relationship {
  type: string;
  /** The target as a part name (no leading slash), or the raw target of an external one. */
  target: string;
  external: boolean;
}

/** Bytes of XML handed to the tokenizer at a time. */
const SLICE = 1024 * 1024;

type Entries = NonNullable<ReturnType<typeof readCentralDirectory>>;

export class OoxmlPackage {
  private constructor(
    private readonly data: Uint8Array,
    private readonly entries: Entries,
    private readonly maxPartBytes: number,
    private readonly code: string,
  ) {}

  /** `held`: the parts the reader keeps whole in memory, for the heap check before any is read. */
  static async open(
    data: Uint8Array,
    limits: DocumentLimits,
    code: string,
    what: string,
    held: HeldXml,
  ): Promise<OoxmlPackage> {
    await checkZipInflation(data, limits, held);
    const entries = readCentralDirectory(data);
    if (!entries)
      throw packageError(
        code,
        `Not a readable ${what} file: its ZIP directory cannot be read (or it is a ZIP64 archive)`,
      );
    return new OoxmlPackage(data, entries, limits.maxDecompressedPartBytes, code);
  }

  has(name: string): boolean {
    return this.entries.some((e) => e.name === name);
  }

  /** Streams a part through the XML tokenizer; false when the part is missing. */
  parse(name: string, handler: XmlHandler): boolean {
    if (!this.has(name)) return false;
    const bytes = readEntry(this.data, this.entries, name, this.maxPartBytes);
    if (!bytes)
      throw packageError(
        this.code,
        `the part ${name} cannot be read (encrypted, or compressed in a way ZIP readers do not know)`,
      );
    const parser = new Parser(
      {
        onopentag: (tag, attrs) => handler.open?.(localName(tag), attrs),
        ontext: (text) => handler.text?.(text),
        onclosetag: (tag) => handler.close?.(localName(tag)),
      },
      { xmlMode: true, decodeEntities: true },
    );
    const utf16 = bytes[0] === 0xff && bytes[1] === 0xfe;
    const decoder = new TextDecoder(utf16 ? 'utf-16le' : 'utf-8');
    for (let at = 0; at < bytes.length; at += SLICE)
      parser.write(decoder.decode(bytes.subarray(at, at + SLICE), { stream: true }));
    parser.end(decoder.decode());
    return true;
  }

  /** The relationships of a part (`xl/workbook.xml` -> `xl/_rels/workbook.xml.rels`), by id. */
  relationships(partName: string): Map<string, Relationship> {
    const slash = partName.lastIndexOf('/');
    const dir = partName.slice(0, slash + 1);
    const relsName = `${dir}_rels/${partName.slice(slash + 1)}.rels`;
    const rels = new Map<string, Relationship>();
    this.parse(relsName, {
      open(name, attrs) {
        if (name !== 'Relationship' || !attrs.Id || attrs.Target === undefined) return;
        const external = attrs.TargetMode === 'External';
        rels.set(attrs.Id, {
          type: attrs.Type ?? '',
          target: external ? attrs.Target : resolvePart(dir, attrs.Target),
          external,
        });
      },
    });
    return rels;
  }

  /** The part the package's root relationship of this type (ends with `/officeDocument`, say) points to. */
  rootPart(typeSuffix: string): string | undefined {
    for (const rel of this.relationships('').values())
      if (!rel.external && rel.type.endsWith(typeSuffix)) return rel.target;
    return undefined;
  }

  /** The document's title from docProps/core.xml (`dc:title`), when it has one. */
  title(): string | undefined {
    let inTitle = false;
    let title = '';
    this.parse('docProps/core.xml', {
      open: (name) => void (inTitle = name === 'title'),
      text: (t) => void (inTitle && (title += t)),
      close: () => void (inTitle = false),
    });
    return title.trim() || undefined;
  }
}

/** A relationship target resolved against the folder of its source part: `../media/x.png`, `/ppt/slides/s.xml`. */
function resolvePart(dir: string, target: string): string {
  const path = target.startsWith('/') ? target.slice(1) : dir + target;
  const out: string[] = [];
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // a malformed escape: the name as written
  }
  for (const seg of decoded.split('/')) {
    if (seg === '..') out.pop();
    else if (seg !== '.' && seg !== '') out.push(seg);
  }
  return out.join('/');
}
