import type { DocumentLimits } from '../core/extract/limits.js';
import type { Settings } from '../schemas/settings.js';

/** The document limits the worker pool reads within, from the settings. */
export function documentLimitsOf(settings: Settings): DocumentLimits {
  return {
    maxDecompressedBytes: settings.max_decompressed_bytes,
    maxDecompressedPartBytes: settings.max_decompressed_part_bytes,
    maxImagePixels: settings.max_image_pixels,
    maxPagePixels: settings.max_page_pixels,
    maxPages: settings.max_pages,
    maxSheetRows: settings.max_sheet_rows,
    maxSheetCells: settings.max_sheet_cells,
  };
}
