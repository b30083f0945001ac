import { AjvCompiler, type BuildCompilerFromPool } from '@fastify/ajv-compiler';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import { AppError } from '../core/errors.js';
import { authPlugin } from './plugins/auth.js';
import { corsPlugin, DESKTOP_ORIGIN } from './plugins/cors.js';
import { errorsPlugin, frameworkErrors } from './plugins/errors.js';
import { hostsPlugin } from './plugins/hosts.js';
import { methodsPlugin } from './plugins/methods.js';
import { openapiPlugin } from './plugins/openapi.js';
import { healthRoutes } from './routes/health.js';
import { jobsRoutes } from './routes/jobs.js';
import { keysRoutes } from './routes/keys.js';
import { modelsRoutes } from './routes/models.js';
import { ocrLanguagesRoutes } from './routes/ocr-languages.js';
import { embedRoutes } from './routes/embed.js';
import { collectionsRoutes } from './routes/collections.js';
import { searchRoutes } from './routes/search.js';
import { chatRoutes } from './routes/chat.js';
import { purgeRoutes } from './routes/purge.js';
import { botsRoutes } from './routes/bots.js';
import { botChatsRoutes } from './routes/bot-chats.js';
import { conversationsRoutes } from './routes/conversations.js';
import { openaiRoutes } from './routes/openai-compat.js';
import { botTrainingRoutes } from './routes/bot-training.js';
import { botVisionRoutes } from './routes/bot-vision.js';
import { botUploadsRoutes } from './routes/bot-uploads.js';
import { outputRoutes } from './routes/output.js';
import { pagesRoutes } from './routes/pages.js';
import { reviewRoutes } from './routes/review.js';
import { uiRoutes } from './routes/ui.js';
import { requireMultipartBoundary } from './receive-upload.js';
import type { ServerDeps } from './services.js';

/**
 * Query strings, path parameters and headers arrive as text and are coerced to their schema's types; JSON
 * bodies are not. Ajv's coercion turns `null` into `""` when a field is string-or-null, so a reviewer's
 * "back to the machine's reading" (`edited_text: null`) was stored as an empty text.
 */
function bodiesUncoerced(): BuildCompilerFromPool {
  const pool = AjvCompiler();
  return (externalSchemas, options) => {
    const coercing = pool(externalSchemas, options);
    const exact = pool(externalSchemas, {
      ...options,
      customOptions: { ...options?.customOptions, coerceTypes: false },
    } as typeof options);
    // Fastify calls the compiler with the route definition ({ schema, method, url, httpPart }); the
    // package's types name it a bare schema.
    return (route) => ((route as { httpPart?: string }).httpPart === 'body' ? exact : coercing)(route);
  };
}

/** A configured Fastify instance; it never listens itself (the CLI and Electron call listen). */
export async function buildServer(deps: ServerDeps, logger: FastifyBaseLogger) {
  const app = Fastify({
    loggerInstance: logger,
    // Clients poll job status many times a second; per-request lines only when debugging.
    logController: new LogController({ disableRequestLogging: deps.settings.log_level !== 'debug' }),
    bodyLimit: 10 * 1024 * 1024,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true } },
    schemaController: { compilersFactory: { buildValidator: bodiesUncoerced() } },
    frameworkErrors,
  }).withTypeProvider<TypeBoxTypeProvider>();
  // A team server (PostgreSQL) may answer any route 503 DATABASE_UNAVAILABLE while its database restarts.
  await app.register(errorsPlugin, { sharedDatabase: deps.store.kind === 'postgres' });
  // Before anything answers: a request for another host name (DNS rebinding) is refused, then CORS.
  await app.register(hostsPlugin, { listenHost: deps.settings.host, allowedHosts: deps.settings.allowed_hosts });
  await app.register(corsPlugin, { origin: deps.desktopOrigin ?? DESKTOP_ORIGIN });
  // An empty JSON body (a bodiless POST sent with Content-Type: application/json) means "no fields".
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new AppError('VALIDATION_FAILED', 'the request body is not valid JSON'), undefined);
    }
  });
  await app.register(authPlugin, { auth: deps.keyAuth });
  await app.register(methodsPlugin);
  await app.register(uiRoutes);
  await app.register(openapiPlugin, { version: deps.appVersion });
  await app.register(multipart);
  app.addHook('onRequest', requireMultipartBoundary);
  // Routes with an optional body still validate one: an empty request counts as `{}`.
  app.addHook('preValidation', async (req) => {
    if (req.body === undefined && req.routeOptions.schema?.body) req.body = {};
  });
  await app.register(healthRoutes, deps);
  await app.register(jobsRoutes, deps);
  await app.register(reviewRoutes, deps);
  await app.register(outputRoutes, deps);
  await app.register(pagesRoutes, deps);
  await app.register(modelsRoutes, deps);
  await app.register(ocrLanguagesRoutes, deps);
  await app.register(keysRoutes, deps);
  await app.register(embedRoutes, deps);
  await app.register(collectionsRoutes, deps);
  await app.register(searchRoutes, deps);
  await app.register(chatRoutes, deps);
  await app.register(purgeRoutes, deps);
  await app.register(botsRoutes, deps);
  await app.register(botChatsRoutes, deps);
  await app.register(conversationsRoutes, deps);
  await app.register(openaiRoutes, deps);
  await app.register(botTrainingRoutes, deps);
  await app.register(botVisionRoutes, deps);
  await app.register(botUploadsRoutes, deps);
  return app;
}
export type LecternServer = Awaited<ReturnType<typeof buildServer>>;
