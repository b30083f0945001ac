import type { Api } from '../api/client.js';
import type { ModelList } from '../api/types.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';

/** `provider:model`; an empty model is the server's default for the provider. */
type Choice = string;

const REMOTE = new Set(['openai', 'ollama']);

/** What a choice of the model list sends as the bot's `llm`. */
function llmOf(
  choice: Choice,
  model: string,
  baseUrl: string,
): { provider: string; model?: string; base_url?: string } {
  const [provider = 'local', chosen = ''] = choice.split(/:(.*)/s);
  const m = REMOTE.has(provider) ? model.trim() : chosen;
  const url = REMOTE.has(provider) ? baseUrl.trim() : '';
  return { provider, ...(m ? { model: m } : {}), ...(url ? { base_url: url } : {}) };
}

/** The answer models a bot can have: the local chat models the server knows, quotes only, or a remote server. */
async function modelOptions(api: Api, hasModels: boolean): Promise<HTMLOptionElement[]> {
  const local: HTMLOptionElement[] = [];
  if (hasModels) {
    try {
      const { models } = await api.get<ModelList>('/models');
      for (const m of models.filter((x) => x.task === 'chat')) {
        local.push(
          h(
            'option',
            { value: `local:${m.id}` },
            `Local: ${m.name}${m.installed ? '' : ' (not installed)'}${m.default ? ' (default)' : ''}`,
          ),
        );
      }
    } catch {
      // Without the list the server's default local model is still a choice.
    }
  }
  return [
    h('option', { value: 'local:' }, 'Local model (server default)'),
    ...local,
    h('option', { value: 'extractive:' }, 'Extractive (quotes the documents, no language model)'),
    h('option', { value: 'openai:' }, 'OpenAI-compatible server…'),
    h('option', { value: 'ollama:' }, 'Ollama server…'),
  ];
}

/**
 * The form that makes a bot: its name, its instructions (system prompt) and the model that answers. A
 * remote provider asks for its model name and address (the server's guarded fetch decides what it may reach).
 */
export function botForm(api: Api, hasModels: boolean, onCreated: (botId: string) => void): HTMLElement {
  const name = h('input', {
    name: 'bot-name',
    'aria-label': 'Bot name',
    placeholder: 'Name',
    maxlength: 200,
    required: true,
  });
  const prompt = h('textarea', {
    name: 'bot-prompt',
    rows: 3,
    'aria-label': 'Instructions',
    placeholder: 'Instructions (system prompt), e.g. "You answer from the manuals, briefly."',
    maxlength: 20000,
  });
  const model = h(
    'select',
    { name: 'bot-model', 'aria-label': 'Answer model' },
    h('option', { value: 'local:' }, 'Local model (server default)'),
  );
  const remoteModel = h('input', {
    name: 'bot-remote-model',
    'aria-label': 'Remote model name',
    placeholder: 'Model name',
  });
  const baseUrl = h('input', {
    name: 'bot-base-url',
    'aria-label': 'Server address',
    placeholder: 'Server address (https://…)',
  });
  const remote = h('div', { class: 'remote-fields', hidden: true }, remoteModel, baseUrl);
  const error = h('p', { class: 'error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create bot');
  void modelOptions(api, hasModels).then((options) => model.replaceChildren(...options));
  model.addEventListener('change', () => (remote.hidden = !REMOTE.has(model.value.split(':')[0] ?? '')));

  const form = h(
    'form',
    { class: 'panel bot-form', 'aria-label': 'New bot' },
    h('h2', {}, 'New bot'),
    name,
    prompt,
    h('label', {}, 'Answers with ', model),
    remote,
    error,
    h('div', {}, submit),
  );
  form.addEventListener('keydown', (e) => e.stopPropagation());
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    submit.disabled = true;
    try {
      const body = {
        name: name.value.trim(),
        llm: llmOf(model.value, remoteModel.value, baseUrl.value),
        ...(prompt.value.trim() ? { prompt_template: prompt.value.trim() } : {}),
      };
      const { bot_id } = await api.send<{ bot_id: string }>('POST', '/bots', body);
      form.reset();
      remote.hidden = true;
      onCreated(bot_id);
    } catch (err) {
      error.textContent = `Could not create the bot: ${errorText(err)}`;
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
