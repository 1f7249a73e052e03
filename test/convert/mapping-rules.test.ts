import { describe, expect, it } from 'vitest';
import { checkRules } from '../../server/convert/index.ts';
import { ELEMENT_OPTIONS } from '../../server/convert/element-options.ts';
import { RulesSchema as EngineRulesSchema } from '../../server/convert/mapping.ts';
import { RulesSchema } from '../../server/schemas/index.ts';

// The rules of a style mapping have one schema (issue 31): the engine checks rules with it, the REST API and MCP
// validate and document them with it. These are the errors users see (the API's 422, the CLI's "Invalid mapping:",
// the policy's seed warnings), word for word.

const LIST =
  'heading, paragraph, list_bullet, list_ordered, code_block, blockquote, table, footnote_text, bibliography, caption, definition_term, definition, title, subtitle, author, date, abstract, inline_code, link, strong, emphasis, thematic_break, task_list, math, code_highlighting';

describe('checkRules', () => {
  it('is the REST API’s Rules schema', () => {
    expect(EngineRulesSchema).toBe(RulesSchema);
  });

  it('accepts every key, and gives back the same rules', () => {
    const rules = {
      heading: { '1': 'Heading 1', '6': 'Heading 6' },
      paragraph: 'Body Text',
      list_bullet: 'List Bullet',
      list_ordered: 'List Number',
      code_block: 'Source Code',
      blockquote: 'Quote',
      table: { style: 'Table Grid', header_row: false },
      footnote_text: 'footnote text',
      caption: 'Caption',
      title: 'Title',
      subtitle: 'Subtitle',
      author: 'Author',
      date: 'Date',
      abstract: 'Abstract',
      inline_code: 'Verbatim Char',
      link: 'Hyperlink',
      strong: 'Strong',
      emphasis: 'Emphasis',
      thematic_break: 'rule',
      task_list: 'checkbox',
    };
    const checked = checkRules(rules);
    expect(checked).toEqual({ ok: true, rules });
    expect(checked.ok && checked.rules).not.toBe(rules);
    expect(checkRules({})).toEqual({ ok: true, rules: {} });
    expect(checkRules({ heading: {}, table: {} })).toEqual({ ok: true, rules: { heading: {}, table: {} } });
  });

  it.each([
    ['not an object', [], ['rules must be an object']],
    ['null', null, ['rules must be an object']],
    ['a string', 'Heading 1', ['rules must be an object']],
    ['an unknown key', { headings: {} }, [`rules.headings is not a known key; use ${LIST}`]],
    [
      'heading not an object',
      { heading: 'Heading 1' },
      ['rules.heading must be an object keyed by heading level ("1" to "6")'],
    ],
    [
      'heading an array',
      { heading: ['Heading 1'] },
      ['rules.heading must be an object keyed by heading level ("1" to "6")'],
    ],
    [
      'a heading level 7',
      { heading: { '7': 'Heading 7' } },
      ['rules.heading.7 is not a heading level; use "1" to "6"'],
    ],
    ['a heading style a number', { heading: { '1': 1 } }, ['rules.heading.1 must be a style name (a string)']],
    ['an empty style name', { paragraph: '' }, ['rules.paragraph must be a style name of 1 to 253 characters']],
    ['a blank style name', { paragraph: ' \t ' }, ['rules.paragraph must be a style name of 1 to 253 characters']],
    [
      'a style name too long',
      { strong: 'x'.repeat(254) },
      ['rules.strong must be a style name of 1 to 253 characters'],
    ],
    [
      'a control character',
      { caption: 'Cap\u0007tion' },
      ['rules.caption must not contain control characters or unpaired surrogates (invalid UTF-16)'],
    ],
    [
      'an unpaired surrogate',
      { heading: { '2': 'H\ud800' } },
      ['rules.heading.2 must not contain control characters or unpaired surrogates (invalid UTF-16)'],
    ],
    ['table not an object', { table: 'Table Grid' }, ['rules.table must be an object with "style" and "header_row"']],
    [
      'table header_row not boolean',
      { table: { header_row: 'yes' } },
      ['rules.table.header_row must be true or false'],
    ],
    ['table style a number', { table: { style: 3 } }, ['rules.table.style must be a style name (a string)']],
    [
      'an unknown table key',
      { table: { styles: 'Table Grid' } },
      ['rules.table.styles is not a known key; use "style" and "header_row"'],
    ],
    ['an unknown option value', { task_list: 'box' }, ['rules.task_list must be one of "plain", "checkbox"']],
    [
      'an option not a string',
      { thematic_break: true },
      ['rules.thematic_break must be one of "page_break", "rule", "none"'],
    ],
    [
      'several problems, in the order of the keys',
      { title: 5, heading: { '0': 'H', '1': '' }, foo: 1, table: { header_row: 1, x: 2 } },
      [
        'rules.title must be a style name (a string)',
        'rules.heading.0 is not a heading level; use "1" to "6"',
        'rules.heading.1 must be a style name of 1 to 253 characters',
        `rules.foo is not a known key; use ${LIST}`,
        'rules.table.header_row must be true or false',
        'rules.table.x is not a known key; use "style" and "header_row"',
      ],
    ],
  ])('refuses %s, saying where', (_case, value, errors) => {
    expect(checkRules(value)).toEqual({ ok: false, errors });
  });

  it('counts a style name’s characters as JSON Schema does, by code point (the hand check counted UTF-16 units)', () => {
    expect(checkRules({ strong: '𝐁'.repeat(253) })).toEqual({ ok: true, rules: { strong: '𝐁'.repeat(253) } });
    expect(checkRules({ strong: '𝐁'.repeat(254) })).toEqual({
      ok: false,
      errors: ['rules.strong must be a style name of 1 to 253 characters'],
    });
  });

  it('names the field under the prefix it is given', () => {
    expect(checkRules({ heading: { '9': 'H' } }, 'mappings[2].rules')).toEqual({
      ok: false,
      errors: ['mappings[2].rules.heading.9 is not a heading level; use "1" to "6"'],
    });
  });

  it('checks the shape only with characters: false (mappings stored before the name rule still load)', () => {
    expect(checkRules({ paragraph: 'Body\u0007' }, 'rules', { characters: false })).toEqual({
      ok: true,
      rules: { paragraph: 'Body\u0007' },
    });
    expect(checkRules({ paragraph: ' ' }, 'rules', { characters: false })).toEqual({
      ok: false,
      errors: ['rules.paragraph must be a style name of 1 to 253 characters'],
    });
  });
});

describe('the Rules schema', () => {
  it('offers the values of each element option', () => {
    const values = (key: 'thematic_break' | 'task_list') =>
      (RulesSchema.properties[key] as unknown as { anyOf: { const: string }[] }).anyOf.map((v) => v.const);
    expect(values('thematic_break')).toEqual([...ELEMENT_OPTIONS.thematic_break]);
    expect(values('task_list')).toEqual([...ELEMENT_OPTIONS.task_list]);
  });
});
