import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Low } from 'lowdb';
import { DEFAULT_MAPPING_NAME, DEFAULT_RULES, DEFAULT_TEMPLATE_NAME } from '../convert/default-rules.ts';
import type { ConversionLog } from './conversion-log.ts';
import {
  DatabaseWriteError,
  type ApiKeyRecord,
  type ConversionRecord,
  type DatabaseData,
  type MappingRecord,
  type Settings,
  type TemplateRecord,
} from './database.ts';
import { removeQuietly, removeTempFiles, writeFileAtomic } from './files.ts';
import { MissingConversionsError, openRecords } from './layout.ts';
import { acquireLock, DataDirLockedError } from './lock.ts';
import { dataPaths } from './paths.ts';
import { dataDirPermissionProblem, makePrivate } from './permissions.ts';

/** Ids of the built-in template and mapping: the same on every machine. */
export const BUILTIN_TEMPLATE_ID = '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000001';
export const BUILTIN_MAPPING_ID = '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000002';
const BUILTIN_DATE = '2026-01-01T00:00:00.000Z';

/** Month key of the usage counters: calendar months in UTC. */
export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * The data directory: lowdb records plus template and output files. The only code that touches it; one process at
 * a time owns it (a lock), every write is atomic, and a record is written only after the file it names.
 */
export class Store {
  private inFlight = 0;
  /** Conversions counted (reservation committed) whose record is not written yet, by month. */
  private readonly counted = new Map<string, number>();
  /** Applied to every read of the settings (the organisation's policy, server/policy/); null: none. */
  private settingsRule: ((stored: Settings, chosen: ReadonlySet<string>) => Settings) | null = null;

  private constructor(
    readonly dataDir: string,
    private readonly db: Low<DatabaseData>,
    private readonly log: ConversionLog,
    private readonly releaseLock: () => void,
  ) {}

  /**
   * Opens (creating if needed) a data directory, taking its lock and cleaning what an interrupted run left. A
   * directory that cannot be created, read or written stops the start with a DataDirError naming it.
   */
  static async open(dataDir: string): Promise<Store> {
    const paths = dataPaths(dataDir);
    let release: () => void;
    try {
      // A new data directory is private from the start; an existing one must be (else the start stops, saying how).
      if (mkdirSync(dataDir, { recursive: true, mode: 0o700 }) !== undefined) makePrivate(dataDir);
      const problem = dataDirPermissionProblem(dataDir);
      if (problem) throw new DataDirError(dataDir, problem);
      mkdirSync(paths.templates, { recursive: true, mode: 0o700 });
      mkdirSync(paths.outputs, { recursive: true, mode: 0o700 });
      release = acquireLock(paths.lock);
    } catch (error) {
      throw dataDirError(dataDir, error);
    }
    try {
      try {
        for (const dir of [dataDir, paths.templates, paths.outputs, paths.conversions]) await removeTempFiles(dir);
      } catch (error) {
        throw dataDirError(dataDir, error);
      }
      if (!existsSync(paths.database)) refuseWithoutDatabase(dataDir);
      let records;
      try {
        records = await openRecords(dataDir);
      } catch (error) {
        if (error instanceof MissingConversionsError) throw new DataDirError(dataDir, error.message);
        throw error;
      }
      const store = new Store(dataDir, records.db, records.log, release);
      await store.ensureBuiltins();
      await store.removeOrphans();
      return store;
    } catch (error) {
      release();
      throw error instanceof DatabaseWriteError ? dataDirError(dataDir, error) : error;
    }
  }

  /**
   * Whether a notice (e.g. the keychain fallback) is given for the first time in this data directory; remembers that
   * it was (notices.json), so that each is said once per data directory. One that cannot be remembered is said again.
   */
  async firstNotice(id: string): Promise<boolean> {
    const file = dataPaths(this.dataDir).notices;
    let given: string[] = [];
    try {
      const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
      if (Array.isArray(parsed)) given = parsed.filter((entry): entry is string => typeof entry === 'string');
    } catch {
      // None given yet (or an unreadable file): this one is said.
    }
    if (given.includes(id)) return false;
    try {
      await writeFileAtomic(file, `${JSON.stringify([...given, id])}\n`, 0o600);
    } catch {
      // Not remembered: said again at the next start.
    }
    return true;
  }

  /** Releases the lock. */
  close(): void {
    this.releaseLock();
  }

  private get data(): DatabaseData {
    return this.db.data;
  }

