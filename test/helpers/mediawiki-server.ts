/**
 * A MediaWiki API on loopback (`/w/api.php`) answering the three query forms the encyclopedia reader
 * sends, with formatversion-1 JSON as Wikipedia gives it: full-text search with `sroffset` continuation,
 * page info with redirects, missing and disambiguation pages, and TextExtracts plain-text extracts, one of
 * them delivered in parts with `excontinue`. Any other request is answered with a MediaWiki API error.
 */
import { listenOnLoopback } from './loopback-server.js';

interface WikiPage {
  pageid: number;
  title: string;
  revid: number;
  extract: string;
  disambiguation?: boolean;
}

const sentence = (topic: string, n: number): string =>
  `Sentence ${n} about ${topic} explains one more detail of how thermal energy moves through matter and space.`;

/** A long article: 3 sections of 20 lines, about 10,000 characters (Long-Trainer cut at 4,000). */
function longExtract(): string {
  const lines: string[] = [
    'Thermal conduction is the diffusion of thermal energy within one material or between materials in contact.',
  ];
  for (const [i, section] of ["Fourier's law", 'Conductivity of solids', 'Measurement'].entries()) {
    lines.push('', '', `== ${section} ==`);
    for (let n = 0; n < 20; n++) lines.push(`${sentence(section, n)} ${'Detail. '.repeat(5 + i)}`.trim());
  }
  return lines.join('\n');
}

/** Article texts as TextExtracts' `explaintext` writes them (`== Heading ==` lines, blank lines around). */
export const WIKI_PAGES: readonly WikiPage[] = [
  {
    pageid: 101,
    title: 'Heat transfer',
    revid: 9001,
    extract: [
      'Heat transfer is a discipline of thermal engineering.',
      'It concerns *generation*, use, conversion and exchange of thermal energy between physical systems.',
      '',
      '',
      '== Mechanisms ==',
      'The fundamental modes are conduction, convection and radiation.',
      '1. Conduction is the first mode; <b> is not a tag here & neither is &amp;.',
      '',
      '',
      '=== Radiation ===',
      '# Not a heading: a hash at the start of a line.',
      '',
      '',
      '== See also ==',
      '',
      '',
      '== References ==',
    ].join('\n'),
  },
  { pageid: 102, title: 'Heat (disambiguation)', revid: 9002, extract: 'Heat may refer to:', disambiguation: true },
  { pageid: 103, title: 'Thermal conduction', revid: 9003, extract: longExtract() },
  {
    pageid: 104,
    title: 'Convection',
    revid: 9004,
    extract:
      'Convection is heat transfer by the movement of fluids.\n\n\n== Natural convection ==\nBuoyancy drives it.',
  },
];
/** Redirects: title -> target title. */
const REDIRECTS: Record<string, string> = { Conduction: 'Thermal conduction' };
/** Search hits in rank order; `Lost page` does not exist (the index is stale). */
export const SEARCH_HITS = [
  'Heat (disambiguation)',
  'Lost page',
  'Conduction',
  'Heat transfer',
  'Thermal conduction',
  'Convection',
];
/** The server answers at most this many hits per request, whatever `srlimit` asks. */
export const HITS_PER_REQUEST = 2;
/** The long article is sent in this many parts. */
export const LONG_PARTS = 3;

export interface MediaWikiServer {
  /** The API endpoint, `…/w/api.php`. */
  apiUrl: string;
  /** Query strings of every request, parsed. */
  requests: URLSearchParams[];
  close(): Promise<void>;
}

type Answer = Record<string, unknown>;

const apiError = (code: string, info: string): Answer => ({ error: { code, info } });
const byTitle = (title: string): WikiPage | undefined => WIKI_PAGES.find((p) => p.title === title);

