import { plugins } from '@citation-js/core';
import '@citation-js/plugin-bibtex';
import '@citation-js/plugin-csl';

/** A citeproc-js engine as the conversion uses it (citeproc-js's CSL.Engine, through citation-js). */
export interface CiteprocEngine {
  updateItems(ids: string[]): void;
  makeCitationCluster(items: Record<string, unknown>[]): string;
  makeBibliography(): false | [{ bibliography_errors: unknown[] }, string[]];
}

/** citation-js's CSL plugin configuration: its engine factory, styles and locales. */
interface CslConfig {
  engine: (data: unknown[], style: string, locale: string | undefined, format: string) => CiteprocEngine;
  styles: { has(name: string): boolean; add(name: string, xml: string): void };
  locales: { has(name: string): boolean };
}

/** citation-js with its BibTeX and CSL plugins, loaded only by a conversion that has citations. */
export function citationJs(): { plugins: typeof plugins; csl: CslConfig } {
  return { plugins, csl: plugins.config.get('@csl') as CslConfig };
}
