import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convert, filesSource } from '../../server/convert/index.ts';
import { renderSvg } from '../../server/convert/images/svg.ts';
import { renderInChild } from '../../server/convert-pool/render-child.ts';

const SVG = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"';
/** A generous bound on one hostile render (the unbounded ones took minutes). */
const FAST_MS = 2000;

function timed<T>(work: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = work();
  return { value, ms: performance.now() - start };
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Uint8Array): { width: number; height: number } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

function render(svg: string) {
  return timed(() => renderSvg(new TextEncoder().encode(svg), renderInChild));
}

/** Converts a document showing one SVG; the warnings and the SVG embedded in the .docx (if any). */
async function embed(svg: string): Promise<{ warnings: string[]; embedded: string }> {
  const result = await convert({
    markdown: '![x](x.svg)\n',
    images: filesSource(new Map([['x.svg', new TextEncoder().encode(svg)]])),
  });
  const files = unzipSync(result.docx);
  const name = Object.keys(files).find((n) => n.startsWith('word/media/') && n.endsWith('.svg'));
  const bytes = name === undefined ? undefined : files[name];
  return { warnings: result.warnings, embedded: bytes ? new TextDecoder().decode(bytes) : '' };
}

describe('hostile SVGs render within bounds', () => {
  it('renders the fallback without filters (a dilate of radius 200 took over 40 s)', () => {
    const { value, ms } = render(
      `<svg ${SVG} width="400" height="400"><filter id="f"><feMorphology operator="dilate" radius="200"/></filter><rect width="400" height="400" fill="red" filter="url(#f)"/><rect width="10" height="10" style="filter: url(#f)"/></svg>`,
    );
    expect(value.ok).toBe(true);
    expect(ms).toBeLessThan(FAST_MS);
  });

  it('renders nested masks and patterns fast (each level doubled the work: 20 levels took minutes)', () => {
    let defs =
      '<mask id="m0"><rect width="400" height="400" fill="white"/></mask>' +
      '<pattern id="p0" width="2" height="2" patternUnits="userSpaceOnUse"><rect width="1" height="1"/></pattern>';
    for (let i = 1; i <= 20; i++) {
      const m = `<rect width="400" height="400" fill="white" mask="url(#m${String(i - 1)})"/>`;
      const p = `<rect width="400" height="400" fill="url(#p${String(i - 1)})"/>`;
      defs += `<mask id="m${String(i)}">${m}${m}</mask>`;
      defs += `<pattern id="p${String(i)}" width="400" height="400" patternUnits="userSpaceOnUse">${p}${p}</pattern>`;
    }
    const { value, ms } = render(
      `<svg ${SVG} width="400" height="400"><defs>${defs}</defs><rect width="400" height="400" mask="url(#m20)"/>` +
        '<rect width="400" height="400" fill="url(#p20)" style="mask: url(#m20)"/></svg>',
    );
    expect(value.ok).toBe(true);
    expect(ms).toBeLessThan(FAST_MS);
  });

  it('renders nested clip paths and markers fast (each level multiplied the work: 6 levels took over 20 s)', () => {
    let defs =
      '<clipPath id="c0"><rect width="400" height="400"/></clipPath>' +
      '<marker id="k0" markerWidth="10" markerHeight="10"><path d="M0 0 L1 1 L2 2 L3 3"/></marker>' +
      '<path id="q0" d="M0 0 L1 1 L2 2 L3 3"/>';
    for (let i = 1; i <= 20; i++) {
      const c = `<rect width="400" height="400" clip-path="url(#c${String(i - 1)})"/>`;
      const k = `<path d="M0 0 L1 1 L2 2 L3 3" style="marker-mid: url(#k${String(i - 1)})"/>`;
      defs += `<clipPath id="c${String(i)}" clip-path="url(#c${String(i - 1)})">${c}${c}</clipPath>`;
      defs += `<marker id="k${String(i)}" markerWidth="10" markerHeight="10">${k}${k}<use href="#q${String(i)}"/></marker>`;
      defs += `<path id="q${String(i)}" d="M0 0 L1 1 L2 2 L3 3" marker-mid="url(#k${String(i - 1)})"/>`;
    }
    const { value, ms } = render(
      `<svg ${SVG} width="400" height="400"><defs>${defs}</defs><rect width="400" height="400" clip-path="url(#c20)"/>` +
        '<path d="M0 0 L1 1 L2 2 L3 3" marker-mid="url(#k20)"/></svg>',
    );
    expect(value.ok).toBe(true);
    expect(ms).toBeLessThan(FAST_MS);
  });

  it('renders a tall SVG with blur and turbulence fast, its fallback inside 1600 px and 2.5 megapixels', () => {
    const { value, ms } = render(
      `<svg ${SVG} width="800" height="30000"><filter id="b"><feTurbulence baseFrequency="0.9" numOctaves="10"/><feGaussianBlur stdDeviation="500"/></filter><rect width="800" height="30000" filter="url(#b)"/></svg>`,
    );
    expect(ms).toBeLessThan(FAST_MS);
    expect(value.ok).toBe(true);
    if (!value.ok) return;
    const size = pngSize(value.png);
    expect(Math.max(size.width, size.height)).toBeLessThanOrEqual(1600);
    expect(size.width * size.height).toBeLessThanOrEqual(2_500_000);
    // The aspect ratio is kept (800 × 30000 → about 43 × 1600).
    expect(size.height).toBe(1600);
    expect(Math.abs(size.width - 43)).toBeLessThanOrEqual(1);
    expect({ width: value.width, height: value.height }).toEqual({ width: 800, height: 30000 });
  });

  it('fits a plain tall SVG inside the box instead of a 1600 × 60000 fallback', () => {
    const { value, ms } = render(`<svg ${SVG} width="800" height="30000"><rect width="800" height="30000"/></svg>`);
    expect(ms).toBeLessThan(FAST_MS);
    expect(value.ok).toBe(true);
    if (!value.ok) return;
    expect(pngSize(value.png)).toEqual({ width: 43, height: 1600 });
  });

  it('fits a large square SVG inside 2.5 megapixels', () => {
    const { value } = render(`<svg ${SVG} width="1600" height="1600"><rect width="1600" height="1600"/></svg>`);
    expect(value.ok).toBe(true);
    if (!value.ok) return;
    const size = pngSize(value.png);
    expect(size.width).toBe(size.height);
    expect(size.width * size.height).toBeLessThanOrEqual(2_500_000);
  });
});

