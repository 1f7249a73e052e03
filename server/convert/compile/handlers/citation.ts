import { FootnoteReferenceRun, Paragraph, Tab, TextRun, type FileChild, type ParagraphChild } from 'docx';
import { docxText } from '../../braces.ts';
import { cslRuns } from '../../citations/html.ts';
import type { Citation } from '../../citations/index.ts';
import type { State } from '../state.ts';

/** Formatted CSL text (html.ts) as runs in the current inline formatting, CSL's own italics and the like on top. */
function formatted(state: State, html: string): ParagraphChild[] {
  return cslRuns(html).map((run) => {
    const { text, ...look } = run;
    return state.withInline(look, () => {
      if (!text.includes('\t')) return state.run(text);
      // A numeric bibliography's label and its entry: a real tab (w:tab), as the hanging indent expects.
      const children = text.split('\t').flatMap((piece, k) => [...(k > 0 ? [new Tab()] : []), docxText(piece)]);
      return new TextRun({ children, ...state.runFormatting() });
    });
  });
}

/** A citation as its style formats it; one whose key the bibliography lacks stays as written (warned by format.ts). */
export function citation(state: State, node: Citation): ParagraphChild[] {
  const html = state.citations?.texts.get(node);
  if (html === undefined) return [state.run(node.value)];
  // A note style's citation (`[@key]`, not a narrative `@key`) is a footnote of its own, as pandoc makes it; inside a
  // footnote (Word has none there) it is printed in the note's text.
  if (state.citations?.note && node.mode === 'normal' && !state.inFootnote) {
    const footnoteId = state.nextFootnoteId();
    state.isolated({ inFootnote: true }, () => {
      state.footnotes[footnoteId] = { children: [state.paragraph('footnote', formatted(state, html))] };
    });
    return [new FootnoteReferenceRun(footnoteId)];
  }
  return formatted(state, html);
}

/** The bibliography's entries, a paragraph each in the mapped bibliography style (or the template's "Bibliography"). */
export function bibliography(state: State): FileChild[] {
  const citations = state.citations;
  if (!citations || citations.suppressBibliography) return [];
  state.bibliographyPlaced = true;
  return citations.bibliography.map(
    (entry) => new Paragraph({ style: state.styles.bibliography, children: formatted(state, entry) }),
  );
}

/** The words of a bibliography's heading in the languages the bundled CSL locales have. */
const REFERENCES: Record<string, string> = {
  de: 'Literatur',
  fr: 'Références',
  es: 'Referencias',
  nl: 'Referenties',
};

/**
 * The bibliography at the end of a document that has no `::: {#refs}` div: under a first-level heading, the front
 * matter's `reference-section-title` or "References" (in the document's language); under the document's own last
 * heading where it ends with one (`# References`, as pandoc documents do), with none added.
 */
export function bibliographyAtEnd(state: State, endsWithHeading = false): FileChild[] {
  const citations = state.citations;
  if (!citations || state.bibliographyPlaced || citations.suppressBibliography) return [];
  if (citations.bibliography.length === 0) return [];
  if (endsWithHeading) return bibliography(state);
  const lang = (state.properties.language ?? state.templateLanguage ?? 'en').slice(0, 2).toLowerCase();
  const title = citations.title ?? REFERENCES[lang] ?? 'References';
  const style = state.styles.heading['1'];
  const heading = style
    ? // Unnumbered (numId 0) under number_sections, as pandoc marks its references heading.
      new Paragraph({
        style,
        ...(state.headingNumbers.asked ? { numbering: false } : {}),
        children: [state.run(title)],
      })
    : new Paragraph({
        outlineLevel: 0,
        keepNext: true,
        spacing: { before: 240, after: 120 },
        children: [state.withInline({ bold: true, size: 32 }, () => state.run(title))],
      });
  return [heading, ...bibliography(state)];
}
