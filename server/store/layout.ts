import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { ConversionLog, toSegments } from './conversion-log.ts';
import { AtomicJsonFile, emptyData, readDatabase, type DatabaseData } from './database.ts';
import { writeFileAtomic } from './files.ts';
import { dataPaths } from './paths.ts';

/** The records of a data directory: db.json (settings, templates, mappings, keys) and the conversion log. */
export interface Records {
  db: Low<DatabaseData>;
  log: ConversionLog;
}

/** Called between the steps of the schema-1 migration (tests kill the process there); none in production. */
export type MigrationProbe = (step: string) => void | Promise<void>;

/**
 * Opens db.json and conversions/, moving the records out of a schema-1 db.json first. The move can be cut at any
 * point (kill -9): until db.json is rewritten as schema 2 it is the only truth and the move is redone from it;
 * after, conversions/ is complete.
 */
export async function openRecords(dataDir: string, probe?: MigrationProbe): Promise<Records> {
  const paths = dataPaths(dataDir);
  const loaded = readDatabase(paths.database);
  if (loaded === null) {
    const db = new Low<DatabaseData>(new AtomicJsonFile<DatabaseData>(paths.database), emptyData());
    await rm(paths.conversionsMigrating, { recursive: true, force: true });
    const log = await ConversionLog.open(paths.conversions);
    await db.write();
    return { db, log };
  }
  const db = new Low<DatabaseData>(new AtomicJsonFile<DatabaseData>(paths.database), loaded.data);
  if (loaded.legacyConversions !== null) {
    // 1. Every segment written into a fresh conversions.migrating/ (what an earlier, cut attempt left is discarded).
    await rm(paths.conversionsMigrating, { recursive: true, force: true });
    await mkdir(paths.conversionsMigrating, { mode: 0o700 });
    await probe?.('segments');
    for (const { name, data } of toSegments(loaded.legacyConversions))
      await writeFileAtomic(join(paths.conversionsMigrating, name), JSON.stringify(data));
    // 2. It takes conversions/'s place (a conversions/ beside a schema-1 db.json is from a cut attempt).
    await probe?.('swap');
    await rm(paths.conversions, { recursive: true, force: true });
    await probe?.('rename');
    await rename(paths.conversionsMigrating, paths.conversions);
    // 3. The schema-1 file is kept as it was, then db.json becomes schema 2: from here conversions/ is the truth.
    await probe?.('backup');
    await writeFileAtomic(paths.schema1Backup, await readFile(paths.database));
    await probe?.('database');
    await db.write();
    await probe?.('done');
  } else {
    // A schema-2 db.json without conversions/ but with outputs: the records were moved away; starting would sweep them.
    if (!existsSync(paths.conversions) && existsSync(paths.outputs) && readdirSync(paths.outputs).length > 0) {
      throw new MissingConversionsError(paths.conversions, paths.outputs);
    }
    await rm(paths.conversionsMigrating, { recursive: true, force: true });
  }
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
