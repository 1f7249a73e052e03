import { InvalidArgumentError } from 'commander';
import type { Dialect } from '../convert/index.ts';

/** The names --from takes: the dialects, and pandoc's own name for its dialect, `markdown`. */
const FROM: Readonly<Record<string, Dialect>> = { gfm: 'gfm', pandoc: 'pandoc', markdown: 'pandoc' };

/** Parses --from (docs/cli.md): gfm, pandoc or markdown (pandoc's). */
export function parseFrom(value: string): Dialect {
  const dialect = Object.hasOwn(FROM, value) ? FROM[value] : undefined;
  if (!dialect) throw new InvalidArgumentError("must be gfm, pandoc or markdown (pandoc's name for its dialect)");
  return dialect;
}
