import type { AppContext } from '../app-context.js';
import { h } from '../ui/dom.js';

/**
 * Gets the export zip to the user. In the desktop app the main process saves it to Downloads and can
 * reveal it; in a browser the zip is fetched with the key (a plain link could not send it) and handed to
 * the browser's own download.
 */
export async function downloadExport(ctx: AppContext, jobId: string, out: HTMLElement): Promise<void> {
  if (ctx.bridge?.saveExport) {
    const path = await ctx.bridge.saveExport(jobId);
    const reveal = ctx.bridge.revealFile;
    out.replaceChildren(
      h('span', {}, `Saved to ${path} `),
      ...(reveal ? [h('button', { type: 'button', onclick: () => void reveal(path) }, 'Show in folder')] : []),
    );
    return;
  }
  const { blob, headers } = await ctx.api.fetchBlob(`/jobs/${encodeURIComponent(jobId)}/export`);
  const name = /filename="?([^";]+)"?/.exec(headers.get('content-disposition') ?? '')?.[1] ?? `lectern-${jobId}.zip`;
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name, class: 'export-link' }, name);
  out.replaceChildren(h('span', {}, `Downloaded ${name} (${blob.size} bytes) `), a);
  a.click();
  // The link stays for a second download; the object URL goes with the page.
}