  /**
   * Persists the records (atomic rename of the whole file). When the write fails (a full disk, a read-only
   * folder) `undo` puts the records back as they were, so an answer of 500 never leaves its change behind.
   */
  private async save(undo: () => void): Promise<void> {
    try {
      await this.db.write();
    } catch (error) {
      undo();
      throw error;
    }
  }

  private async ensureBuiltins(): Promise<void> {
    let changed = false;
    if (!this.data.templates.some((t) => t.id === BUILTIN_TEMPLATE_ID)) {
      const bytes = await builtinTemplate();
      this.data.templates.unshift({
        id: BUILTIN_TEMPLATE_ID,
        name: DEFAULT_TEMPLATE_NAME,
        description: 'The built-in template: A4, a named style for every mapping key, page numbers in the footer.',
        version: 1,
        created_at: BUILTIN_DATE,
        updated_at: BUILTIN_DATE,
        file: null,
        size: bytes.length,
        sha256: sha256(bytes),
        builtin: true,
        managed: false,
      });
      changed = true;
    }
    const builtinMapping = this.data.mappings.find((m) => m.id === BUILTIN_MAPPING_ID);
    // A data folder from an older release gets the built-in mapping's new keys (it is read-only to users).
    if (builtinMapping && !isDeepStrictEqual(builtinMapping.rules, DEFAULT_RULES)) {
      Object.assign(builtinMapping, {
        rules: DEFAULT_RULES,
        version: builtinMapping.version + 1,
        updated_at: new Date().toISOString(),
      });
      changed = true;
    }
    if (!builtinMapping) {
      this.data.mappings.unshift({
        id: BUILTIN_MAPPING_ID,
        name: DEFAULT_MAPPING_NAME,
        template_id: BUILTIN_TEMPLATE_ID,
        version: 1,
        rules: DEFAULT_RULES,
        created_at: BUILTIN_DATE,
        updated_at: BUILTIN_DATE,
        builtin: true,
        managed: false,
      });
      changed = true;
    }
    if (changed) await this.save(() => undefined);
  }

  /** Deletes files no record names (left by a crash between writing a file and its record). */
  private async removeOrphans(): Promise<void> {
    const paths = dataPaths(this.dataDir);
    const outputs = new Set(this.log.all().map((c) => c.file));
    for (const name of await readdir(paths.outputs))
      if (!outputs.has(name)) await rm(join(paths.outputs, name), { force: true });
    const templates = new Set(this.data.templates.flatMap((t) => (t.file ? [t.file] : [])));
    for (const name of await readdir(paths.templates))
      if (!templates.has(name)) await rm(join(paths.templates, name), { force: true });
  }

  // Settings

  /** The settings in force: the user's, with the settings rule (the organisation's policy) applied. */
  settings(): Settings {
    const stored = { ...this.data.settings };
    return this.settingsRule ? this.settingsRule(stored, new Set(this.data.chosen_settings)) : stored;
  }

  /** The settings as the user set them (a locked policy value may keep one out of force). */
  userSettings(): Settings {
    return { ...this.data.settings };
  }

  /** The settings the user has set; the others follow a policy's default. */
  chosenSettings(): ReadonlySet<string> {
    return new Set(this.data.chosen_settings);
  }

  /** Sets the rule applied to every read of the settings (server/policy/applyPolicy). */
  useSettingsRule(rule: ((stored: Settings, chosen: ReadonlySet<string>) => Settings) | null): void {
    this.settingsRule = rule;
  }

  /** Stores the user's choice of settings (recorded as chosen). */
  async updateSettings(patch: Partial<Settings>): Promise<Settings> {
    const before = this.data.settings;
    const chosenBefore = this.data.chosen_settings;
    this.data.settings = { ...before, ...patch };
    this.data.chosen_settings = [...new Set([...chosenBefore, ...(Object.keys(patch) as (keyof Settings)[])])];
    await this.save(() => {
      this.data.settings = before;
      this.data.chosen_settings = chosenBefore;
    });
    return this.settings();
  }

  // Usage and quota

  /** Conversions counted this month (UTC). */
  usage(now: Date): number {
    const month = monthOf(now);
    return this.log.usage(month) + (this.counted.get(month) ?? 0);
  }

