import { contentWords } from './words.js';

export interface CitableSource {
  label: string;
  chunk_id: string;
  page_numbers: number[];
  text: string;
}

export interface Citation {
  label: string;
  chunk_id: string;
  page_numbers: number[];
}

export interface CitationCheck {
  citations: Citation[];
  /** What the answer cited that was not retrieved (a label out of range, an invented chunk id). */
  dropped: string[];
}

const cite = (s: CitableSource): Citation => ({ label: s.label, chunk_id: s.chunk_id, page_numbers: s.page_numbers });

/**
 * The sources an answer cites in square brackets, by label ([S2], [S1, S3]) or by chunk id. Only what
 * was retrieved for this answer counts: anything else is dropped, so a citation always points at a
 * chunk the reader can open.
 */
export function checkCitations(answer: string, sources: CitableSource[]): CitationCheck {
  const byKey = new Map<string, CitableSource>();
  for (const s of sources) {
    byKey.set(s.label.toLowerCase(), s);
    byKey.set(s.chunk_id.toLowerCase(), s);
  }
  const cited = new Map<string, Citation>();
  const dropped: string[] = [];
  for (const [, inside] of answer.matchAll(/\[([^\]\n]{1,200})\]/g)) {
    for (const ref of inside!.split(/[,;]\s*|\s+and\s+|\s+/)) {
      const key = ref.trim().replace(/^(source|chunk)\s*/i, '');
      if (!key) continue;
      const s = byKey.get(key.toLowerCase());
      if (s) cited.set(s.chunk_id, cite(s));
      else if (!dropped.includes(key)) dropped.push(key);
    }
  }
  return { citations: [...cited.values()], dropped };
}

/**
 * For an answer that cites nothing itself (small models often do not), the sources it was evidently
 * written from: at least two of the answer's content words and a third of them found in the source.
 * Best first; none when the answer shares too little with every source.
 */
export function attributeByOverlap(answer: string, sources: CitableSource[]): Citation[] {
  const words = [...new Set(contentWords(answer))];
  if (words.length === 0) return [];
  const scored = sources
    .map((s) => {
      const have = new Set(contentWords(s.text));
      const shared = words.filter((w) => have.has(w)).length;
      return { s, shared, share: shared / words.length };
    })
    .filter((x) => x.shared >= 2 && x.share >= 1 / 3)
    .sort((a, b) => b.shared - a.shared);
  return scored.map((x) => cite(x.s));
}
