import { stringify } from 'yaml';

/** What `lectern init` asks for, as it writes it. */
export interface InitAnswers {
  data_dir: string;
  llm_provider: string;
  /** Empty for the extractive provider (no model). */
  model_name: string;
  embedding_provider: string;
  embedding_model: string;
  vectorstore_provider: string;
  chunk_size: number;
  chunk_overlap: number;
  encrypt_chats: boolean;
  host: string;
  port: number;
}

const scalar = (v: string | number | boolean): string => stringify(v).trimEnd();

/** A comment wrapped at `width` columns, each line starting with `# `. */
function comment(text: string, width = 110): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(' ')) {
    if (line.length + word.length + 1 > width && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

const LLM_NOTES: Record<string, string> = {
  local: 'a GGUF run on this machine (llama.cpp); install it with `lectern models pull <model_name>`',
  openai:
    'any OpenAI-compatible server; add base_url: for one that is not api.openai.com (a host on this machine or network must also be in allowed_private_hosts)',
  ollama:
    'an Ollama server (base_url: defaults to http://127.0.0.1:11434; list 127.0.0.1:11434 in allowed_private_hosts)',
  extractive: 'no model: answers quote the best supporting sentences of the documents',
};

/**
 * The commented `lectern.yaml`. Its sections are Long-Trainer's (llm, embedding, vector_store, chunking,
 * server), so one file reads the same in both; server/config/config-file-keys.ts maps them onto settings.
 */
export function configYaml(a: InitAnswers, writtenAt: Date): string {
  const llm = [
    `  provider: ${scalar(a.llm_provider)}`,
    ...(a.model_name ? [`  model_name: ${scalar(a.model_name)}`] : []),
  ];
  return [
    `# Lectern configuration, written by \`lectern init\` on ${writtenAt.toISOString().slice(0, 10)}.`,
    '# `lectern` commands run in this folder read it (elsewhere: -c FILE). A flag or a LECTERN_* environment',
    '# variable overrides a key; every key is listed in the README ("Configuration").',
    '',
    '# Where the database, documents, vector indexes and models live. One process opens it at a time:',
    '# `lectern serve` when it runs (commands then go through it), otherwise each command itself.',
    `data_dir: ${scalar(a.data_dir)}`,
    '',
    ...comment(
      `What answers bots' questions (bots created without a choice of their own); providers: local, openai, ollama, extractive. ${a.llm_provider}: ${LLM_NOTES[a.llm_provider] ?? ''}.`,
    ),
    'llm:',
    ...llm,
    '',
    '# The model that turns document chunks and questions into vectors, on this machine.',
    `# Install it with \`lectern models pull ${a.embedding_model}\`.`,
    'embedding:',
    `  provider: ${scalar(a.embedding_provider)}`,
    `  model_name: ${scalar(a.embedding_model)}`,
    '',
    '# Each bot keeps its vectors in a USearch index file under the data folder (indexes/).',
    'vector_store:',
    `  provider: ${scalar(a.vectorstore_provider)}`,
    '',
    '# How documents are cut for search, in tokens (Long-Trainer counts characters: 2048 there is about 512 here).',
    'chunking:',
    `  chunk_size: ${a.chunk_size}`,
    `  chunk_overlap: ${a.chunk_overlap}`,
    '',
    '# true: questions and answers are sealed (AES-256-GCM) before they reach the database. The key is',
    '# LECTERN_CHAT_KEY, or the file chat_key_file (default <data_dir>/chat.key, made on first use): keep a',
    '# copy; without it sealed chats cannot be read. Put the file elsewhere to protect a copied data folder.',
    `encrypt_chats: ${scalar(a.encrypt_chats)}`,
    '',
    '# Where `lectern serve` listens. 127.0.0.1 keeps it to this machine; 0.0.0.0 opens it to the network',
    '# (every request needs the API key either way).',
    'server:',
    `  host: ${scalar(a.host)}`,
    `  port: ${a.port}`,
    '',
  ].join('\n');
}
