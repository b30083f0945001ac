import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { collectImages, MAX_VISION_IMAGES } from '../../core/bots/vision-images.js';
import { AppError } from '../../core/errors.js';
import { BotParams, Message } from '../../schemas/bots.js';
import { errors } from '../../schemas/common.js';
import { clientFault } from '../receive-upload.js';
import { abortOnHangUp } from '../sse.js';
import type { ServerDeps } from '../services.js';
import { documentRootsOf } from '../../core/bots/document-roots.js';

const tags = ['bots'];
const VisionParams = Type.Object({ bot_id: Type.String(), vision_chat_id: Type.String() });
const VisionCreated = Type.Object({ vision_chat_id: Type.String() });
const VisionBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 20_000 }),
    image_paths: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
        maxItems: MAX_VISION_IMAGES,
        description: 'Files on this machine, inside document_roots',
      }),
    ),
    images: Type.Optional(
      Type.Array(Type.String({ maxLength: 70_000_000 }), {
        maxItems: MAX_VISION_IMAGES,
        description: 'Images as base64 data URIs',
      }),
    ),
    web_search: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

interface VisionAsk {
  query: string;
  image_paths?: string[];
  images?: string[];
  web_search?: boolean;
}

/**
 * A multipart question (`query`, `web_search` and `image_paths` fields, image files in any file field) as
 * the JSON body it stands for: the files become data URIs, so one schema validates both forms.
 */
async function multipartAsk(req: FastifyRequest, maxBytes: number): Promise<VisionAsk> {
  const ask: VisionAsk = { query: '', images: [] };
  for await (const part of req.parts({ limits: { fileSize: maxBytes, files: MAX_VISION_IMAGES } })) {
    if (part.type === 'field') {
      const v = String(part.value);
      if (part.fieldname === 'query') ask.query = v;
      else if (part.fieldname === 'web_search') ask.web_search = v === 'true' || v === '1';
      else if (part.fieldname === 'image_paths') (ask.image_paths ??= []).push(v);
      continue;
    }
    const bytes = await part.toBuffer();
    if (part.file.truncated)
      throw new AppError('FILE_TOO_LARGE', `image ${part.filename} is larger than the ${maxBytes}-byte limit`, {
        max_bytes: maxBytes,
      });
    ask.images!.push(`data:${part.mimetype || 'application/octet-stream'};base64,${bytes.toString('base64')}`);
  }
  return ask;
}

/** Vision chats: questions about attached images, answered with the bot's documents beside them. */
export const botVisionRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.post(
    '/bots/:bot_id/vision-chats',
    {
      schema: {
        tags,
        summary: 'Start a vision chat',
        params: BotParams,
        response: { 200: VisionCreated, ...errors(401, 404) },
      },
    },
    async (req) => ({ vision_chat_id: (await deps.botChat.createChat(req.params.bot_id, 'vision')).chat_id }),
  );

  app.post(
    '/bots/:bot_id/vision-chats/:vision_chat_id',
    {
      schema: {
        tags,
        summary: 'Ask about images',
        description:
          'JSON {query, image_paths[] (inside document_roots), images[] (base64 data URIs), web_search} or multipart (a `query` field and image files). ' +
          `At most ${MAX_VISION_IMAGES} images, each sniffed (PNG, JPEG, WebP, TIFF: 415 otherwise) and within max_upload_bytes (413). Each image is read in ` +
          "the worker pool with the OCR path image documents take; its text joins the bot's retrieved chunks as a source, cited as `image N`. A " +
          'multimodal remote model (openai: image_url parts; ollama: images) is shown the images too. The answer is in `response` (and `answer`); ' +
          'the history is GET /chats/{vision_chat_id}.',
        params: VisionParams,
        body: VisionBody,
        response: { 200: Message, ...errors(400, 401, 403, 404, 409, 413, 415, 422, 500, 502, 503) },
      },
      preValidation: async (req) => {
        // A body that breaks off mid-part is the client's fault (400), not the server's.
        if (req.isMultipart())
          req.body = await multipartAsk(req, deps.settings.max_upload_bytes).catch((err: unknown) =>
            Promise.reject(clientFault(err)),
          );
      },
    },
    async (req, reply) => {
      const maxBytes = deps.settings.max_upload_bytes;
      const ask = req.body;
      const images = collectImages(ask, { roots: documentRootsOf(deps.settings.document_roots), maxBytes });
      const prepared = await deps.botChat.prepare(req.params.bot_id, req.params.vision_chat_id, {
        query: ask.query,
        web_search: ask.web_search,
        images,
      });
      return deps.botChat.answer(prepared, { signal: abortOnHangUp(reply) });
    },
  );
};
