import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { isAppError, statusOf } from '../../core/errors.js';
import { errorBody, errors } from '../../schemas/common.js';

/**
 * Declares error answers a plugin gives on a route's behalf (from an onRoute hook) in the route's OpenAPI
 * responses, so that routes need not repeat them; what the route declares itself is kept. Routes without
 * response schemas (hidden ones, the UI's files) are left alone.
 */
export function declareErrors(route: RouteOptions, ...statuses: number[]): void {
  const response = route.schema?.response as Record<string, unknown> | undefined;
  if (route.schema && response && statuses.length > 0)
    route.schema = { ...route.schema, response: { ...errors(...statuses), ...response } };
}

/** Methods whose requests Fastify reads a body for (bad JSON 400, too large 413, another type 415). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const ROUTER_REFUSALS: Record<string, string> = {
  FST_ERR_BAD_URL: 'the path is not valid URL encoding',
  FST_ERR_MAX_PARAM_LENGTH: 'a path parameter is longer than any id',
};

/**
 * The router's own refusals, which come before any route or hook: a path that is not valid URL encoding,
 * or a path parameter longer than the router takes (ids are far shorter). Fastify's default answers them
 * in another shape and a 414 no route declares; here they are 400 VALIDATION_FAILED like any bad id.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const message = ROUTER_REFUSALS[err.code];
  if (message) {
    void reply.status(400).send(errorBody('VALIDATION_FAILED', message, { reason: err.code }));
    return;
  }
  req.log.error({ err }, 'router error');
  void reply.status(500).send(errorBody('INTERNAL', 'internal error; see the server log'));
}

/**
 * The one error handler: known errors -> their status and `{ error: { code, message, details }, detail }`;
 * validation -> 400 with the failing fields; Fastify's own 4xx (body too large, bad JSON, wrong content
 * type) keep their status; anything else -> 500 INTERNAL, logged with the request, message hidden.
 */
export const errorsPlugin = fp(
  async (app: FastifyInstance, { sharedDatabase = false }: { sharedDatabase?: boolean } = {}) => {
    // What any route may answer before its handler runs, declared once here rather than on every route:
    // 400 for a path, query or body that does not parse or validate, and for bodies 413 and 415; on a team
    // server, 503 DATABASE_UNAVAILABLE for the moments its PostgreSQL is away (store/postgres/unavailable.ts).
    app.addHook('onRoute', (route) => {
      const hasBody = [route.method].flat().some((m) => BODY_METHODS.has(m));
      const parsesInput =
        hasBody || route.url.includes(':') || route.url.includes('*') || route.schema?.querystring !== undefined;
      declareErrors(
        route,
        ...(parsesInput ? [400] : []),
        ...(hasBody ? [413, 415] : []),
        ...(sharedDatabase ? [503] : []),
      );
    });
    app.setErrorHandler((err: FastifyError, req, reply) => {
      if (isAppError(err)) {
        const details = (err as { details?: unknown }).details;
        const status = statusOf(err);
        // 503 DATABASE_UNAVAILABLE (a team server's database restarting) says when to ask again.
        const wait = (details as { retry_after_s?: unknown } | undefined)?.retry_after_s;
        if (status === 503 && typeof wait === 'number') reply.header('retry-after', String(wait));
        return reply.status(status).send(errorBody(err.code, err.message, details));
      }
      if (err.validation) {
        const details = err.validation.map((v) => ({
          field: `${err.validationContext ?? ''}${v.instancePath}`,
          message: v.message,
          params: v.params,
        }));
        return reply.status(400).send(errorBody('VALIDATION_FAILED', err.message, details));
      }
      const status = err.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        // Fastify's and its plugins' own refusals (bad JSON, an empty body, a body too large…) in catalogue codes.
        const code =
          status === 400
            ? 'VALIDATION_FAILED'
            : status === 413
              ? 'FILE_TOO_LARGE'
              : status === 415
                ? 'UNSUPPORTED_MEDIA_TYPE'
                : (err.code ?? 'BAD_REQUEST');
        return reply
          .status(status)
          .send(errorBody(code, err.message, err.code && err.code !== code ? { reason: err.code } : undefined));
      }
      req.log.error({ err }, 'unhandled error');
      return reply.status(500).send(errorBody('INTERNAL', 'internal error; see the server log'));
    });
    app.setNotFoundHandler((req, reply) => {
      reply.status(404).send(errorBody('NOT_FOUND', `no route ${req.method} ${req.url.split('?')[0]}`));
    });
  },
);
