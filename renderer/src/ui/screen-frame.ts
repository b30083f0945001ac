import { type Child, h } from './dom.js';

/**
 * A screen's frame: a section named by its title for screen readers, its toolbar led by the same title as
 * the page heading, then the body. `toolbarClass` is added to the toolbar's own class.
 */
export function screenFrame(
  o: { class: string; title: string; toolbarClass?: string },
  tools: Child[],
  ...body: Child[]
): HTMLElement {
  return h(
    'section',
    { class: o.class, 'aria-label': o.title },
    h('div', { class: o.toolbarClass ? `toolbar ${o.toolbarClass}` : 'toolbar' }, h('h1', {}, o.title), ...tools),
    ...body,
  );
}
