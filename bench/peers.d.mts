export declare const peers: { name: string; version: string; convert: (markdown: string) => Promise<Uint8Array> }[];
