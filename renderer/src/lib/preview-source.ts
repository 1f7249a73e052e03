// The page's side of the preview worker (preview-worker.ts): the .docx goes in once; its pieces, each a small .docx
// of a few pages' worth of the body, come out one at a time as the preview asks for them.
import { markPageFields } from './preview-fields.ts';
import { drawablePiece } from './preview-math.ts';

export type ToWorker =
  | { kind: 'open'; bytes: Uint8Array }
  | { kind: 'marked'; parts: Record<string, Uint8Array> }
  | { kind: 'piece'; index: number };

export type FromWorker =
  | { kind: 'opened'; parts: Record<string, Uint8Array>; pieces: number; text: number }
  | { kind: 'piece'; index: number; bytes: Uint8Array; text: number }
  | { kind: 'failed'; message: string };

/** One piece of the document: a .docx of some of its blocks, and the characters of text they hold. */
export interface Piece {
  bytes: Uint8Array;
  text: number;
}

/** A .docx opened in a worker for the preview; `close()` ends the worker at once, wherever it is. */
export class PreviewSource {
  private readonly worker = new Worker(new URL('./preview-worker.ts', import.meta.url), { type: 'module' });
  private waiting: { resolve: (m: FromWorker) => void; reject: (e: Error) => void } | null = null;
  /** How many pieces the document has, and its characters of text (set by `open`). */
  pieces = 0;
  text = 0;

  constructor() {
    this.worker.onmessage = (event: MessageEvent<FromWorker>) => {
      const waiting = this.waiting;
      this.waiting = null;
      waiting?.resolve(event.data);
    };
    this.worker.onerror = (event) => {
      const waiting = this.waiting;
      this.waiting = null;
      waiting?.reject(new Error(event.message || 'the preview could not read the document'));
    };
  }

  private ask(message: ToWorker, transfer: Transferable[] = []): Promise<FromWorker> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.worker.postMessage(message, transfer);
    });
  }

  /** Reads the .docx in the worker and marks its page fields here (headers and footers are small). */
  async open(bytes: Uint8Array): Promise<void> {
    const opened = await this.ask({ kind: 'open', bytes }, [bytes.buffer]);
    if (opened.kind === 'failed') throw new Error(opened.message);
    if (opened.kind !== 'opened') throw new Error('the preview worker answered out of turn');
    this.pieces = opened.pieces;
    this.text = opened.text;
    this.worker.postMessage({ kind: 'marked', parts: markPageFields(opened.parts) } satisfies ToWorker);
  }

  /** The piece `index` (0 ≤ index < pieces). */
  async piece(index: number): Promise<Piece> {
    const answer = await this.ask({ kind: 'piece', index });
    if (answer.kind === 'failed') throw new Error(answer.message);
    if (answer.kind !== 'piece') throw new Error('the preview worker answered out of turn');
    // Its equations as docx-preview can draw them (preview-math.ts), here where the page has a DOM.
    return { bytes: drawablePiece(answer.bytes), text: answer.text };
  }

  close(): void {
    this.worker.terminate();
    this.waiting?.reject(new Error('closed'));
    this.waiting = null;
  }
}
