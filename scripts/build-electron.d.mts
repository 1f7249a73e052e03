/** Bundles main/ into `<root>/dist/main/` (or `out`, for tests): main.js (ESM), preload.cjs and the icons. */
export function buildElectron(root: string, out?: string): Promise<void>;
