import type { MultilingualOffer } from '../../../server/models/language-offer.js';
import type { AppContext } from '../app-context.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';
import { startPull } from '../models/pull-store.js';
import { pullView } from '../models/pull-view.js';

/** Set once the reviewer declined the offer: it is not made again unasked, in this browser. */
const DISMISSED_SLOT = 'lectern.multilingual-offer-dismissed';

export const offerDismissed = (): boolean => localStorage.getItem(DISMISSED_SLOT) === 'yes';

/**
 * The offer of a multilingual embedding model, above Embed, for a document in another language than English
 * that an English-only model would embed: Use it (installed), or Download it here with its progress; or
 * "Don't suggest this again", remembered. `use` selects the model for the embed.
 */
export function languageOfferView(
  ctx: AppContext,
  offer: MultilingualOffer,
  use: (modelId: string) => Promise<void>,
): HTMLElement {
  const { language, current, model } = offer;
  const status = h('span', { class: 'muted language-offer-status', 'aria-live': 'polite' });
  const box = h(
    'div',
    { class: 'language-offer', role: 'note', 'data-language': language.code, 'data-model': model.id },
    h(
      'p',
      {},
      `This document is in ${language.name}. ${current.name} reads English only, so a search of it would find little; `,
      h('strong', {}, model.name),
      ` reads ${language.name} and about a hundred other languages.`,
    ),
  );
  const actions = h('div', { class: 'language-offer-actions' });
  const dismiss = h('button', { type: 'button', class: 'dismiss-offer' }, 'Don’t suggest this again');
  dismiss.addEventListener('click', () => {
    localStorage.setItem(DISMISSED_SLOT, 'yes');
    box.remove();
  });
  const chosen = async (): Promise<void> => {
    await use(model.id);
    box.replaceChildren(h('p', {}, `Embed will use ${model.name}.`));
  };

  if (model.installed) {
    const useIt = h('button', { type: 'button', class: 'primary use-multilingual' }, `Use ${model.name}`);
    useIt.addEventListener('click', () => void chosen());
    actions.append(useIt);
  } else if (ctx.caps.modelPull) {
    const get = h('button', { type: 'button', class: 'primary get-multilingual' }, `Download ${model.name}`);
    get.addEventListener('click', async () => {
      get.hidden = true;
      status.textContent = '';
      const pull = startPull(ctx.api, model.id);
      const view = pullView(ctx.api, pull);
      actions.before(view.element);
      try {
        await pull.done;
        await chosen();
      } catch (err) {
        // A break or a cancel keeps what arrived: the same button resumes from there.
        status.textContent = errorText(err);
        get.textContent = 'Resume';
        get.hidden = false;
      } finally {
        view.element.remove();
        view.dispose();
      }
    });
    actions.append(get);
  } else {
    actions.append(
      h(
        'span',
        { class: 'muted' },
        'Install it from the ',
        h('a', { href: '#/models' }, 'Models'),
        ` screen, or with lectern models pull ${model.id}.`,
      ),
    );
  }
  actions.append(' ', dismiss, ' ', status);
  box.append(actions);
  return box;
}