  /**
   * Reserves one conversion of the monthly quota, synchronously, so concurrent requests can never overspend it.
   * Returns false when the quota is spent. `commit` counts it (written with the next record); `cancel` releases an
   * uncommitted reservation or refunds a committed one whose record could not be written.
   */
  reserve(now: Date, quota: number | null): { commit: () => void; cancel: () => void } | false {
    if (quota !== null && this.usage(now) + this.inFlight >= quota) return false;
    this.inFlight += 1;
    const month = monthOf(now);
    let state: 'held' | 'counted' | 'done' = 'held';
    return {
      commit: () => {
        if (state !== 'held') return;
        state = 'counted';
        this.inFlight -= 1;
        this.counted.set(month, (this.counted.get(month) ?? 0) + 1);
      },
      cancel: () => {
        if (state === 'held') this.inFlight -= 1;
        if (state === 'counted') this.counted.set(month, Math.max(0, (this.counted.get(month) ?? 1) - 1));
        state = 'done';
      },
    };
  }

  // Templates

  listTemplates(): TemplateRecord[] {
    return this.data.templates.map((t) => ({ ...t }));
  }

  getTemplate(id: string): TemplateRecord | undefined {
    const t = this.data.templates.find((x) => x.id === id);
    return t && { ...t };
  }

  /** The bytes of a template's current version. */
  async templateBytes(record: TemplateRecord): Promise<Uint8Array> {
    if (record.builtin || record.file === null) return builtinTemplate();
    return new Uint8Array(await readFile(join(dataPaths(this.dataDir).templates, record.file)));
  }

  async addTemplate(
    record: Omit<TemplateRecord, 'file' | 'size' | 'sha256' | 'builtin' | 'managed'> & { managed?: boolean },
    bytes: Uint8Array,
  ): Promise<TemplateRecord> {
    const file = `${record.id}-v${record.version}.docx`;
    const path = join(dataPaths(this.dataDir).templates, file);
    await writeFileAtomic(path, bytes);
    const full: TemplateRecord = {
      ...record,
      file,
      size: bytes.length,
      sha256: sha256(bytes),
      builtin: false,
      managed: record.managed ?? false,
    };
    this.data.templates.push(full);
    await this.save(() => {
      this.data.templates = this.data.templates.filter((t) => t !== full);
      removeQuietly(path);
    });
    return { ...full };
  }

  /** Updates a template's fields and, with new bytes, its file (a new version). */
  async updateTemplate(
    id: string,
    patch: Partial<Pick<TemplateRecord, 'name' | 'description' | 'version' | 'updated_at' | 'managed' | 'warnings'>>,
    bytes?: Uint8Array,
  ): Promise<TemplateRecord | undefined> {
    const record = this.data.templates.find((t) => t.id === id);
    if (!record) return undefined;
    const oldFile = record.file;
    const before = { ...record };
    const newFile = bytes ? `${record.id}-v${patch.version ?? record.version}.docx` : undefined;
    if (bytes && newFile) await writeFileAtomic(join(dataPaths(this.dataDir).templates, newFile), bytes);
    Object.assign(record, patch, bytes && newFile ? { file: newFile, size: bytes.length, sha256: sha256(bytes) } : {});
    await this.save(() => {
      Object.assign(record, before);
      if (newFile && newFile !== oldFile) removeQuietly(join(dataPaths(this.dataDir).templates, newFile));
    });
    if (bytes && oldFile && oldFile !== record.file)
      await rm(join(dataPaths(this.dataDir).templates, oldFile), { force: true });
    return { ...record };
  }

  async deleteTemplate(id: string): Promise<boolean> {
    const index = this.data.templates.findIndex((t) => t.id === id);
    if (index < 0) return false;
    const templates = this.data.templates;
    const mappings = this.data.mappings;
    const record = templates[index];
    this.data.templates = templates.filter((_, i) => i !== index);
    this.data.mappings = mappings.filter((m) => m.template_id !== id);
    await this.save(() => {
      this.data.templates = restore(templates, this.data.templates, [record]);
      this.data.mappings = restore(
        mappings,
        this.data.mappings,
        mappings.filter((m) => m.template_id === id),
      );
    });
    if (record?.file) await rm(join(dataPaths(this.dataDir).templates, record.file), { force: true });
    return true;
  }

  // Mappings

  listMappings(templateId?: string): MappingRecord[] {
    return this.data.mappings
      .filter((m) => templateId === undefined || m.template_id === templateId)
      .map((m) => ({ ...m }));
  }

  getMapping(id: string): MappingRecord | undefined {
    const m = this.data.mappings.find((x) => x.id === id);
    return m && { ...m };
  }

