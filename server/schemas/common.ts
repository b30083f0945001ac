import { Type, type TEnum, type TSchema } from 'typebox';

export const Nullable = <T extends TSchema>(t: T, opts: { description?: string } = {}) => Type.Union([t, Type.Null()], opts);

/** An enum written once, as a union of literals. */
export const StringEnum = <const T extends readonly string[]>(values: T, opts: { description?: string } = {}): TEnum<[...T]> =>
  Type.Enum([...values], opts) as TEnum<[...T]>;

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable machine-readable code, e.g. VERSION_CONFLICT' }),
      message: Type.String(),
      details: Type.Optional(Type.Unknown()),
    }),
  },
  { $id: 'ErrorBody', description: 'Every error answer has this shape.' },
);

export const errorRef = Type.Ref('ErrorBody');

/** The error answers a route may give, all with the shared error body. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, errorRef]));
}

export const Paging = {
  skip: Type.Integer({ minimum: 0, default: 0, description: 'Items to skip (offset)' }),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'Items to return, at most 500' }),
};

export const listOf = <T extends TSchema>(item: T, description: string) =>
  Type.Object({ items: Type.Array(item), total: Type.Integer({ description: 'Matching items in all' }), skip: Type.Integer(), limit: Type.Integer() }, { description });
