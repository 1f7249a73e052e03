import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A data directory's records as one object: db.json, with the conversion records of conversions/ in `conversions`, oldest first. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the records' shape
export function readRecords<T = Record<string, unknown>>(dir: string): T {
  const db = JSON.parse(readFileSync(join(dir, 'db.json'), 'utf8')) as Record<string, unknown>;
  const folder = join(dir, 'conversions');
  if (!existsSync(folder)) return db as T;
  const conversions = readdirSync(folder)
    .filter((name) => /^\d{6}-\d{4}-\d{2}\.json$/.test(name))
    .sort()
    .flatMap(
      (name) => (JSON.parse(readFileSync(join(folder, name), 'utf8')) as { conversions: unknown[] }).conversions,
    );
  return { ...db, conversions } as T;
}
