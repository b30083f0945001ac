import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { documentRootsOf, resolveInRoots } from '../../core/bots/document-roots.js';
import { AppError } from '../../core/errors.js';
import { addLanguage, languageList, removeAddedLanguage } from '../../core/ocr/language-admin.js';
import { BUNDLED_LANGUAGES } from '../../core/language-catalog.js';
import { DEFAULT_NPM_REGISTRY } from '../../core/ocr/language-install.js';
import { languagesDirOf } from '../../core/ocr/ocr-languages.js';
import { errors, Nullable } from '../../schemas/common.js';
import type { ServerDeps } from '../services.js';

const tags = ['ocr-languages'];

const LanguageRow = Type.Object(
  {
    code: Type.String({ description: "Tesseract's code, as a job's ocr_language names it (eng, deu, chi_sim, …)." }),
    name: Type.String(),
    script: Type.String(),
    rtl: Type.Boolean({ description: 'Written right to left.' }),
    installed: Type.Boolean(),
    bundled: Type.Boolean({ description: 'Ships with the app (English), not added to the data folder.' }),
    file: Nullable(Type.String(), { description: 'The model file a job reads.' }),
    package: Nullable(Type.String(), { description: '@tesseract.js-data/<code>@<version> it came from, when known.' }),
    bytes: Nullable(Type.Integer()),
    source: Nullable(Type.String(), { description: 'The registry tarball or the local path it was installed from.' }),
    install: Nullable(Type.String(), { description: 'How to install it, when it is not.' }),
  },
  { $id: 'OcrLanguage' },
);

const Installed = Type.Object(
  {
    code: Type.String(),
    package: Nullable(Type.String()),
    source: Type.String({ description: "The registry tarball's URL, or the local path installed from." }),
    integrity: Nullable(
      Type.String({ description: "The tarball's sha512 integrity as the registry states it and as checked." }),
    ),
    sha256: Type.String({ description: 'sha256 of the installed (gzipped) model file.' }),
    bytes: Type.Integer(),
    installed_at: Type.String(),
  },
  { $id: 'OcrLanguageInstalled' },
);

const CodeParams = Type.Object({ code: Type.String({ maxLength: 50 }) });

const AddBody = Type.Object(
  {
    from: Type.Optional(
      Type.String({
        maxLength: 4096,
        description:
          'A local copy on this machine, inside the setting document_roots: the package folder or its .tgz (npm pack), or a <code>.traineddata[.gz] file.',
      }),
    ),
    registry: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: `The npm registry (or a mirror) to fetch from; default ${DEFAULT_NPM_REGISTRY}.`,
      }),
    ),
    force: Type.Optional(Type.Boolean({ description: 'Install again even when installed.' })),
  },
  { additionalProperties: false },
);

/**
 * OCR languages of the data folder, for admins: what `lectern languages add | remove` use while a server
 * owns the folder, so only the owner writes it. A job uses a language from the next upload on.
 */
export const ocrLanguagesRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  const dir = languagesDirOf(deps.settings.data_dir);
  // One change per language at a time: a second install, or a removal, waits for no half-written answer.
  const busy = new Set<string>();
  const exclusive = async <T>(code: string, work: () => Promise<T>): Promise<T> => {
    if (busy.has(code))
      throw new AppError('INVALID_STATE', `${code} is being installed; wait for it to finish`, { code });
    busy.add(code);
    try {
      return await work();
    } finally {
      busy.delete(code);
    }
  };

  app.get(
    '/ocr-languages',
    {
      schema: {
        tags,
        summary: 'Every OCR language Lectern knows and whether it is installed (as `lectern languages list --json`)',
        response: {
          200: Type.Object({
            languages_dir: Type.String({ description: 'Where added languages are kept: <data_dir>/ocr-languages.' }),
            languages: Type.Array(LanguageRow),
            other_installed: Type.Array(Type.String(), {
              description: 'Models in the folder under codes the catalogue does not list.',
            }),
          }),
          ...errors(401),
        },
      },
    },
    async () => languageList(dir),
  );

  app.post(
    '/ocr-languages/:code',
    {
      schema: {
        tags,
        summary: 'Install an OCR language into the data folder, from the npm registry or a local copy',
        description:
          "Without `from`: the package @tesseract.js-data/<code> from the npm registry (or `registry`), fetched through the server's " +
          'outbound rules (a registry on this machine or its network must be in allowed_private_hosts: 403 URL_NOT_ALLOWED), its tarball ' +
          'checked against the integrity the registry states (422 LANGUAGE_CHECKSUM_MISMATCH). `from`: a local copy inside the setting ' +
          'document_roots (403 PATH_NOT_ALLOWED; 404 FILE_NOT_FOUND; empty document_roots: the home folder). 201 with the note of what ' +
          'was installed; 200 {already: true} when it is installed and neither `force` nor `from` asks again. 400 OCR_LANGUAGE_UNKNOWN ' +
          'for a code not in GET /ocr-languages; 422 LANGUAGE_NOT_ON_REGISTRY (install it `from` a local copy, details.install says ' +
          'where one comes from) or LANGUAGE_SOURCE_INVALID (no readable model); 502 LANGUAGE_DOWNLOAD_FAILED or FETCH_FAILED; 409 ' +
          'INVALID_STATE while the same language is being installed. The next upload can use it; no restart.',
        params: CodeParams,
        body: AddBody,
        response: {
          200: Type.Object(
            { code: Type.String(), already: Type.Literal(true) },
            { description: 'Installed already: nothing was fetched.' },
          ),
          201: Installed,
          ...errors(400, 401, 403, 404, 409, 422, 502),
        },
      },
    },
    async (req, reply) => {
      const { code } = req.params;
      const { from, registry, force } = req.body;
      if (from !== undefined && registry !== undefined) {
        throw new AppError('VALIDATION_FAILED', 'send either from (a local copy) or registry, not both', [
          { field: 'from' },
          { field: 'registry' },
        ]);
      }
      // The server reads the copy itself: only from the folders documents may be read from.
      const roots = documentRootsOf(deps.settings.document_roots);
      const source = from === undefined ? undefined : resolveInRoots(from, roots).real;
      const added = await exclusive(code, () =>
        addLanguage({ code, dir, net: deps.net, from: source, registry, force }),
      );
      return reply.code('already' in added ? 200 : 201).send(added);
    },
  );

  app.delete(
    '/ocr-languages/:code',
    {
      schema: {
        tags,
        summary: 'Remove an OCR language added to the data folder',
        description:
          'Jobs asking for it afterwards answer 409 OCR_LANGUAGE_MISSING. 404 OCR_LANGUAGE_NOT_INSTALLED when the data folder holds no ' +
          'model of it (the bundled English stays). 409 INVALID_STATE while it is being installed.',
        params: CodeParams,
        response: {
          200: Type.Object({ removed: Type.String({ description: 'The code removed.' }) }),
          ...errors(401, 403, 404, 409),
        },
      },
    },
    async (req) => {
      const { code } = req.params;
      const removed = await exclusive(code, () => removeAddedLanguage(dir, code));
      if (!removed) {
        const bundled = BUNDLED_LANGUAGES.includes(code) ? ' (it ships with the app and stays)' : '';
        throw new AppError('OCR_LANGUAGE_NOT_INSTALLED', `${code} is not installed in ${dir}${bundled}`, {
          code,
          languages_dir: dir,
        });
      }
      return { removed: code };
    },
  );
};
