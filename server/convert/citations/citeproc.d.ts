// citeproc-js (the package `citeproc`) has no types of its own: the part of its public API the conversion uses.
declare module 'citeproc' {
  interface Engine {
    updateItems(ids: string[]): void;
    makeCitationCluster(items: Record<string, unknown>[]): string;
    makeBibliography(): false | [{ bibliography_errors: unknown[] }, string[]];
    setOutputFormat(format: string): void;
    opt: { development_extensions: { wrap_url_and_doi: boolean } };
  }
  const CSL: {
    Engine: new (
      sys: { retrieveLocale(name: string): unknown; retrieveItem(id: string): unknown },
      style: string,
      lang?: string,
      forceLang?: boolean,
    ) => Engine;
  };
  export default CSL;
}
