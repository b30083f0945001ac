import { Type, type TEnum, type TSchema } from 'typebox';

export const Nullable = <T extends TSchema>(t: T, opts: { description?: string } = {}) =>
  Type.Union([t, Type.Null()], opts);

/** An enum written once, as a union of literals. */
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  opts: { description?: string } = {},
): TEnum<[...T]> => Type.Enum([...values], opts) as TEnum<[...T]>;

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable machine-readable code, e.g. VERSION_CONFLICT' }),
      message: Type.String(),
      details: Type.Optional(Type.Unknown()),
    }),
    detail: Type.String({ description: "The message again, where FastAPI-style clients (LongParser's) read it" }),
  },
  { $id: 'ErrorBody', description: 'Every error answer has this shape.' },
);

/** The one error body: Lectern's coded `error`, and `detail` for clients written against FastAPI. */
export function errorBody(code: string, message: string, details?: unknown) {
  return { error: { code, message, ...(details === undefined ? {} : { details }) }, detail: message };
}

export const errorRef = Type.Ref('ErrorBody');

/** The error answers a route may give, all with the shared error body. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, errorRef]));
}

/**
 * Both have defaults, so a request may leave them out (the OpenAPI lists them as optional). `skip` is
 * bounded where numbers stop being exact: SQLite cannot take an offset of 2^63 or more (that was a 500).
 */
export const Paging = {
  skip: Type.Integer({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    default: 0,
    description: 'Items to skip (offset)',
  }),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'Items to return, at most 500' }),
};

/** The paging headers of a list answered as a bare JSON array (LongParser's lists are arrays). */
export const PAGING_HEADERS = {
  'X-Total-Count': Type.Integer({ description: 'Matching items in all (the array holds at most `limit` of them)' }),
  Link: Type.String({
    description:
      'RFC 8288 links to the first, prev, next and last pages (absolute URLs with skip and limit); next only while more remain',
  }),
};

/** A list answered as a JSON array, its paging in the X-Total-Count and Link headers. */
export const arrayPage = <T extends TSchema>(item: T, description: string) =>
  Type.Array(item, { description, headers: PAGING_HEADERS });

export const listOf = <T extends TSchema>(item: T, description: string) =>
  Type.Object(
    {
      items: Type.Array(item),
      total: Type.Integer({ description: 'Matching items in all' }),
      skip: Type.Integer(),
      limit: Type.Integer(),
    },
    { description },
  );

/** An answer that is a file, not JSON (the route's errors stay JSON: declare them with `errors`). */
export const fileResponse = (mediaType: string, description: string) => ({
  description,
  content: { [mediaType]: { schema: { type: 'string', format: 'binary' } } },
});

/** The `error` event a stream ends with when its work fails after it started. */
export const StreamError = Type.Object({ code: Type.String(), message: Type.String() });

/**
 * A text/event-stream, one schema per event: `event` is its name and `data` its JSON (`contentSchema`),
 * the way OpenAPI 3.1 tools read a stream's schema (each item, not the whole stream).
 */
export function eventStream(events: Record<string, TSchema>, description: string, opts: { id?: string } = {}) {
  const id: Record<string, TSchema> =
    opts.id === undefined ? {} : { id: Type.Optional(Type.String({ description: opts.id })) };
  const items = Object.entries(events).map(([name, data]) =>
    Type.Object({
      ...id,
      event: Type.Literal(name),
      data: Type.String({ contentMediaType: 'application/json', contentSchema: data }),
    }),
  );
  return { description, content: { 'text/event-stream': { schema: Type.Union(items) } } };
}

/** A stream of unnamed events (`data:` lines only), as OpenAI's API streams its chunks. */
export function dataStream(description: string) {
  return {
    description,
    content: {
      'text/event-stream': {
        schema: Type.Object({ data: Type.String({ description }) }, { additionalProperties: true }),
      },
    },
  };
}

/** A route answering JSON, or the same work as a stream of events when asked with `stream: true`. */
export function jsonOrEventStream(json: TSchema, events: Record<string, TSchema>, description: string) {
  return {
    description,
    content: { 'application/json': { schema: json }, ...eventStream(events, description).content },
  };
}
