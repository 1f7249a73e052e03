// Saving a converted document: the native Save dialog in the desktop app, the browser's download elsewhere.
// "Save" is the one word for it everywhere (rows, preview, history); several documents in a browser are one .zip.
import { zipSync } from 'fflate';
import { api, type Conversion } from './api.ts';
import { desktop } from './desktop.ts';

/** What a save did: a short confirmation, and in the desktop app the file saved (for "Show in folder"). */
export interface Saved {
  text: string;
  path?: string;
}

/** The label of a single save: a dialog in the desktop app, a download in a browser. */
export function saveLabel(): string {
  return desktop() ? 'Save…' : 'Save';
}

/** Saves one conversion's .docx; null when the user cancelled. */
export async function saveConversion(conversion: Conversion): Promise<Saved | null> {
  const shell = desktop();
  // Fetched by the app (a plain link would carry no session header), then handed to the browser as a blob.
  const blob = await api.download(conversion.conversion_id);
  if (!shell) {
    const url = URL.createObjectURL(blob);
    browserDownload(url, conversion.filename);
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    return { text: `Saving ${conversion.filename} to your downloads` };
  }
  const saved = await shell.saveFile({
    suggestedName: conversion.filename,
    bytes: new Uint8Array(await blob.arrayBuffer()),
  });
  return saved ? { text: `Saved ${saved.path}`, path: saved.path } : null;
}

/** Names made unique within one archive: "notes.docx", "notes (2).docx". */
export function uniqueNames(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    let candidate = name;
    for (let n = 2; used.has(candidate.toLowerCase()); n++) candidate = name.replace(/(\.docx)?$/i, ` (${n})$1`);
    used.add(candidate.toLowerCase());
    return candidate;
  });
}

/** Saves several conversions into one folder the user picks (desktop), or as one .zip download (browser). */
export async function saveAll(conversions: Conversion[]): Promise<Saved | null> {
  const shell = desktop();
  const files = await Promise.all(
    conversions.map(async (c) => ({
      name: c.filename,
      bytes: new Uint8Array(await (await api.download(c.conversion_id)).arrayBuffer()),
    })),
  );
  if (!shell) {
    const names = uniqueNames(files.map((f) => f.name));
    // .docx is already deflated: stored as is (level 0), the archive is built at once.
    const zip = zipSync(Object.fromEntries(files.map((f, i) => [names[i] ?? f.name, [f.bytes, { level: 0 }]])));
    const url = URL.createObjectURL(new Blob([zip], { type: 'application/zip' }));
    browserDownload(url, `Docwright ${new Date().toISOString().slice(0, 10)}.zip`);
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    return { text: `Saving ${files.length} documents as one .zip to your downloads` };
  }
  const saved = await shell.saveAllToFolder(files);
  return saved ? { text: `Saved ${saved.paths.length} documents in ${saved.folder}`, path: saved.paths[0] } : null;
}

function browserDownload(url: string, filename: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
}