function search(q: URLSearchParams): Answer {
  const term = q.get('srsearch') ?? '';
  if (term === 'api-failure')
    return apiError('internal_api_error_DBQueryError', 'A database query error has occurred.');
  const hits = /heat|conduction/i.test(term) ? SEARCH_HITS : [];
  // A broken wiki: the same two skipped hits and a `continue`, whatever the offset.
  if (term === 'stuck')
    return {
      continue: { sroffset: 2, continue: '-||' },
      query: { search: SEARCH_HITS.slice(0, 2).map((title) => ({ ns: 0, title })) },
    };
  const offset = Number(q.get('sroffset') ?? 0);
  const size = Math.min(Number(q.get('srlimit') ?? 10), HITS_PER_REQUEST);
  const page = hits.slice(offset, offset + size);
  const more = offset + size < hits.length;
  return {
    batchcomplete: '',
    ...(more ? { continue: { sroffset: offset + size, continue: '-||' } } : {}),
    query: { searchinfo: { totalhits: hits.length }, search: page.map((title) => ({ ns: 0, title })) },
  };
}

function info(q: URLSearchParams): Answer {
  if (q.get('inprop') !== 'url' || q.get('ppprop') !== 'disambiguation' || !q.has('redirects'))
    return apiError('badparams', 'unexpected info query');
  const asked = q.get('titles') ?? '';
  const target = REDIRECTS[asked];
  const page = byTitle(target ?? asked);
  const redirects = target ? { redirects: [{ from: asked, to: target }] } : {};
  if (!page)
    return { batchcomplete: '', query: { ...redirects, pages: { '-1': { ns: 0, title: asked, missing: '' } } } };
  return {
    batchcomplete: '',
    query: {
      ...redirects,
      pages: {
        [page.pageid]: {
          pageid: page.pageid,
          ns: 0,
          title: page.title,
          contentmodel: 'wikitext',
          pagelanguage: 'en',
          lastrevid: page.revid,
          fullurl: `https://wiki.example/wiki/${encodeURIComponent(page.title.replace(/ /g, '_'))}`,
          ...(page.disambiguation ? { pageprops: { disambiguation: '' } } : {}),
        },
      },
    },
  };
}

function extracts(q: URLSearchParams): Answer {
  if (q.get('rvprop') !== 'ids' || !q.has('explaintext')) return apiError('badparams', 'unexpected extracts query');
  const page = byTitle(q.get('titles') ?? '');
  if (!page) return { batchcomplete: '', query: { pages: { '-1': { ns: 0, title: q.get('titles'), missing: '' } } } };
  const base = { pageid: page.pageid, ns: 0, title: page.title };
  if (page.pageid !== 103)
    return {
      batchcomplete: '',
      query: {
        pages: {
          [page.pageid]: {
            ...base,
            revisions: [{ revid: page.revid, parentid: page.revid - 1 }],
            extract: page.extract,
          },
        },
      },
    };
  // The long article in parts, cut mid-line as a size limit would cut it; revisions come with the first.
  const part = Number(q.get('excontinue') ?? 0);
  const size = Math.ceil(page.extract.length / LONG_PARTS);
  const text = page.extract.slice(part * size, (part + 1) * size);
  const revisions = part === 0 ? { revisions: [{ revid: page.revid, parentid: page.revid - 1 }] } : {};
  return {
    ...(part + 1 < LONG_PARTS
      ? { continue: { excontinue: part + 1, continue: '||revisions' } }
      : { batchcomplete: '' }),
    query: { pages: { [page.pageid]: { ...base, ...revisions, extract: text } } },
  };
}

export async function startMediaWikiServer(): Promise<MediaWikiServer> {
  const requests: URLSearchParams[] = [];
  const server = await listenOnLoopback(
    (req, res) => {
      const url = new URL(req.url ?? '/', 'http://loopback');
      if (url.pathname !== '/w/api.php') return void res.writeHead(404).end();
      const q = url.searchParams;
      requests.push(q);
      let answer: Answer;
      if (q.get('action') !== 'query' || q.get('format') !== 'json')
        answer = apiError('badparams', 'action=query&format=json expected');
      else if (q.get('list') === 'search') answer = search(q);
      else if (q.get('prop') === 'info|pageprops') answer = info(q);
      else if (q.get('prop') === 'extracts|revisions') answer = extracts(q);
      else answer = apiError('badparams', 'unknown query');
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(answer));
    },
    async () => undefined,
  );
  return { apiUrl: `${server.url}/w/api.php`, requests, close: () => server.close() };
}
