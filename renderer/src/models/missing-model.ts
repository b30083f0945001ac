import type { AppContext } from '../app-context.js';
import { ApiError } from '../api/client.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';
import { startPull } from './pull-store.js';
import { pullView } from './pull-view.js';

/** The model an answer says is missing (MODEL_NOT_INSTALLED names it in `details.id`), if that is the failure. */
function missingModelId(err: unknown): string | undefined {
  if (!(err instanceof ApiError) || err.code !== 'MODEL_NOT_INSTALLED') return undefined;
  const id = (err.details as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * What the desk offers where an action failed for want of a model: "Get the model" downloads it here with
 * its progress (Cancel, and Resume after a break), then runs the action again. Null for other failures, so
 * a caller writes `missingModelOffer(ctx, err, retry) ?? errorText(err)`. Where the server cannot pull,
 * the Models screen (import of a local file) is the way offered.
 */
export function missingModelOffer(ctx: AppContext, err: unknown, retry: () => unknown): HTMLElement | null {
  const id = missingModelId(err);
  if (!id) return null;
  const status = h('span', { class: 'muted' });
  const box = h(
    'div',
    { class: 'missing-model', 'data-model': id },
    h('p', {}, `The model ${id} is not installed on the server.`),
  );
  const link = h('a', { href: '#/models' }, 'Models');
  if (!ctx.caps.modelPull) {
    box.append(h('p', {}, 'Install it from the ', link, ' screen, or with `lectern models pull ', id, '`.'));
    return box;
  }
  const get = h('button', { type: 'button', class: 'primary get-model' }, 'Get the model');
  const run = async (): Promise<void> => {
    get.hidden = true;
    status.textContent = '';
    const pull = startPull(ctx.api, id);
    const view = pullView(ctx.api, pull);
    actions.before(view.element);
    try {
      await pull.done;
      view.element.remove();
      status.textContent = `${id} is installed; trying again…`;
      await retry();
      box.remove();
    } catch (e) {
      view.element.remove();
      // A break or a cancel keeps what arrived: the same button resumes from there.
      status.textContent = errorText(e);
      get.textContent = 'Resume';
      get.hidden = false;
    } finally {
      view.dispose();
    }
  };
  get.addEventListener('click', () => void run());
  const actions = h(
    'div',
    { class: 'missing-model-actions' },
    get,
    ' ',
    status,
    ' ',
    h('span', { class: 'muted' }, 'or install it from a file on the ', link, ' screen'),
  );
  box.append(actions);
  return box;
}