describe('too complex SVGs stay placeholders', () => {
  const cases: [string, string][] = [
    [
      'over 20,000 elements',
      `<svg ${SVG} width="10" height="10">${'<rect width="1" height="1"/>'.repeat(20_001)}</svg>`,
    ],
    [
      'a <use> of an element holding <use>s (exponential expansion)',
      `<svg ${SVG} width="10" height="10"><g id="a"><rect width="1" height="1"/><rect width="1" height="1"/></g>` +
        Array.from(
          { length: 30 },
          (_, i) =>
            `<g id="${String.fromCharCode(98 + (i % 26))}${String(i)}"><use href="#${i === 0 ? 'a' : String.fromCharCode(98 + ((i - 1) % 26)) + String(i - 1)}"/><use href="#${i === 0 ? 'a' : String.fromCharCode(98 + ((i - 1) % 26)) + String(i - 1)}"/></g>`,
        ).join('') +
        '</svg>',
    ],
    [
      'more than 1,000 <use>s',
      `<svg ${SVG} width="10" height="10"><rect id="r" width="1" height="1"/>${'<use href="#r"/>'.repeat(1001)}</svg>`,
    ],
    [
      '<use>s that together copy over 20,000 elements',
      `<svg ${SVG} width="10" height="10"><g id="g">${'<rect width="1" height="1"/>'.repeat(1000)}</g>${'<use href="#g"/>'.repeat(30)}</svg>`,
    ],
  ];
  for (const [what, svg] of cases)
    it(`keeps a placeholder for ${what}`, async () => {
      const start = performance.now();
      const value = await embed(svg);
      const ms = performance.now() - start;
      expect(value.warnings).toEqual(['image_unsupported: x.svg (too complex)']);
      expect(value.embedded).toBe('');
      expect(ms).toBeLessThan(FAST_MS);
    });

  it('still renders an SVG that uses a plain element a few times', async () => {
    const result = await embed(
      `<svg ${SVG} width="10" height="10"><rect id="r" width="1" height="1"/><use href="#r" x="2"/><use xlink:href="#r" x="4"/></svg>`,
    );
    expect(result.warnings).toEqual([]);
    expect(result.embedded).toContain('<use href="#r" x="2"/>');
  });
});

describe('the SVG embedded in the document reaches nothing outside it', () => {
  it('drops style sheets, outside url() references, outside links and animations of href', async () => {
    const { warnings, embedded } = await embed(
      `<svg ${SVG} width="100" height="100">` +
        '<style>@import url(http://evil.example/a.css); rect { fill: blue }</style>' +
        '<defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs>' +
        '<rect width="10" height="10" fill="url(http://evil.example/b.svg#x)"/>' +
        '<rect width="10" height="10" fill="url(#g)" stroke="url( \'https://evil.example/c\' )"/>' +
        '<rect width="10" height="10" style="fill: url(http://evil.example/d#x); stroke: red"/>' +
        '<rect width="10" height="10" style="fill: url(#g)"/>' +
        '<a href="http://evil.example/e"><rect width="10" height="10"/></a>' +
        '<a xlink:href="javascript:alert(1)"><rect width="10" height="10"/></a>' +
        '<linearGradient id="h" xlink:href="http://evil.example/f#g"/>' +
        '<a href="#g"><rect width="10" height="10"><animate attributeName="href" to="http://evil.example/g"/>' +
        '<set attributeName="xlink:href" to="http://evil.example/h"/></rect></a>' +
        '<animate attributeName="fill" values="red;blue"/>' +
        '</svg>',
    );
    expect(warnings).toEqual([]);
    expect(embedded).not.toContain('evil.example');
    expect(embedded).not.toContain('javascript');
    expect(embedded).not.toContain('<style');
    // What points inside the SVG is kept.
    expect(embedded).toContain('fill="url(#g)"');
    expect(embedded).toContain('style="fill: url(#g)"');
    expect(embedded).toContain('stroke: red');
    expect(embedded).toContain('<a href="#g">');
    expect(embedded).toContain('<animate attributeName="fill" values="red;blue"/>');
  });
});
