import { h } from '../ui/dom.js';
import { bytes } from '../ui/format.js';
import type { Model, ModelListing } from './models-screen.js';

const FIT_TEXT: Record<Model['fits'], string> = { comfortably: 'fits', tight: 'tight', no: 'too large' };
const FIT_TITLE: Record<Model['fits'], string> = {
  comfortably: 'Needs at most three quarters of the memory free now',
  tight: 'Fits this machine, but not the memory free now: other programs would have to give some back',
  no: 'Needs more memory than this machine has',
};

/** The memory cell of a row: what the model needs, and whether that fits this machine. */
export function memoryCell(m: Model): HTMLElement {
  return h(
    'td',
    { class: 'num model-memory' },
    bytes(m.memory_bytes),
    ' ',
    h('span', { class: `badge fit fit-${m.fits}`, title: FIT_TITLE[m.fits] }, FIT_TEXT[m.fits]),
  );
}

/** The line above the list: this machine's memory and the chat model suggested for it. */
export function machineLine(list: ModelListing): HTMLElement {
  const suggested = list.models.find((m) => m.id === list.suggested_chat_model);
  return h(
    'p',
    { class: 'machine-fit' },
    `This machine has ${bytes(list.memory.free_bytes)} free of ${bytes(list.memory.total_bytes)}. `,
    suggested
      ? h('span', { class: 'suggestion' }, 'Suggested chat model: ', h('strong', {}, suggested.name), '.')
      : h('span', { class: 'suggestion' }, 'No chat model fits comfortably in the memory free now.'),
  );
}
