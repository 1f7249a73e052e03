// The npm converters a user would pick instead of Docwright, called the way their READMEs show, to a .docx buffer.
// Plain JavaScript so a process that runs one pays no TypeScript loading (bench/peer-cli.mjs).
import markdownDocx, { Packer } from 'markdown-docx';
import { convertMarkdownToBuffer } from '@mohtasham/md-to-docx';

/** @type {{ name: string; version: string; convert: (markdown: string) => Promise<Uint8Array> }[]} */
export const peers = [
  {
    name: 'markdown-docx',
    version: (await import('markdown-docx/package.json', { with: { type: 'json' } })).default.version,
    convert: async (markdown) =>
      new Uint8Array(await Packer.toBuffer(await markdownDocx(markdown, { ignoreImage: true }))),
  },
  {
    name: 'md-to-docx',
    version: (await import('@mohtasham/md-to-docx/package.json', { with: { type: 'json' } })).default.version,
    convert: async (markdown) => new Uint8Array(await convertMarkdownToBuffer(markdown, { onWarning: () => {} })),
  },
];
