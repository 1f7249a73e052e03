// Saving a converted document: the native Save dialog in the desktop app, the browser's download elsewhere.
import { api, type Conversion } from './api.ts';
import { desktop } from './desktop.ts';

/** Saves one conversion's .docx; returns a short confirmation, or null when the user cancelled. */
export async function saveConversion(conversion: Conversion): Promise<string | null> {
  const shell = desktop();
  if (!shell) {
    browserDownload(api.downloadUrl(conversion.conversion_id), conversion.filename);
    return `Downloading ${conversion.filename}`;
  }
  const blob = await api.download(conversion.conversion_id);
  const saved = await shell.saveFile({ suggestedName: conversion.filename, bytes: new Uint8Array(await blob.arrayBuffer()) });
  return saved ? `Saved ${saved.path}` : null;
}

/** Saves several conversions into one folder the user picks (desktop), or downloads each (browser). */
export async function saveAll(conversions: Conversion[]): Promise<string | null> {
  const shell = desktop();
  if (!shell) {
    for (const conversion of conversions) browserDownload(api.downloadUrl(conversion.conversion_id), conversion.filename);
    return `Downloading ${conversions.length} documents`;
  }
  const files = await Promise.all(
    conversions.map(async (c) => ({ name: c.filename, bytes: new Uint8Array(await (await api.download(c.conversion_id)).arrayBuffer()) })),
  );
  const saved = await shell.saveAllToFolder(files);
  return saved ? `Saved ${saved.paths.length} documents in ${saved.folder}` : null;
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
