import { makeScan } from '../helpers/make-scan.js';
import { onePagePdf } from '../helpers/make-pdf.js';

/** The documents of the upgrade fixture, written by make-fixture.ts and, for the checks after reading, by the test. */

/** A job of the jobs API: headings, paragraphs, a nested list and a code block, cut into small chunks. */
export const FIELD_GUIDE_MD =
  [
    '# Field guide',
    'This guide collects short notes on five unrelated subjects, one section each.',
    '## Volcanoes',
    'Magma rises through the crust and erupts as lava, ash and volcanic gas. Basaltic eruptions are effusive; andesitic ones explode.',
    '## Baking bread',
    '- Mix flour, water, salt and yeast.\n- Knead the dough until it is smooth.\n  - Fold it twice while it rises.\n- Bake it in a hot oven until the crust is brown.',
    '## Chess openings',
    "The Sicilian Defence answers the king pawn with the c-pawn; the Queen's Gambit offers a pawn for control of the centre.",
    '## Photosynthesis',
    'Chlorophyll in the leaves captures sunlight to turn carbon dioxide and water into glucose, releasing oxygen.',
    '```python\ndef oxygen(glucose):\n    return 6 * glucose\n```',
    '## Tax returns',
    'File the annual income statement before the deadline; deductions for pensions and charity lower the taxable income.',
  ].join('\n\n') + '\n';

/** A job left in review. */
export const DRAFT_NOTES_MD =
  '# Draft notes\n\nLighthouses guided ships along rocky coasts with rotating lenses.\n\nTides follow the moon; spring tides come with the full and new moon.\n';

/** The bot's document, added by path. */
export const PUMP_MANUAL_MD =
  [
    '# Pump manual',
    '## Priming',
    'Fill the pump casing with water through the priming plug before starting the motor.',
    '## Maintenance',
    'Replace the impeller seal every two thousand hours of running, and check the bearings for noise.',
    '## Troubleshooting',
    'If the pump runs but delivers no water, the suction line has an air leak or the casing was not primed.',
  ].join('\n\n') + '\n';

/** What the vision chat's image shows: a rating plate, scanned. */
export async function ratingPlatePng(): Promise<Buffer> {
  const pdf = await onePagePdf((doc) => {
    doc.font('Helvetica-Bold').fontSize(28);
    ['PUMP RATING PLATE', 'Model PX-200', 'Maximum head 40 metres', 'Seal kit S-17'].forEach((line, i) =>
      doc.text(line, 72, 90 + i * 48, { lineBreak: false }),
    );
  });
  return (await makeScan(pdf, 1, { dpi: 100 })).png;
}
