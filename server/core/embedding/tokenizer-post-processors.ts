import { invalid, type PostProcessorJson, unsupported } from './tokenizer-json.js';

/** The special tokens a post-processor puts around a single text, with their token type ids and the text's. */
export interface Template {
  before: number[];
  after: number[];
  beforeTypes: number[];
  afterTypes: number[];
  bodyType: number;
  /** The tokens' names, for messages. */
  names: string[];
}

const NONE: Template = { before: [], after: [], beforeTypes: [], afterTypes: [], bodyType: 0, names: [] };

function templateProcessing(post: PostProcessorJson): Template {
  const single = post.single ?? [];
  const at = single.findIndex((p) => 'Sequence' in p);
  if (at < 0) throw invalid('the TemplateProcessing template has no $A');
  const out: Template = { ...NONE, before: [], after: [], beforeTypes: [], afterTypes: [], names: [] };
  single.forEach((piece, i) => {
    if ('Sequence' in piece) {
      out.bodyType = piece.Sequence.type_id ?? 0;
      return;
    }
    const name = piece.SpecialToken.id;
    const special = post.special_tokens?.[name];
    if (!special) throw invalid(`the TemplateProcessing template names ${name}, which its special tokens lack`);
    const type = piece.SpecialToken.type_id ?? 0;
    (i < at ? out.before : out.after).push(...special.ids);
    (i < at ? out.beforeTypes : out.afterTypes).push(...special.ids.map(() => type));
    out.names.push(name);
  });
  return out;
}

/**
 * The post-processor's template for one text: TemplateProcessing as it says; BertProcessing and
 * RobertaProcessing put `cls` before and `sep` after; ByteLevel only moves offsets, so adds nothing; a Sequence
 * is its parts in turn.
 */
export function templateOf(post: PostProcessorJson | null | undefined): Template {
  if (!post) return NONE;
  switch (post.type) {
    case 'TemplateProcessing':
      return templateProcessing(post);
    case 'BertProcessing':
    case 'RobertaProcessing': {
      if (!post.cls || !post.sep) throw invalid(`${post.type} lacks cls or sep`);
      return {
        before: [post.cls[1]],
        after: [post.sep[1]],
        beforeTypes: [0],
        afterTypes: [0],
        bodyType: 0,
        names: [post.cls[0], post.sep[0]],
      };
    }
    case 'ByteLevel':
      return NONE;
    case 'Sequence': {
      const parts = (post.processors ?? []).map(templateOf).filter((t) => t.before.length + t.after.length > 0);
      if (parts.length > 1) throw unsupported('a post-processor Sequence adding special tokens twice');
      return parts[0] ?? NONE;
    }
    default:
      throw unsupported(`post-processor ${post.type}`);
  }
}