  /**
   * Adds a mapping of a template that exists; undefined, and nothing stored, when the template is gone (deleted while
   * the request that adds the mapping waited, e.g. for the template to be read): no mapping outlives its template.
   */
  async addMapping(record: MappingRecord): Promise<MappingRecord | undefined> {
    if (!this.data.templates.some((t) => t.id === record.template_id)) return undefined;
    this.data.mappings.push(record);
    await this.save(() => {
      this.data.mappings = this.data.mappings.filter((m) => m !== record);
    });
    return { ...record };
  }

  async updateMapping(id: string, patch: Partial<MappingRecord>): Promise<MappingRecord | undefined> {
    const record = this.data.mappings.find((m) => m.id === id);
    if (!record) return undefined;
    const before = { ...record };
    Object.assign(record, patch);
    await this.save(() => Object.assign(record, before));
    return { ...record };
  }

  async deleteMapping(id: string): Promise<boolean> {
    const mappings = this.data.mappings;
    this.data.mappings = mappings.filter((m) => m.id !== id);
    if (this.data.mappings.length === mappings.length) return false;
    await this.save(() => {
      this.data.mappings = restore(
        mappings,
        this.data.mappings,
        mappings.filter((m) => m.id === id),
      );
    });
    return true;
  }

  // Conversions

  /** Where a conversion's output is stored (a conversion worker may write it there: ConvertPool's `output`). */
  outputPath(conversionId: string): string {
    return join(dataPaths(this.dataDir).outputs, `${conversionId}.docx`);
  }

  /** Removes an output written for a conversion that is not recorded after all (a cancel after the worker wrote it). */
  discardOutput(conversionId: string): void {
    removeQuietly(this.outputPath(conversionId));
  }

  /**
   * Stores a conversion: its output file first (by this, or already at outputPath when `written`), then its record
   * (with the usage count the caller committed: one small file written), so a record never names a file that is not
   * on disk. On failure the output is removed and the records are as they were.
   */
  async addConversion(
    record: Omit<ConversionRecord, 'file' | 'size'>,
    bytes: Uint8Array,
    written = false,
  ): Promise<ConversionRecord> {
    const file = `${record.conversion_id}.docx`;
    const path = this.outputPath(record.conversion_id);
    if (!written) await writeFileAtomic(path, bytes);
    const full: ConversionRecord = { ...record, file, size: bytes.length };
    const month = record.created_at.slice(0, 7);
    const pending = (this.counted.get(month) ?? 0) > 0;
    // The unit moves from `counted` to the log in the same tick as the log counts it (before its write): counting
    // it in both while the record is written would refuse a unit under the quota to a request arriving meanwhile.
    if (pending) this.counted.set(month, (this.counted.get(month) ?? 1) - 1);
    try {
      await this.log.add(full, pending);
    } catch (error) {
      // The log took its count back: the unit is the caller's again (its reservation's cancel refunds it).
      if (pending) this.counted.set(month, (this.counted.get(month) ?? 0) + 1);
      removeQuietly(path);
      throw error;
    }
    return { ...full };
  }

  getConversion(id: string): ConversionRecord | undefined {
    const c = this.log.get(id);
    return c && { ...c };
  }

  /** Conversions, newest first; with `match`, only those it accepts (`total` counts those). */
  listConversions(
    offset: number,
    limit: number,
    match?: (record: ConversionRecord) => boolean,
  ): { items: ConversionRecord[]; total: number } {
    const all = match ? this.log.all().filter(match) : this.log.all();
    const items: ConversionRecord[] = [];
    for (let i = all.length - 1 - offset; i >= 0 && items.length < limit; i--)
      items.push({ ...(all[i] as ConversionRecord) });
    return { items, total: all.length };
  }

  async outputBytes(record: ConversionRecord): Promise<Uint8Array> {
    return new Uint8Array(await readFile(join(dataPaths(this.dataDir).outputs, record.file)));
  }

  async deleteConversion(id: string): Promise<boolean> {
    const [record] = await this.log.remove(new Set([id]));
    if (!record) return false;
    await rm(join(dataPaths(this.dataDir).outputs, record.file), { force: true });
    return true;
  }

  /** Deletes conversions older than the retention limit; returns how many. */
  async purgeExpired(now: Date): Promise<number> {
    const cutoff = now.getTime() - this.settings().retention_days * 86_400_000;
    const expired = this.log.createdBefore(cutoff);
    if (expired.length === 0) return 0;
    const removed = await this.log.remove(new Set(expired.map((c) => c.conversion_id)));
    for (const c of removed) await rm(join(dataPaths(this.dataDir).outputs, c.file), { force: true });
    return removed.length;
  }

