import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// Checks real answers against what /openapi.json declares for their operation: the status is declared, the
// content type is one declared for it, and a JSON body (or each event of a stream) validates against its
// schema with Ajv, the document's components resolvable by $ref.

export interface MediaType {
  schema?: unknown;
}
export interface Operation {
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; schema?: { type?: string } }[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
export type OpenApiDoc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

export function openApiChecker(doc: OpenApiDoc) {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'openapi', components: doc.components });

  const compile = (schema: unknown) =>
    ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')) as object);

  /** Every operation of the document: [METHOD, path template, operation]. */
  const operations = (): [string, string, Operation][] =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([m, op]) => [m.toUpperCase(), path, op] as [string, string, Operation]),
    );

  /** An answer already read (status, content type, body text) against the operation; what is wrong, if anything. */
  function answerMismatch(status: number, contentType: string, text: string, op: Operation): string | undefined {
    const declared = op.responses[String(status)];
    if (!declared)
      return `status ${status} is not declared (${Object.keys(op.responses).join(', ')}): ${text.slice(0, 200)}`;
    if (status === 204) return undefined;
    const type = contentType.split(';')[0]!.trim();
    const media = declared.content?.[type];
    if (!media)
      return `${status} came as ${type}, declared ${Object.keys(declared.content ?? {}).join(', ') || 'without content'}`;
    if (type !== 'application/json' || media.schema === undefined) return undefined;
    const validate = compile(media.schema);
    return validate(JSON.parse(text))
      ? undefined
      : `${status} body breaks its schema: ${ajv.errorsText(validate.errors)}: ${text.slice(0, 200)}`;
  }

  /** Reads the answer and checks it against the operation's declared responses; returns what is wrong. */
  async function mismatch(res: Response, op: Operation): Promise<string | undefined> {
    return answerMismatch(res.status, res.headers.get('content-type') ?? '', await res.text(), op);
  }

  /** Each event of a text/event-stream body checked against the declared event schemas: its name, and its JSON data against `contentSchema`. */
  function streamMismatch(text: string, schema: unknown): string[] {
    const branches = ((schema as { anyOf?: unknown[] }).anyOf ?? [schema]) as {
      properties: { event?: { enum?: string[]; const?: string }; data: { contentSchema?: unknown } };
    }[];
    const wrong: string[] = [];
    for (const block of text.split('\n\n').filter((b) => b.trim())) {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = [...block.matchAll(/^data: (.*)$/gm)].map((m) => m[1]).join('\n');
      const branch = branches.find((b) => (b.properties.event?.enum?.[0] ?? b.properties.event?.const) === event);
      if (!branch) wrong.push(`event ${event} is not declared`);
      else if (branch.properties.data.contentSchema) {
        const validate = compile(branch.properties.data.contentSchema);
        if (!validate(JSON.parse(data))) wrong.push(`event ${event}: ${ajv.errorsText(validate.errors)}`);
      }
    }
    return wrong;
  }

  return { compile, operations, answerMismatch, mismatch, streamMismatch };
}
export type OpenApiChecker = ReturnType<typeof openApiChecker>;
