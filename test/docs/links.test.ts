// Every relative link of README.md and docs/*.md leads somewhere: to a file of the checkout and, with a #fragment, to
// a heading of that file (its GitHub slug, as GitHub renders the page). Also: the README links each doc once, and
// docs/performance.md stays a short reference (issue 31).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const docs = readdirSync(join(root, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const documents = ['README.md', ...docs];
const text = (path: string): string => readFileSync(join(root, path), 'utf8');

/** The markdown without its fenced code blocks and inline code spans, where a `[x](y)` is no link. */
function prose(markdown: string): string {
  return markdown.replace(/^([ \t]*)(```|~~~)[^\n]*\n[\s\S]*?\n\1\2[ \t]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The anchors GitHub gives the headings of a markdown file. */
function anchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const found = new Set<string>();
  for (const line of prose(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading?.[1] !== undefined) found.add(slugger.slug(heading[1].replace(/`/g, '')));
  }
  return found;
}

/** The relative link targets of a markdown file (inline links and images; absolute URLs and mailto left out). */
function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

const cases = documents.flatMap((path) => links(text(path)).map((target): [string, string] => [path, target]));

describe('links between the docs', () => {
  it('are there to check', () => {
    expect(cases.length).toBeGreaterThan(20);
  });

  it.each(cases)('%s → %s leads to a file and heading', (from, target) => {
    const [file = '', fragment] = target.split('#');
    const path = file === '' ? from : relative(root, resolve(dirname(join(root, from)), decodeURI(file)));
    expect(existsSync(join(root, path)), `${from}: ${target}: no file ${path}`).toBe(true);
    if (fragment === undefined || fragment === '') return;
    expect(path.endsWith('.md'), `${from}: ${target}: a fragment into a file that is not markdown`).toBe(true);
    expect([...anchors(text(path))], `${from}: ${target}: no heading #${fragment} in ${path}`).toContain(
      decodeURIComponent(fragment),
    );
  });

  it('include every doc once in the README', () => {
    const linked = links(text('README.md')).map((target) => target.split('#')[0]);
    for (const doc of docs) expect(linked.filter((t) => t === doc).length, doc).toBe(1);
  });

  it('keep docs/performance.md a short reference (at most 250 lines)', () => {
    expect(text('docs/performance.md').split('\n').length).toBeLessThanOrEqual(250);
  });
});
