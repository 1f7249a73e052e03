/**
 * Deterministic generator of realistic markdown documents (CommonMark + GFM) of a target size in bytes.
 * Same seed and size → same bytes. Every document contains every construct the benchmark cares about:
 * headings h1–h4, inline bold/italic/strike/code/links, nested bullet and ordered lists (3 deep, one starting
 * at 5), task lists, nested blockquotes, fenced code, aligned GFM tables, images, footnotes and rules.
 */
import { crc32, deflateSync } from 'node:zlib';
import { mulberry32, type Rng } from './prng.ts';

const WORDS = [
  'the',
  'a',
  'of',
  'and',
  'to',
  'in',
  'for',
  'with',
  'on',
  'by',
  'from',
  'as',
  'is',
  'are',
  'was',
  'be',
  'that',
  'this',
  'each',
  'every',
  'some',
  'most',
  'which',
  'when',
  'while',
  'after',
  'before',
  'between',
  'without',
  'within',
  'document',
  'template',
  'style',
  'paragraph',
  'heading',
  'section',
  'table',
  'column',
  'row',
  'cell',
  'list',
  'item',
  'footnote',
  'reference',
  'image',
  'figure',
  'caption',
  'margin',
  'page',
  'font',
  'report',
  'draft',
  'review',
  'editor',
  'author',
  'reader',
  'version',
  'release',
  'change',
  'request',
  'budget',
  'quarter',
  'team',
  'customer',
  'contract',
  'policy',
  'process',
  'service',
  'server',
  'client',
  'request',
  'response',
  'latency',
  'throughput',
  'memory',
  'buffer',
  'parser',
  'compiler',
  'converter',
  'archive',
  'package',
  'schema',
  'field',
  'value',
  'record',
  'index',
  'query',
  'cache',
  'queue',
  'worker',
  'thread',
  'module',
  'function',
  'interface',
  'measure',
  'estimate',
  'deliver',
  'approve',
  'update',
  'describe',
  'explain',
  'compare',
  'convert',
  'render',
  'publish',
  'export',
  'import',
  'validate',
  'generate',
  'schedule',
  'monitor',
  'improve',
  'reduce',
  'increase',
  'quickly',
  'carefully',
  'usually',
  'rarely',
  'often',
  'already',
  'still',
  'again',
  'together',
  'separately',
  'new',
  'old',
  'large',
  'small',
  'final',
  'initial',
  'current',
  'previous',
  'next',
  'shared',
  'internal',
  'external',
  'optional',
  'required',
  'stable',
  'consistent',
  'readable',
  'precise',
  'annual',
  'monthly',
  'naïve',
  'café',
  'résumé',
  'façade',
  'über',
  'coöperate',
];

const TOPICS = [
  'Introduction',
  'Background',
  'Scope',
  'Requirements',
  'Architecture',
  'Data Model',
  'Interfaces',
  'Security',
  'Performance',
  'Deployment',
  'Operations',
  'Testing',
  'Risks',
  'Timeline',
  'Budget',
  'Glossary',
  'Appendix',
  'Migration Plan',
  'Open Questions',
  'Decisions',
  'Results',
  'Discussion',
  'Methodology',
  'Summary',
];

const DOMAINS = ['example.com', 'docs.example.org', 'intranet.example.net', 'wiki.example.com'];
const LANGS = ['ts', 'json', 'bash', 'python', 'yaml', 'sql', ''] as const;
const IDENTIFIERS = [
  'convert',
  'readTemplate',
  'options',
  'result',
  'buffer',
  'config',
  'count',
  'items',
  'user',
  'retry',
];

class Writer {
  readonly rng: Rng;
  private footnote = 0;
  private figure = 0;

  constructor(rng: Rng) {
    this.rng = rng;
  }

  word(): string {
    return this.rng.pick(WORDS);
  }

