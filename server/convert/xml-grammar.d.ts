// @xmldom/xmldom's grammar module (CommonJS, untyped): only what xml-regexps.ts uses.
declare module '@xmldom/xmldom/lib/grammar.js' {
  const grammar: { reg: (this: unknown, ...parts: (RegExp | string)[]) => RegExp };
  export default grammar;
}
