// Empty input: still a valid document (as pandoc makes it), with a warning every surface passes on.
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { validateDocx } from '../helpers/docx.ts';

describe('empty markdown', () => {
  it.each(['', '   ', '\n\n\t \n'])('%j gives a valid document and the warning empty_document', async (markdown) => {
    const result = await convert({ markdown });
    expect(result.warnings).toEqual(['empty_document: the markdown has no content']);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('is not said of a document with text', async () => {
    expect((await convert({ markdown: 'x' })).warnings).toEqual([]);
  });
});
