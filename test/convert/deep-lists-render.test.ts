// Lists to Word's nine levels and the task-list boxes as LibreOffice lays them out (PDF text with its layout): each
// level is indented further than the one above up to the ninth; the tenth stays at the ninth.
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { pdfText } from '../helpers/docx.ts';

const DEEP = Array.from({ length: 10 }, (_, i) => `${'  '.repeat(i)}- level${String(i + 1)}`).join('\n');

describe('deep lists in LibreOffice', () => {
  it('indents levels 1–9 one step each, level 10 like level 9; task boxes print', async () => {
    const markdown = `${DEEP}\n\n---\n\n- [ ] open task\n- [x] done task\n`;
    const { docx, warnings } = await convert({ markdown, mapping: { task_list: 'checkbox', thematic_break: 'rule' } });
    expect(warnings).toEqual(['list_depth_exceeded: 10']);
    const text = await pdfText(docx);
    const indent = (word: string) => {
      const line = text.split('\n').find((l) => new RegExp(`\\b${word}\\b`).test(l));
      if (line === undefined) throw new Error(`${word} is not in the PDF:\n${text}`);
      return line.search(/\S/);
    };
    const indents = Array.from({ length: 10 }, (_, i) => indent(`level${String(i + 1)}`));
    for (let i = 1; i < 9; i++) expect(indents[i], `level ${String(i + 1)}`).toBeGreaterThan(indents[i - 1] ?? 0);
    expect(indents[9]).toBe(indents[8]);
    expect(text).toMatch(/☐ open task/);
    expect(text).toMatch(/☒ done task/);
  });
});
