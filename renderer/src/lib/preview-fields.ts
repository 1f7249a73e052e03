// The preview's page-number fields. docx-preview drops every field (a footer's "Page N of M" shows as "Page  of "),
// so before rendering, each PAGE / NUMPAGES / SECTIONPAGES field of a header or footer becomes a marker, and after
// rendering each page's markers become its number and the page count.
import { parseAsync, renderDocument } from 'docx-preview';

/** The slice of docx-preview's parsed document model these functions read and change. */
interface Element {
  type: string;
  children?: Element[];
  fieldRun?: boolean;
  text?: string;
  charType?: string;
}

const MARK = '\u2060';
const FIELDS: Record<string, 'page' | 'pages'> = { PAGE: 'page', NUMPAGES: 'pages', SECTIONPAGES: 'pages' };

function isElement(value: unknown): value is Element {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** Replaces the page-number fields among `parent`'s runs (and its descendants') with markers. */
function markFields(parent: Element): void {
  let instruction = '';
  let inResult = false;
  for (const child of parent.children ?? []) {
    if (child.type !== 'run') {
      markFields(child);
      continue;
    }
    for (const part of child.children ?? []) {
      if (part.type === 'complexField' && part.charType === 'begin') [instruction, inResult] = ['', false];
      else if (part.type === 'instruction') instruction += part.text ?? '';
      else if (part.type === 'complexField' && part.charType === 'separate') inResult = true;
    }
    const field = FIELDS[instruction.trim().split(/\s+/)[0]?.toUpperCase() ?? ''];
    const ends = child.children?.some((part) => part.type === 'complexField' && part.charType === 'end') ?? false;
    if (field && ends) {
      child.children = [{ type: 'text', text: `${MARK}${field}${MARK}` }];
      child.fieldRun = false;
      [instruction, inResult] = ['', false];
    } else if (field && inResult && !child.fieldRun) {
      // The number Word cached when it last saved: stale in a preview, so it is left out.
      child.fieldRun = true;
    }
  }
}

/** Writes each rendered page's number and the page count into the markers of its header and footer. */
function numberPages(container: HTMLElement): void {
  const pages = Array.from(container.querySelectorAll<HTMLElement>('section.docx'));
  pages.forEach((page, index) => {
    const walker = document.createTreeWalker(page, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      if (!text.includes(MARK)) continue;
      node.textContent = text.replace(/\u2060(page|pages)\u2060/g, (_, which: string) => String(which === 'page' ? index + 1 : pages.length));
    }
  });
}

/** Renders a .docx into `body` (its styles into `styles`) as docx-preview's renderAsync does, with page numbers. */
export async function renderPreview(data: Blob, body: HTMLElement, styles: HTMLElement, options: Parameters<typeof renderDocument>[1]): Promise<void> {
  const document: unknown = await parseAsync(data, options);
  const parts: unknown = (document as { parts?: unknown }).parts;
  for (const part of Array.isArray(parts) ? (parts as unknown[]) : []) {
    const root: unknown = (part as { rootElement?: unknown }).rootElement;
    if (isElement(root) && (root.type === 'header' || root.type === 'footer')) markFields(root);
  }
  const nodes = await renderDocument(document, options);
  styles.replaceChildren(...nodes.filter((n) => n.nodeName === 'STYLE'));
  body.replaceChildren(...nodes.filter((n) => n.nodeName !== 'STYLE'));
  numberPages(body);
}