  // API keys

  listKeys(): ApiKeyRecord[] {
    return this.data.api_keys.map((k) => ({ ...k }));
  }

  /**
   * The key whose stored hash `equal` accepts. Every record is compared (each in constant time by the caller's
   * `equal`), so the time taken says nothing about which one matched; no record is copied on this hot path.
   */
  matchKey(equal: (storedHash: string) => boolean): { id: string; revoked: boolean } | undefined {
    let found: { id: string; revoked: boolean } | undefined;
    for (const record of this.data.api_keys)
      if (equal(record.hash)) found = { id: record.id, revoked: record.revoked_at !== null };
    return found;
  }

  async addKey(record: ApiKeyRecord): Promise<ApiKeyRecord> {
    this.data.api_keys.push(record);
    await this.save(() => {
      this.data.api_keys = this.data.api_keys.filter((k) => k !== record);
    });
    return { ...record };
  }

  async revokeKey(id: string, now: Date): Promise<ApiKeyRecord | undefined> {
    const record = this.data.api_keys.find((k) => k.id === id);
    if (!record) return undefined;
    if (record.revoked_at === null) {
      record.revoked_at = now.toISOString();
      await this.save(() => {
        record.revoked_at = null;
      });
    }
    return { ...record };
  }

  /**
   * Records a key's use; written at most once a minute per key to spare the disk. Best effort: when the disk is
   * full the request goes on (it may only read) and the time is recorded by a later write.
   */
  async touchKey(id: string, now: Date): Promise<void> {
    const record = this.data.api_keys.find((k) => k.id === id);
    if (!record) return;
    const before = record.last_used_at;
    const last = before ? Date.parse(before) : 0;
    if (now.getTime() - last < 60_000) return;
    record.last_used_at = now.toISOString();
    await this.save(() => {
      record.last_used_at = before;
    }).catch(() => undefined);
  }
}

/** Thrown when the data directory cannot be created, read or written; names it and what the system said. */
export class DataDirError extends Error {
  override name = 'DataDirError';
  constructor(
    readonly dataDir: string,
    message: string,
  ) {
    super(message);
  }
}

function dataDirError(dataDir: string, error: unknown): Error {
  if (error instanceof DataDirError || error instanceof DataDirLockedError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'EROFS'
        ? 'it is on a read-only file system'
        : code === 'ENOSPC' || code === 'EDQUOT'
          ? 'the disk is full'
          : code === 'EFBIG'
            ? 'a file reached the size limit'
            : code === 'ENOTDIR' || code === 'EEXIST'
              ? 'a file is in the way of a folder'
              : (error as Error).message;
  return new DataDirError(
    dataDir,
    `The data directory ${dataDir} cannot be used: ${why}${code && !why.includes(code) ? ` (${code})` : ''}. Make it writable, free some space, or choose another with --data-dir.`,
  );
}

/**
 * No db.json but stored files: the records are gone (moved, deleted by hand). Starting afresh would sweep the
 * templates and outputs as orphans, so the start stops instead.
 */
function refuseWithoutDatabase(dataDir: string): void {
  const paths = dataPaths(dataDir);
  const stored = [paths.templates, paths.outputs].flatMap((dir) => readdirSync(dir).map((name) => join(dir, name)));
  if (stored.length > 0) {
    throw new DataDirError(
      dataDir,
      `The database ${paths.database} is missing, but ${stored.length} stored file${stored.length === 1 ? '' : 's'} remain in ${paths.templates} and ${paths.outputs}; restore db.json (a db.json.*.bak copy, if there is one), or move those folders away to start afresh.`,
    );
  }
}

/**
 * A list as it was before `removed` were taken out of it (`before`), keeping what other changes did since: items
 * removed by them stay out, items added by them stay, after the old ones.
 */
function restore<T>(before: T[], current: T[], removed: (T | undefined)[]): T[] {
  const back = new Set(removed);
  const now = new Set(current);
  const old = new Set(before);
  return [...before.filter((x) => back.has(x) || now.has(x)), ...current.filter((x) => !old.has(x))];
}

/** The built-in template's bytes: docx, which lays it out, is loaded the first time they are needed, not at start. */
async function builtinTemplate(): Promise<Uint8Array> {
  const { defaultTemplate } = await import('../convert/default-template.ts');
  return defaultTemplate();
}
