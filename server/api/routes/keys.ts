import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ROLES } from '../../core/keys/roles.js';
import { errors, Nullable } from '../../schemas/common.js';
import type { ServerDeps } from '../services.js';

const tags = ['keys'];

const KeyView = Type.Object(
  {
    name: Type.String(),
    role: Type.String({ description: `One of ${ROLES.join(', ')}.` }),
    scope: Type.Object(
      { bots: Type.Array(Type.String()), jobs: Type.Array(Type.String()) },
      { description: 'What the key sees; both empty: everything.' },
    ),
    prefix: Type.String({ description: 'The first characters of the secret, to tell keys apart.' }),
    created_at: Type.String(),
    revoked_at: Nullable(Type.String()),
    last_used_at: Nullable(Type.String()),
  },
  { $id: 'ApiKeyView' },
);

const NewKey = Type.Object(
  {
    // Checked by the keys store, which says what a name may be and which roles exist.
    name: Type.String({
      maxLength: 200,
      description: '1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.',
    }),
    role: Type.String({ maxLength: 50, description: `What the key may do: ${ROLES.join(', ')}.` }),
    bots: Type.Optional(
      Type.Array(Type.String({ maxLength: 200 }), {
        maxItems: 1000,
        description: 'The key sees only these bots, their documents and chats.',
      }),
    ),
    jobs: Type.Optional(
      Type.Array(Type.String({ maxLength: 200 }), {
        maxItems: 1000,
        description: 'The key sees only these jobs (with bots: these too).',
      }),
    ),
  },
  { additionalProperties: false },
);

const KeyParams = Type.Object({ name: Type.String({ maxLength: 200 }) });

/**
 * Named API keys, for admins: what `lectern keys` uses while a server owns the data folder, so that only
 * the owner writes its database.
 */
export const keysRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.get(
    '/keys',
    {
      schema: {
        tags,
        summary: 'Every named key (revoked ones too), oldest first; never a secret',
        response: { 200: Type.Object({ keys: Type.Array(KeyView) }), ...errors(401) },
      },
    },
    async () => ({ keys: await deps.keys.list() }),
  );

  app.post(
    '/keys',
    {
      schema: {
        tags,
        summary: 'Create a key; its secret is in this answer only (it is stored as a hash)',
        body: NewKey,
        response: { 201: Type.Intersect([KeyView, Type.Object({ secret: Type.String() })]), ...errors(400, 401, 409) },
      },
    },
    async (req, reply) => {
      const { key, secret } = await deps.keys.create(req.body);
      return reply.code(201).send({ ...key, secret });
    },
  );

  app.delete(
    '/keys/:name',
    {
      schema: {
        tags,
        summary: 'Revoke the key of that name at once (it stops working with its next request)',
        params: KeyParams,
        response: { 200: KeyView, ...errors(401, 404) },
      },
    },
    async (req) => deps.keys.revoke(req.params.name),
  );
};
