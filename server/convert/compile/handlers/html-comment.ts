import type { FileChild, ParagraphChild } from 'docx';
import type { HtmlComment } from '../../parse/html-comments.ts';
import { commentMarks, type State } from '../state.ts';

/** A comment between blocks (`comments: "word"`): a Word comment at the start of the next paragraph. */
export function htmlCommentBlock(state: State, node: HtmlComment): FileChild[] {
  state.deferComment(state.addComment(node.value));
  return [];
}

/** A comment inside a paragraph: a Word comment where it stood. */
export function htmlCommentInline(state: State, node: HtmlComment): ParagraphChild[] {
  return commentMarks(state.addComment(node.value));
}