  words(min: number, max: number): string {
    const n = this.rng.int(min, max);
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.word());
    return out.join(' ');
  }

  title(): string {
    const t = this.words(1, 4).replace(/(^|\s)(\p{L})/gu, (_m, s: string, c: string) => s + c.toUpperCase());
    return `${this.rng.pick(TOPICS)}: ${t}`;
  }

  url(): string {
    return `https://${this.rng.pick(DOMAINS)}/${this.word()}/${this.word()}-${this.rng.int(1, 999)}`;
  }

  /** One inline span: plain words, or words in a mark-up. */
  span(): string {
    const r = this.rng.next();
    if (r < 0.72) return this.words(2, 7);
    if (r < 0.78) return `**${this.words(1, 3)}**`;
    if (r < 0.84) return this.rng.chance(0.5) ? `*${this.words(1, 3)}*` : `_${this.words(1, 3)}_`;
    if (r < 0.86) return `~~${this.words(1, 2)}~~`;
    if (r < 0.91) return `\`${this.rng.pick(IDENTIFIERS)}${this.rng.chance(0.5) ? '()' : ''}\``;
    if (r < 0.96) return `[${this.words(1, 3)}](${this.url()})`;
    if (r < 0.975) return `***${this.words(1, 2)}***`;
    if (r < 0.985) return `**${this.words(1, 2)} *${this.words(1, 2)}* ${this.word()}**`;
    return `<${this.url()}>`;
  }

  sentence(): string {
    const parts: string[] = [];
    const n = this.rng.int(2, 4);
    for (let i = 0; i < n; i++) parts.push(this.span());
    let s = parts.join(' ');
    s = s.replace(/^(\p{Ll})/u, (c) => c.toUpperCase());
    return s + this.rng.pick(['.', '.', '.', '.', '.', '?', '!']);
  }

  /** A paragraph, possibly with footnote references; the footnote definitions follow it. */
  paragraph(min = 2, max = 6, footnotes = true): string {
    const sentences: string[] = [];
    const defs: string[] = [];
    const n = this.rng.int(min, max);
    for (let i = 0; i < n; i++) {
      let s = this.sentence();
      if (footnotes && this.rng.chance(0.06)) {
        const id = `n${++this.footnote}`;
        s = s.slice(0, -1) + `[^${id}]` + s.slice(-1);
        defs.push(`[^${id}]: ${this.sentence()}`);
      }
      sentences.push(s);
    }
    let text = sentences.join(' ');
    if (this.rng.chance(0.3)) text = wrap(text, 100);
    return defs.length ? `${text}\n\n${defs.join('\n\n')}` : text;
  }

  short(): string {
    return this.paragraph(1, 1, false);
  }

  heading(level: number): string {
    return `${'#'.repeat(level)} ${level === 1 ? this.title() : this.words(2, 6).replace(/^(\p{Ll})/u, (c) => c.toUpperCase())}`;
  }

  image(): string {
    const n = ++this.figure;
    const alt = `Figure ${n}: ${this.words(2, 5)}`;
    return this.rng.chance(0.5)
      ? `![${alt}](images/figure-${n}.png)`
      : `![${alt}](images/figure-${n}.png "${this.words(1, 3)}")`;
  }

  /** A list, nested up to `depth` levels (3 = three levels). */
  list(kind: 'bullet' | 'ordered' | 'task' | 'mixed', depth: number, start = 1, indent = ''): string {
    const lines: string[] = [];
    const n = this.rng.int(2, 5);
    const ordered = kind === 'ordered' || (kind === 'mixed' && this.rng.chance(0.5));
    const bullet = this.rng.pick(['-', '*', '+']);
    for (let i = 0; i < n; i++) {
      const marker = ordered ? `${start + i}.` : bullet;
      const task = kind === 'task' ? (this.rng.chance(0.4) ? '[x] ' : '[ ] ') : '';
      lines.push(`${indent}${marker} ${task}${this.rng.chance(0.7) ? this.words(2, 8) : this.sentence()}`);
      if (depth > 1 && (i === 0 || this.rng.chance(0.35))) {
        const childKind = kind === 'task' ? 'task' : kind === 'mixed' ? 'mixed' : this.rng.chance(0.3) ? 'mixed' : kind;
        const childIndent = indent + ' '.repeat(marker.length + 1);
        lines.push(this.list(childKind, depth - 1, 1, childIndent));
      }
    }
    return lines.join('\n');
  }

  /** A blockquote; nested quotes up to `depth` levels. */
  quote(depth: number): string {
    const body: string[] = [this.paragraph(1, 3, false)];
    if (this.rng.chance(0.3)) body.push(this.list('bullet', 1));
    if (depth > 1) body.push(this.quote(depth - 1));
    if (this.rng.chance(0.4)) body.push(`— ${this.words(1, 3)}`);
    return body
      .join('\n\n')
      .split('\n')
      .map((line) => (line ? `> ${line}` : '>'))
      .join('\n');
  }

  code(language?: (typeof LANGS)[number]): string {
    const lang = language ?? this.rng.pick(LANGS);
    const n = this.rng.int(3, 14);
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(this.codeLine(lang, i));
    const fence = this.rng.chance(0.85) ? '```' : '~~~';
    return `${fence}${lang}\n${lines.join('\n')}\n${fence}`;
  }

  private codeLine(lang: string, i: number): string {
    const id = this.rng.pick(IDENTIFIERS);
    const pad = '  '.repeat(this.rng.int(0, 2));
    switch (lang) {
      case 'ts':
        return `${pad}const ${id}${i} = await ${this.rng.pick(IDENTIFIERS)}(${JSON.stringify(this.word())}, { retries: ${this.rng.int(0, 9)} });`;
      case 'json':
        return `${pad}"${id}${i}": ${this.rng.chance(0.5) ? this.rng.int(0, 5000) : JSON.stringify(this.words(1, 3))},`;
      case 'bash':
        return `${pad}docwright convert ${this.word()}-${i}.md -o out/${this.word()}.docx --template ${this.word()}.docx`;
      case 'python':
        return `${pad}${id}_${i} = ${this.rng.pick(IDENTIFIERS)}(${JSON.stringify(this.word())}, limit=${this.rng.int(1, 100)})  # ${this.words(1, 4)}`;
      case 'yaml':
        return `${pad}${id}${i}: ${this.words(1, 3)}`;
      case 'sql':
        return `SELECT ${id}, count(*) FROM ${this.word()}_${i} WHERE ${this.word()} > ${this.rng.int(1, 99)} GROUP BY ${id};`;
      default:
        return `${pad}${this.words(3, 9)} <${this.word()}> & ${this.rng.int(0, 99)} * ${this.word()}`;
    }
  }

  table(): string {
    const cols = this.rng.int(3, 6);
    const rows = this.rng.int(3, 12);
    const aligns = [':---', ':---:', '---:', '---'];
    const header: string[] = [];
    const sep: string[] = [];
    for (let c = 0; c < cols; c++) {
      header.push(this.words(1, 2).replace(/^(\p{Ll})/u, (x) => x.toUpperCase()));
      sep.push(c === 0 ? ':---' : this.rng.pick(aligns));
    }
    const out = [`| ${header.join(' | ')} |`, `| ${sep.join(' | ')} |`];
    for (let r = 0; r < rows; r++) {
      const cells: string[] = [];
      for (let c = 0; c < cols; c++) {
        const x = this.rng.next();
        if (c > 0 && x < 0.35) cells.push(String(this.rng.int(0, 99999) / 100));
        else if (x < 0.45) cells.push(`\`${this.rng.pick(IDENTIFIERS)}\``);
        else if (x < 0.52) cells.push(`**${this.words(1, 2)}**`);
        else if (x < 0.56) cells.push(`[${this.word()}](${this.url()})`);
        else if (x < 0.58) cells.push('');
        else cells.push(this.words(1, 4));
      }
      out.push(`| ${cells.join(' | ')} |`);
    }
    return out.join('\n');
  }

  rule(): string {
    return this.rng.pick(['---', '***', '___', '- - -']);
  }

  /** The construct tour every document starts with, so that even the smallest one covers everything. */
  tour(): string[] {
    return [
      this.heading(1),
      this.paragraph(3, 4),
      this.heading(2),
      `${this.sentence()} **${this.words(1, 3)}**, *${this.words(1, 3)}*, ~~${this.words(1, 2)}~~, \`convert()\` and [a link](${this.url()}).[^tour]`,
      `[^tour]: ${this.sentence()}`,
      this.heading(3),
      this.list('bullet', 3),
      this.list('ordered', 3, 5),
      this.list('task', 2),
      this.quote(2),
      this.heading(4),
      this.code(),
      this.table(),
      this.image(),
      this.rule(),
    ];
  }

  /** One block of the body, chosen with realistic frequencies. */
  block(): string {
    const r = this.rng.next();
    if (r < 0.42) return this.paragraph();
    if (r < 0.5) return this.heading(this.rng.pick([2, 3, 3, 4, 4]));
    if (r < 0.58)
      return this.list(
        this.rng.pick(['bullet', 'bullet', 'ordered', 'mixed']),
        this.rng.int(1, 3),
        this.rng.chance(0.15) ? 5 : 1,
      );
    if (r < 0.61) return this.list('task', this.rng.int(1, 2));
    if (r < 0.67) return this.quote(this.rng.int(1, 3));
    if (r < 0.76) return this.code();
    if (r < 0.84) return this.table();
    if (r < 0.9) return this.rng.chance(0.6) ? this.image() : `${this.sentence()} ${this.image()} ${this.sentence()}`;
    if (r < 0.93) return this.rule();
    return `${this.heading(2)}\n\n${this.paragraph(1, 3)}`;
  }
}

