// The page shown, from the URL's hash (#/convert, #/templates, …), so Back/Forward and reloads keep the place.

export const PAGES = [
  { id: 'convert', label: 'Convert' },
  { id: 'templates', label: 'Templates & mappings' },
  { id: 'history', label: 'History' },
  { id: 'settings', label: 'Settings' },
] as const;

export type PageId = (typeof PAGES)[number]['id'];

function fromHash(hash: string): PageId {
  const id = hash.replace(/^#\/?/, '').split('/')[0];
  return PAGES.find((p) => p.id === id)?.id ?? 'convert';
}

/** The current page; follows the hash. */
export class Router {
  page = $state<PageId>(fromHash(location.hash));

  constructor() {
    addEventListener('hashchange', () => {
      this.page = fromHash(location.hash);
    });
  }

  href(id: PageId): string {
    return `#/${id}`;
  }
}
