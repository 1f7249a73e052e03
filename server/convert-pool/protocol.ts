import type { ConversionStats, MappingRules } from '../convert/index.ts';

/** A conversion sent to a worker. The template's bytes come only when the worker does not hold that key yet. */
export interface JobMessage {
  id: number;
  markdown: string;
  mapping: MappingRules;
  created: Date;
  templateKey: string;
  templateBytes?: Uint8Array;
  /** Template keys the worker must forget (the pool mirrors each worker's cache, so it knows what to send). */
  evict: string[];
}

/** Why a conversion failed inside the worker. */
export type FailureKind =
  /** The engine refused the input (ConvertInputError). */
  | 'input'
  /** The input exhausted a limit of the engine itself (the stack, a string's length). */
  | 'too_complex'
  /** Anything else: a bug. */
  | 'internal';

/** Sent once by a worker when its code is loaded: a conversion's time limit runs from then, not from the start. */
export interface ReadyMessage {
  ready: true;
}

export type ResultMessage =
  | { id: number; ok: true; docx: Uint8Array; warnings: string[]; stats: ConversionStats }
  | { id: number; ok: false; kind: FailureKind; code?: string; message: string };