/** Re-wraps text at about `width` columns (soft line breaks), never inside a word. */
function wrap(text: string, width: number): string {
  const out: string[] = [];
  let line = '';
  for (const w of text.split(' ')) {
    if (line && line.length + 1 + w.length > width) {
      out.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) out.push(line);
  return out.join('\n');
}

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** Generates a markdown document of `targetBytes` ± 3 % (UTF-8 bytes), deterministic for a seed. */
export function generateMarkdown(targetBytes: number, seed = 0x5eed): string {
  const w = new Writer(mulberry32(seed ^ targetBytes));
  const blocks: string[] = [];
  let size = 0;
  const add = (block: string): void => {
    size += bytes(block) + (blocks.length ? 2 : 0);
    blocks.push(block);
  };
  for (const block of w.tour()) add(block);
  const low = targetBytes * 0.99;
  const high = targetBytes * 1.01;
  while (size < low) {
    const block = w.block();
    if (size + bytes(block) + 2 <= high) add(block);
    else if (size + 200 > high) break;
    else {
      const filler = w.short();
      if (size + bytes(filler) + 2 <= high) add(filler);
    }
  }
  return `${blocks.join('\n\n')}\n`;
}

/** The images a mixed document (generateMixedMarkdown) shows: PNG files in its folder's `images/`. */
export const MIXED_IMAGES = ['images/chart.png', 'images/photo.png', 'images/diagram.png', 'images/icon.png'];

/**
 * A document of headings, lists, tables, code, links and images (issue 31's second document for the command line),
 * of `targetBytes` ± 3 %: each image is one of MIXED_IMAGES (write them with pngImage beside it).
 */
export function generateMixedMarkdown(targetBytes: number, seed = 0x1dea): string {
  const w = new Writer(mulberry32(seed ^ targetBytes));
  const image = (): string => {
    const file = w.rng.pick(MIXED_IMAGES);
    return `![${w.words(2, 5)}](${file})`;
  };
  const links = (): string =>
    `${w.sentence()} See [${w.words(1, 3)}](${w.url()}), [${w.words(1, 2)}](${w.url()} "${w.words(1, 3)}") and <${w.url()}>.`;
  const pick = (): string => {
    const r = w.rng.next();
    if (r < 0.18) return w.heading(w.rng.pick([2, 3, 3, 4]));
    if (r < 0.36) return w.list(w.rng.pick(['bullet', 'ordered', 'mixed']), w.rng.int(1, 3));
    if (r < 0.52) return w.table();
    if (r < 0.66) return w.code();
    if (r < 0.84) return links();
    if (r < 0.92) return image();
    return w.paragraph(1, 2, false);
  };
  const blocks: string[] = [w.heading(1), links(), w.list('bullet', 2), w.table(), w.code(), image()];
  let size = blocks.reduce((sum, block) => sum + bytes(block) + 2, 0);
  const high = targetBytes * 1.01;
  while (size < targetBytes * 0.99) {
    const block = pick();
    if (size + bytes(block) + 2 > high) {
      if (size + 200 > high) break;
      continue;
    }
    blocks.push(block);
    size += bytes(block) + 2;
  }
  return `${blocks.join('\n\n')}\n`;
}

/** The languages of the highlighting document's code (generateCodeMarkdown). */
export const CODE_LANGUAGES = ['ts', 'python', 'bash', 'json', 'sql'] as const;

/**
 * Issue 33's highlighting document: `blocks` fenced code blocks, in turn in each of CODE_LANGUAGES, spread evenly
 * through the bench document's other blocks (paragraphs, headings, lists, quotes, tables), `targetBytes` ± 3 % in all.
 */
export function generateCodeMarkdown(targetBytes: number, blocks = 50, seed = 0xc0de): string {
  const w = new Writer(mulberry32(seed ^ targetBytes));
  const out: string[] = [w.heading(1)];
  let size = bytes(out[0] ?? '');
  const add = (block: string): void => {
    out.push(block);
    size += bytes(block) + 2;
  };
  for (let k = 0; k < blocks; k++) {
    add(w.code(CODE_LANGUAGES[k % CODE_LANGUAGES.length]));
    const until = (targetBytes * (k + 1)) / blocks;
    while (size < until * 0.99) {
      const block = w.block();
      if (/^(```|~~~)/.test(block)) continue;
      if (size + bytes(block) + 2 > until * 1.01) {
        if (size + 200 > until * 1.01) break;
        continue;
      }
      add(block);
    }
  }
  return `${out.join('\n\n')}\n`;
}

/** A small PNG (8-bit RGB) of WIDTH x HEIGHT pixels, bands of colour from SEED: deterministic. */
export function pngImage(width: number, height: number, seed: number): Uint8Array {
  const rng = mulberry32(seed);
  const colours = Array.from({ length: 4 }, () => [rng.int(0, 255), rng.int(0, 255), rng.int(0, 255)]);
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) {
      const colour = colours[(Math.floor(x / 8) + Math.floor(y / 8)) % colours.length] ?? [0, 0, 0];
      raw.set(colour, row + 1 + x * 3);
    }
  }
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
