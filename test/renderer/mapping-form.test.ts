// The mapping editor's model (renderer/src/lib/mapping-form.ts): rules ⇄ form, styles matched the way Word does.
import { describe, expect, test } from 'vitest';
import {
  formOf,
  matchStyle,
  otherKind,
  RULE_FIELDS,
  rulesOf,
  stylesOfKind,
} from '../../renderer/src/lib/mapping-form.ts';
import { describeWarning, plainMessage } from '../../renderer/src/lib/messages.ts';
import { groupWarnings } from '../../renderer/src/lib/warning-groups.ts';

const STYLES = [
  { name: 'Normal', id: 'Normal', type: 'paragraph' as const },
  { name: 'heading 1', id: 'Heading1', type: 'paragraph' as const },
  { name: 'Corp Body', id: 'CorpBody', type: 'paragraph' as const },
  { name: 'Corp Table', id: 'CorpTable', type: 'table' as const },
  { name: 'Strong', id: 'Strong', type: 'character' as const },
];

describe('mapping form', () => {
  test('one field per mapping key, each with the style type it needs', () => {
    expect(RULE_FIELDS.map((f) => f.key)).toEqual([
      'heading.1',
      'heading.2',
      'heading.3',
      'heading.4',
      'heading.5',
      'heading.6',
      'paragraph',
      'list_bullet',
      'list_ordered',
      'code_block',
      'blockquote',
      'table.style',
      'footnote_text',
      'bibliography',
      'caption',
      'definition_term',
      'definition',
      'title',
      'subtitle',
      'author',
      'date',
      'abstract',
      'inline_code',
      'link',
      'strong',
      'emphasis',
    ]);
    expect(RULE_FIELDS.find((f) => f.key === 'table.style')?.kind).toBe('table');
    // Footnote text is a paragraph style in OOXML; the inline elements take character styles.
    expect(RULE_FIELDS.find((f) => f.key === 'footnote_text')?.kind).toBe('paragraph');
    for (const key of ['inline_code', 'link', 'strong', 'emphasis'])
      expect(RULE_FIELDS.find((f) => f.key === key)?.kind).toBe('character');
    expect(stylesOfKind(STYLES, 'character').map((s) => s.name)).toEqual(['Strong']);
    // Common styles first (headings, body), then the template's own, A–Z (issue 16: the lists were raw A–Z).
    expect(stylesOfKind(STYLES, 'paragraph').map((s) => s.name)).toEqual(['heading 1', 'Normal', 'Corp Body']);
  });

  test('names match like Word: case and spaces ignored, ids accepted, the wrong type is no match', () => {
    expect(matchStyle(STYLES, 'Heading 1', 'paragraph')?.id).toBe('Heading1');
    expect(matchStyle(STYLES, 'corp  body', 'paragraph')?.id).toBe('CorpBody');
    expect(matchStyle(STYLES, 'Heading1', 'paragraph')?.name).toBe('heading 1');
    expect(matchStyle(STYLES, 'Corp Table', 'paragraph')).toBeUndefined();
    expect(matchStyle(STYLES, 'Strong', 'paragraph')).toBeUndefined();
  });

  test('rules → form shows the template’s own names and keeps unknown ones; form → rules round-trips', () => {
    const rules = {
      heading: { '1': 'Heading 1' },
      paragraph: 'Old Body',
      table: { style: 'corp table', header_row: false },
    };
    const form = formOf(rules, STYLES);
    expect(form.values['heading.1']).toBe('heading 1');
    expect(form.values.paragraph).toBe('Old Body');
    expect(form.values['table.style']).toBe('Corp Table');
    expect(form.values.code_block).toBe('');
    expect(form.headerRow).toBe(false);
    expect(rulesOf(form)).toEqual({
      heading: { '1': 'heading 1' },
      paragraph: 'Old Body',
      table: { style: 'Corp Table', header_row: false },
    });
    expect(rulesOf(formOf(undefined, STYLES))).toEqual({ table: { header_row: true } });
  });

  test('character keys: a paragraph style named for one is of the wrong type; options round-trip, defaults left out', () => {
    expect(matchStyle(STYLES, 'Strong', 'character')?.id).toBe('Strong');
    expect(otherKind(STYLES, 'Corp Body', 'character')).toBe('paragraph');
    expect(otherKind(STYLES, 'Strong', 'character')).toBeUndefined();
    expect(otherKind(STYLES, 'Nowhere', 'character')).toBeUndefined();
    const form = formOf({ strong: 'strong', thematic_break: 'rule' }, STYLES);
    expect(form.values.strong).toBe('Strong');
    expect(form.options).toEqual({
      thematic_break: 'rule',
      task_list: 'plain',
      code_highlighting: 'on',
      math: 'dollars',
      comments: 'drop',
    });
    form.options.task_list = 'checkbox';
    form.options.code_highlighting = 'off';
    form.options.comments = 'word';
    expect(rulesOf(form)).toEqual({
      strong: 'Strong',
      table: { header_row: true },
      thematic_break: 'rule',
      task_list: 'checkbox',
      code_highlighting: 'off',
      comments: 'word',
    });
    form.options.thematic_break = 'page_break';
    expect(rulesOf(form)).not.toHaveProperty('thematic_break');
  });
});

describe('messages in plain words', () => {
  test('API errors become sentences without codes or JSON', () => {
    expect(
      plainMessage(
        429,
        'rate_limit_exceeded',
        'The monthly quota of 20 conversions is used up; it resets on 2026-12-01T00:00:00.000Z.',
      ),
    ).toBe('This month’s 20 conversions are used; more on December 1.');
    expect(plainMessage(422, 'validation_error', 'file is not a Word document')).toBe(
      'Something in the request is not right: file is not a Word document.',
    );
    expect(plainMessage(500, 'internal_error', 'Server error')).toMatch(/^Docwright ran into a problem on its side/);
    expect(plainMessage(0, 'unreachable', '')).toMatch(/not answering/);
  });

  test('warning codes are described', () => {
    expect(describeWarning('missing_style: Corp Quote')).toBe(
      'The template has no style “Corp Quote”; Word’s built-in formatting was used instead.',
    );
    expect(describeWarning('list_depth_exceeded: 5')).toMatch(/deeper than Word’s 9 levels/);
    expect(describeWarning('something_new: x')).toBe('something_new: x');
    expect(describeWarning('front_matter_truncated: abstract (its first 20000 characters are printed)')).toBe(
      'The front matter’s abstract (its first 20000 characters are printed); the rest was left out.',
    );
    expect(describeWarning('math_unsupported: \\foo')).toBe(
      'A formula (\\foo) could not be read as TeX and was kept as written.',
    );
    const [group] = groupWarnings({
      warnings: ['math_unsupported: \\foo'],
      warning_details: [{ warning: 'math_unsupported: \\foo', line: 7, count: 2 }],
    });
    expect(group?.text).toMatch(/^2 formulas \(\\foo; first on line 7\) could not be read as TeX/);
  });
});
