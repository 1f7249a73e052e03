// The languages fenced code is highlighted in: lowlight's `common` set (highlight.js's 37 most used), each grammar
// loaded only when a document has code in it. Names and aliases are highlight.js's own (test/convert/highlight.test.ts
// checks them against the grammars), so they are known before any grammar is loaded.
import type { LanguageFn } from 'highlight.js';
import type { Nodes } from 'mdast';

type Load = () => Promise<{ default: LanguageFn }>;

interface Language {
  aliases: readonly string[];
  load: Load;
  /** Languages its grammar embeds (an HTML page's CSS and script), loaded with it. */
  embeds?: readonly string[];
}

/** Every language highlighted, by highlight.js's name. */
export const LANGUAGES: Readonly<Record<string, Language>> = {
  arduino: { aliases: ['ino'], load: () => import('highlight.js/lib/languages/arduino') },
  bash: { aliases: ['sh', 'zsh'], load: () => import('highlight.js/lib/languages/bash') },
  c: { aliases: ['h'], load: () => import('highlight.js/lib/languages/c') },
  cpp: {
    aliases: ['cc', 'c++', 'h++', 'hpp', 'hh', 'hxx', 'cxx'],
    load: () => import('highlight.js/lib/languages/cpp'),
  },
  csharp: { aliases: ['cs', 'c#'], load: () => import('highlight.js/lib/languages/csharp') },
  css: { aliases: [], load: () => import('highlight.js/lib/languages/css') },
  diff: { aliases: ['patch'], load: () => import('highlight.js/lib/languages/diff') },
  go: { aliases: ['golang'], load: () => import('highlight.js/lib/languages/go') },
  graphql: { aliases: ['gql'], load: () => import('highlight.js/lib/languages/graphql') },
  ini: { aliases: ['toml'], load: () => import('highlight.js/lib/languages/ini') },
  java: { aliases: ['jsp'], load: () => import('highlight.js/lib/languages/java') },
  javascript: {
    aliases: ['js', 'jsx', 'mjs', 'cjs'],
    load: () => import('highlight.js/lib/languages/javascript'),
    embeds: ['xml', 'css', 'graphql'],
  },
  json: { aliases: ['jsonc', 'json5'], load: () => import('highlight.js/lib/languages/json') },
  kotlin: { aliases: ['kt', 'kts'], load: () => import('highlight.js/lib/languages/kotlin') },
  less: { aliases: [], load: () => import('highlight.js/lib/languages/less') },
  lua: { aliases: ['pluto'], load: () => import('highlight.js/lib/languages/lua') },
  makefile: { aliases: ['mk', 'mak', 'make'], load: () => import('highlight.js/lib/languages/makefile') },
  markdown: {
    aliases: ['md', 'mkdown', 'mkd'],
    load: () => import('highlight.js/lib/languages/markdown'),
    embeds: ['xml'],
  },
  objectivec: {
    aliases: ['mm', 'objc', 'obj-c', 'obj-c++', 'objective-c++'],
    load: () => import('highlight.js/lib/languages/objectivec'),
  },
  perl: { aliases: ['pl', 'pm'], load: () => import('highlight.js/lib/languages/perl') },
  php: { aliases: [], load: () => import('highlight.js/lib/languages/php') },
  'php-template': {
    aliases: [],
    load: () => import('highlight.js/lib/languages/php-template'),
    embeds: ['xml', 'php'],
  },
  python: { aliases: ['py', 'gyp', 'ipython'], load: () => import('highlight.js/lib/languages/python') },
  'python-repl': {
    aliases: ['pycon'],
    load: () => import('highlight.js/lib/languages/python-repl'),
    embeds: ['python'],
  },
  r: { aliases: [], load: () => import('highlight.js/lib/languages/r') },
  ruby: {
    aliases: ['rb', 'gemspec', 'podspec', 'thor', 'irb'],
    load: () => import('highlight.js/lib/languages/ruby'),
  },
  rust: { aliases: ['rs'], load: () => import('highlight.js/lib/languages/rust') },
  scss: { aliases: [], load: () => import('highlight.js/lib/languages/scss') },
  shell: {
    aliases: ['console', 'shellsession'],
    load: () => import('highlight.js/lib/languages/shell'),
    embeds: ['bash'],
  },
  sql: { aliases: [], load: () => import('highlight.js/lib/languages/sql') },
  swift: { aliases: [], load: () => import('highlight.js/lib/languages/swift') },
  typescript: {
    aliases: ['ts', 'tsx', 'mts', 'cts'],
    load: () => import('highlight.js/lib/languages/typescript'),
    embeds: ['xml', 'css', 'graphql'],
  },
  vbnet: { aliases: ['vb'], load: () => import('highlight.js/lib/languages/vbnet') },
  wasm: { aliases: [], load: () => import('highlight.js/lib/languages/wasm') },
  xml: {
    aliases: ['html', 'xhtml', 'rss', 'atom', 'xjb', 'xsd', 'xsl', 'plist', 'wsf', 'svg'],
    load: () => import('highlight.js/lib/languages/xml'),
    embeds: ['css', 'javascript'],
  },
  yaml: { aliases: ['yml'], load: () => import('highlight.js/lib/languages/yaml'), embeds: ['ruby'] },
};

/** A fence's language (its info string's first word, any case) → the name of the language highlighted. */
const NAMES: ReadonlyMap<string, string> = new Map(
  Object.entries(LANGUAGES).flatMap(([name, language]) => [
    [name, name],
    ...language.aliases.map((alias): [string, string] => [alias, name]),
  ]),
);

/** The language a fence names, when it is one highlighted: `Python`, `py` → `python`; unknown, none → undefined. */
export function languageOf(lang: string | null | undefined): string | undefined {
  return lang ? NAMES.get(lang.toLowerCase()) : undefined;
}

/** The languages of the fenced code anywhere in a document (lists, quotes, footnotes), each with those it embeds. */
export function languagesIn(tree: Nodes): Set<string> {
  const found = new Set<string>();
  const add = (name: string): void => {
    if (found.has(name)) return;
    found.add(name);
    for (const embedded of LANGUAGES[name]?.embeds ?? []) add(embedded);
  };
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'code') {
      const name = languageOf(node.lang);
      if (name !== undefined) add(name);
    } else if ('children' in node && node.type !== 'paragraph' && node.type !== 'heading' && node.type !== 'table')
      for (const child of node.children) stack.push(child);
  }
  return found;
}
