/** Limits on the images one conversion embeds (docs/images.md): the bytes are untrusted and bounded before parsing. */
export const IMAGE_LIMITS = {
  /** Largest image file read (10 MiB): bigger ones stay placeholders. */
  perImageBytes: 10 * 1024 * 1024,
  /** Largest SVG file rendered (2 MiB): rendering costs far more per byte than copying a bitmap. */
  svgBytes: 2 * 1024 * 1024,
  /** All images of one document together (50 MiB). */
  totalBytes: 50 * 1024 * 1024,
  /** Distinct image files one document embeds. */
  count: 200,
  /** Largest width or height a header may claim (pixels); beyond it the file is treated as hostile. */
  maxSide: 30_000,
  /** Most pixels a bitmap may have (60 megapixels: a 50 MP camera's photo): a small file that inflates to gigabytes
   * would stall or crash Word and LibreOffice when they open the document. */
  maxPixels: 60_000_000,
  /** Longest side of an SVG's PNG fallback at most (pixels): enough for print at the text width. */
  svgFallbackSide: 1600,
  /** Most pixels of an SVG's PNG fallback (2.5 megapixels): a 1600 × 1562 picture at most. */
  svgFallbackPixels: 2_500_000,
  /** Most elements an SVG may have, counting those its <use>s copy: beyond it rendering is unbounded work. */
  svgElements: 20_000,
  /** Most <use> elements in one SVG. */
  svgUses: 1_000,
  /** Most CPU time one SVG's render may take (ms; by the clock where its CPU time cannot be read or bounded): its
   * child process is killed then (a clean SVG can still cost minutes, e.g. paths cut into millions of dashes). */
  svgRenderMs: 5_000,
  /** Resident memory one SVG's render may take (MB): its child process is killed past it (the pool watches it on
   * Linux), and its address space is bounded to what Node takes before rendering plus twice this (prlimit). */
  svgRenderMemoryMb: 1_024,
} as const;
