/**
 * Errors the PDF extractor rejects with. The worker pool and the jobs API only see structured-clone
 * copies of errors, so the machine-readable reason lives in a plain `code` string property.
 */

export type PdfErrorCode = 'PDF_INVALID' | 'PDF_ENCRYPTED';

export class PdfExtractError extends Error {
  readonly code: PdfErrorCode;

  constructor(code: PdfErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PdfExtractError';
    this.code = code;
  }
}

/** Maps whatever pdf.js threw while opening a document onto our two error codes. */
export function toPdfError(err: unknown): PdfExtractError {
  if (err instanceof PdfExtractError) return err;
  const name = (err as { name?: unknown } | null)?.name;
  const message = err instanceof Error ? err.message : String(err);
  // pdf.js signals "a password is required / was wrong" with PasswordException.
  if (name === 'PasswordException') {
    return new PdfExtractError('PDF_ENCRYPTED', `PDF is encrypted and needs a password: ${message}`, {
      cause: err,
    });
  }
  return new PdfExtractError('PDF_INVALID', `Not a readable PDF: ${message}`, { cause: err });
}
