import { plugins } from '@citation-js/core';
import '@citation-js/plugin-bibtex';
import '@citation-js/plugin-csl';
import CSL from 'citeproc';

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
  locales: { has(name: string): boolean; get(name: string): string | undefined };
}

/** citation-js with its BibTeX and CSL plugins, loaded only by a conversion that has citations. */
export function citationJs(): { plugins: typeof plugins; csl: CslConfig } {
  return { plugins, csl: plugins.config.get('@csl') as CslConfig };
}

/**
 * A citeproc-js engine of its own for a style sent as XML (citeproc-js's public CSL.Engine, set up as citation-js sets
 * up its own: HTML output, URLs and DOIs left as text), reading citation-js's bundled locales and this conversion's
 * sources. Nothing keeps it: it goes with the conversion.
 */
export function ownEngine(
  xml: string,
  locale: string | undefined,
  item: (id: string) => unknown,
): CiteprocEngine & { setOutputFormat(format: string): void } {
  const { locales } = citationJs().csl;
  const sys = {
    retrieveLocale: (name: string) => locales.get(name) ?? locales.get(name.replace('-', '_')) ?? {},
    retrieveItem: (id: string) => {
      const found = item(id);
      if (found === undefined) throw new Error(`Cannot find entry with id '${id}'`);
      return found;
    },
  };
  const engine = new CSL.Engine(sys, xml, locale, true);
  engine.setOutputFormat('html');
  engine.opt.development_extensions.wrap_url_and_doi = false;
  return engine;
}
