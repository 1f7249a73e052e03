import type {
  BibliographyInput,
  ConversionStats,
  Dialect,
  ImageInput,
  MappingRules,
  TemplateStyle,
  WarningDetail,
} from '../convert/index.ts';

/** A bibliography and a CSL style sent with the markdown (docs/captions-references.md). */
export interface CitationJobInput {
  /** Several: the command line's --bibliography files. */
  bibliography?: BibliographyInput | BibliographyInput[];
  csl?: string;
}

/** The key of the built-in template, which a job may send without its bytes: the worker has it prepared. */
export const BUILTIN_TEMPLATE_KEY = 'builtin';

/** A conversion sent to a worker. The template's bytes come only when the worker does not hold that key yet. */
export interface JobMessage {
  /** Absent in messages from before inspection existed: a conversion. */
  kind?: 'convert';
  id: number;
  markdown: string;
  /**
   * Checked in the worker (ConvertInputError); absent: the built-in mapping for the built-in template, and for any
   * other the rules its upload would get (suggestRules: the command line's template given without a mapping).
   */
  mapping?: MappingRules | { rules: MappingRules };
  created: Date;
  templateKey: string;
  templateBytes?: Uint8Array;
  /** Template keys the worker must forget (the pool mirrors each worker's cache, so it knows what to send). */
  evict: string[];
  /** Where the document's images come from (docs/images.md); absent: placeholders. */
  images?: ImageInput;
  /** Number the headings (the convert option `number_sections`); absent: as the front matter says. */
  numberSections?: boolean;
  /** The markdown dialect asked for; absent: the front matter's, else GFM. */
  dialect?: Dialect;
  /** The bibliography and style sent with the markdown; absent: the front matter's. */
  citations?: CitationJobInput;
  /** Where the worker stores the document (atomically, flushed to disk) before it answers; absent: nowhere. */
  output?: string;
  /** The temporary file it writes first (the pool names it, to remove it if the worker is ended mid-write). */
  outputTemp?: string;
}

/** Template keys a worker must forget now (a template replaced or deleted); no answer. */
export interface ForgetMessage {
  kind: 'forget';
  keys: string[];
}

/** An uploaded or stored template to read, check and sanitise off the main thread, under the pool's limits. */
export interface InspectMessage {
  kind: 'inspect';
  id: number;
  bytes: Uint8Array;
}

/** Why a conversion failed inside the worker. */
export type FailureKind =
  /** The engine refused the input (ConvertInputError). */
  | 'input'
  /** The input exhausted a limit of the engine itself (the stack, a string's length). */
  | 'too_complex'
  /** The document was made but could not be stored at the job's `output` (`code`: the system's, e.g. ENOSPC). */
  | 'storage'
  /** Anything else: a bug. */
  | 'internal';

/** Sent once by a worker when its code is loaded: a conversion's time limit runs from then, not from the start. */
export interface ReadyMessage {
  ready: true;
  /** The worker's thread id on Linux (its CPU time is read from /proc/self/task/TID/stat), else absent. */
  tid?: number;
}

export type ResultMessage =
  | {
      id: number;
      ok: true;
      docx: Uint8Array;
      warnings: string[];
      warningDetails: WarningDetail[];
      stats: ConversionStats;
      /** With a template sent without a mapping: how many elements its styles matched (suggestRules). */
      matched?: { matched: number; of: number };
    }
  | { id: number; ok: false; kind: FailureKind; code?: string; message: string };

/** An inspected template: its styles, the sanitiser's warnings and, when it changed anything, the clean bytes. */
export type InspectResultMessage =
  | { id: number; ok: true; inspected: true; clean: Uint8Array | null; warnings: string[]; styles: TemplateStyle[] }
  | Extract<ResultMessage, { ok: false }>;
