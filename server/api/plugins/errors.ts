import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { isAppError, statusOf } from '../../core/errors.js';

/**
 * The one error handler: known errors -> their status and `{ error: { code, message, details } }`;
 * validation -> 400 with the failing fields; Fastify's own 4xx (body too large, bad JSON, wrong content
 * type) keep their status; anything else -> 500 INTERNAL, logged with the request, message hidden.
 */
export const errorsPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (isAppError(err)) {
      const details = (err as { details?: unknown }).details;
      return reply.status(statusOf(err)).send({ error: { code: err.code, message: err.message, ...(details === undefined ? {} : { details }) } });
    }
    if (err.validation) {
      const details = err.validation.map((v) => ({ field: `${err.validationContext ?? ''}${v.instancePath}`, message: v.message, params: v.params }));
      return reply.status(400).send({ error: { code: 'VALIDATION_FAILED', message: err.message, details } });
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = status === 413 ? 'FILE_TOO_LARGE' : status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : (err.code ?? 'BAD_REQUEST');
      return reply.status(status).send({ error: { code, message: err.message } });
    }
    req.log.error({ err }, 'unhandled error');
    return reply.status(500).send({ error: { code: 'INTERNAL', message: 'internal error; see the server log' } });
  });
  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send({ error: { code: 'NOT_FOUND', message: `no route ${req.method} ${req.url.split('?')[0]}` } });
  });
});
