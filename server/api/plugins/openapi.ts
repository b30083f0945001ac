import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { ErrorBody } from '../../schemas/common.js';
import { Block, Chunk, Job, Revision } from '../../schemas/jobs.js';
import { ModelStatus, PullProgress } from '../../schemas/models.js';

const resolveFromHere = createRequire(import.meta.url).resolve;

const REDOC_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Lectern API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/openapi.json"></redoc><script src="/redoc/redoc.standalone.js"></script></body></html>`;

type Schema = Record<string, unknown>;

/**
 * A query parameter with a default may be left out: the server fills it in before validating (Ajv's
 * useDefaults). TypeBox lists such a property as required, which the document must not repeat.
 */
function defaultsOptional(part: unknown): unknown {
  const s = part as { properties?: Record<string, Schema>; required?: string[] } | undefined;
  if (!s?.properties || !s.required) return part;
  const required = s.required.filter((name) => s.properties?.[name]?.default === undefined);
  return { ...s, required };
}

/** OpenAPI from the route schemas; the explorer at /docs and ReDoc at /redoc, both from local files. */
export const openapiPlugin = fp(async (app: FastifyInstance, { version }: { version: string }) => {
  for (const schema of [ErrorBody, Job, Block, Chunk, Revision, PullProgress, ModelStatus]) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Lectern',
        version,
        description:
          'Offline document review: upload, extract, review, finalize and export. Every route needs the X-API-Key header.',
      },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
      security: [{ apiKey: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url }) => ({
      schema: schema && { ...schema, querystring: defaultsOptional(schema.querystring) },
      url,
    }),
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' }, staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
  const redocBundle = readFileSync(resolveFromHere('redoc/bundles/redoc.standalone.js'));
  app.get('/redoc', { schema: { hide: true }, config: { public: true } }, async (_req, reply) =>
    reply.type('text/html').send(REDOC_PAGE),
  );
  app.get('/redoc/redoc.standalone.js', { schema: { hide: true }, config: { public: true } }, async (_req, reply) =>
    reply.type('application/javascript').header('cache-control', 'public, max-age=86400').send(redocBundle),
  );
});
