import { existsSync, readdirSync } from 'node:fs';
import { Low } from 'lowdb';
import { ConversionLog } from './conversion-log.ts';
import { AtomicJsonFile, emptyData, readDatabase, type DatabaseData } from './database.ts';
import { dataPaths } from './paths.ts';

/** The records of a data directory: db.json (settings, templates, mappings, keys) and the conversion log. */
export interface Records {
  db: Low<DatabaseData>;
  log: ConversionLog;
}

/** Opens db.json and conversions/ (a new data directory gets an empty db.json). */
export async function openRecords(dataDir: string): Promise<Records> {
  const paths = dataPaths(dataDir);
  const loaded = readDatabase(paths.database);
  if (loaded === null) {
    const db = new Low<DatabaseData>(new AtomicJsonFile<DatabaseData>(paths.database), emptyData());
    const log = await ConversionLog.open(paths.conversions);
    await db.write();
    return { db, log };
  }
  // A db.json without conversions/ but with outputs: the records were moved away; starting would sweep them.
  if (!existsSync(paths.conversions) && existsSync(paths.outputs) && readdirSync(paths.outputs).length > 0)
    throw new MissingConversionsError(paths.conversions, paths.outputs);
  const db = new Low<DatabaseData>(new AtomicJsonFile<DatabaseData>(paths.database), loaded);
  return { db, log: await ConversionLog.open(paths.conversions) };
}

/** conversions/ is gone while outputs remain (see openRecords). */
export class MissingConversionsError extends Error {
  override name = 'MissingConversionsError';
  constructor(
    readonly folder: string,
    outputs: string,
  ) {
    super(
      `The conversion records ${folder} are missing, but outputs remain in ${outputs}; restore that folder, or move ${outputs} away to start afresh.`,
    );
  }
}
