import { h } from '../ui/dom.js';

/** What the server reads (sniffed there too); GIF and others are refused before anything is sent. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/tiff']);
/** The server's limit per question (MAX_VISION_IMAGES). */
const MAX_IMAGES = 8;

export interface ImageTray {
  element: HTMLElement;
  files(): File[];
  add(files: File[]): void;
  clear(): void;
}

/** Image files among pasted items (text pasted with them stays the textarea's). */
export function imagesIn(items: DataTransferItemList | null | undefined): File[] {
  const files = Array.from(items ?? []).flatMap((i) => (i.kind === 'file' ? [i.getAsFile()] : []));
  return files.filter((f): f is File => !!f && f.type.startsWith('image/'));
}

/**
 * The images waiting to go with the next question, as thumbnails with a remove button each. A type the
 * server does not read, or one past the eighth, is named in `onRefused` instead of being added.
 */
export function imageTray(onRefused: (why: string) => void, onChange: () => void): ImageTray {
  let items: { file: File; url: string }[] = [];
  const element = h('div', { class: 'image-tray', 'aria-label': 'Images for the next question', hidden: true });

  function draw(): void {
    element.hidden = items.length === 0;
    element.replaceChildren(
      ...items.map((it, i) =>
        h(
          'figure',
          { class: 'attached-image', 'data-name': it.file.name },
          h('img', { src: it.url, alt: it.file.name }),
          h('figcaption', {}, it.file.name),
          h(
            'button',
            { type: 'button', class: 'remove-image', 'aria-label': `Remove ${it.file.name}`, onclick: () => remove(i) },
            '×',
          ),
        ),
      ),
    );
    onChange();
  }

  function remove(i: number): void {
    const [gone] = items.splice(i, 1);
    if (gone) URL.revokeObjectURL(gone.url);
    draw();
  }

  return {
    element,
    files: () => items.map((it) => it.file),
    add(files) {
      const refused: string[] = [];
      for (const f of files) {
        if (!IMAGE_TYPES.has(f.type))
          refused.push(`${f.name || 'the image'}: only PNG, JPEG, WebP and TIFF images can be asked about`);
        else if (items.length >= MAX_IMAGES) refused.push(`at most ${MAX_IMAGES} images per question`);
        // A pasted screenshot has no name of its own ("image.png" every time): number it.
        else
          items.push({
            file:
              f.name && f.name !== 'image.png'
                ? f
                : new File([f], `pasted-${items.length + 1}.${f.type.split('/')[1] ?? 'png'}`, { type: f.type }),
            url: URL.createObjectURL(f),
          });
      }
      draw();
      // After the redraw, which clears the last notice.
      if (refused.length) onRefused(refused.join('; '));
    },
    clear() {
      for (const it of items) URL.revokeObjectURL(it.url);
      items = [];
      draw();
    },
  };
}
