// docx-preview lays a section out as one sheet and breaks only at explicit page breaks; Word and LibreOffice break
// where the page is full. This splits each rendered sheet into pages of the document's own height, each with the
// sheet's header and footer, and fills in PAGE / NUMPAGES fields (marked before rendering, see preview-fields.ts).
// PreviewDialog.svelte calls it a page at a time, so a long document never holds the window.
import { NUMPAGES_MARK, PAGE_MARK } from './preview-fields.ts';

/** Pixels of a CSS length as the browser computed it ("1056px" → 1056). */
function px(value: string): number {
  const number = Number.parseFloat(value);
  return Number.isFinite(number) ? number : 0;
}

/** The blocks of a sheet's content, in order, with the article each belongs to. */
function blocks(section: HTMLElement): HTMLElement[] {
  const out: HTMLElement[] = [];
  for (const article of section.querySelectorAll<HTMLElement>(':scope > article'))
    out.push(...(Array.from(article.children) as HTMLElement[]));
  return out;
}

/** Moves `first` and every block after it into a new page after `section`; returns the new page. */
function splitAt(section: HTMLElement, first: HTMLElement): HTMLElement {
  const page = section.cloneNode(false) as HTMLElement;
  const header = section.querySelector<HTMLElement>(':scope > header');
  const footer = section.querySelector<HTMLElement>(':scope > footer');
  if (header) page.appendChild(header.cloneNode(true));
  let moving = false;
  for (const article of Array.from(section.querySelectorAll<HTMLElement>(':scope > article'))) {
    const target = article.cloneNode(false) as HTMLElement;
    for (const child of Array.from(article.children)) {
      if (child === first) moving = true;
      if (moving) target.appendChild(child);
    }
    if (target.childElementCount > 0) page.appendChild(target);
  }
  if (footer) page.appendChild(footer.cloneNode(true));
  section.after(page);
  return page;
}

/**
 * Splits a paragraph before its first run or line break that ends below `bottom` (page coordinates); returns the
 * new paragraph holding the rest, or null when nothing of it fits on this page.
 */
function splitParagraph(paragraph: HTMLElement, bottom: number): HTMLElement | null {
  const children = Array.from(paragraph.childNodes);
  const first = children.findIndex(
    (child) => child instanceof Element && child.getBoundingClientRect().bottom > bottom + 0.5,
  );
  if (first <= 0) return null;
  const rest = paragraph.cloneNode(false) as HTMLElement;
  // The continuation neither indents its first line again nor repeats the space above.
  rest.style.textIndent = '0';
  rest.style.marginTop = '0';
  for (const child of children.slice(first)) rest.appendChild(child);
  paragraph.after(rest);
  return rest;
}

/**
 * Splits one sheet where its text area is full: the blocks that do not fit go to a new page right after it (which
 * the caller splits in turn). Returns whether it split.
 */
export function splitPage(section: HTMLElement): boolean {
  const style = getComputedStyle(section);
  const height = px(style.minHeight);
  if (height <= 0) return false;
  const limit = height - px(style.paddingBottom);
  const top = section.getBoundingClientRect().top;
  const content = blocks(section);
  // The first block that ends below the page's text area starts the next page (a block taller than a page stays).
  const index = content.findIndex((block) => block.getBoundingClientRect().bottom - top > limit + 0.5);
  const overflow = index < 0 ? undefined : content[index];
  if (!overflow) return false;
  // A paragraph that starts on this page continues on the next one, as Word splits it (a code block's lines, a
  // long paragraph's runs); anything else moves whole, unless it is the page's first block.
  const rest = overflow.tagName === 'P' ? splitParagraph(overflow, top + limit) : null;
  const next = content[index + 1];
  if (rest) splitAt(section, rest);
  else if (index > 0) splitAt(section, overflow);
  // A first block taller than the page keeps its page to itself; the blocks after it go on.
  else if (next) splitAt(section, next);
  else return false;
  return true;
}

/** Replaces the marks of the fields of one page: PAGE with `number`, and NUMPAGES with `total` once it is known. */
export function numberPage(page: HTMLElement, number: number, total?: number): void {
  const walker = document.createTreeWalker(page, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.nodeValue ?? '';
    if (!text.includes(PAGE_MARK) && !text.includes(NUMPAGES_MARK)) continue;
    let value = text.split(PAGE_MARK).join(String(number));
    if (total !== undefined) value = value.split(NUMPAGES_MARK).join(String(total));
    node.nodeValue = value;
  }
}
