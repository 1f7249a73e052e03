import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import type { MappingRules } from '../convert/index.ts';
import { checkRules } from '../convert/mapping.ts';
import { writeFileAtomic } from './files.ts';
import { SETTING_KEYS, type SettingKey } from './setting-keys.ts';

/** The storage layout: db.json, conversion records in conversions/ (server/store/conversion-log.ts). */
export const SCHEMA_VERSION = 2;

export type Plan = 'solo' | 'team' | 'enterprise';

export interface TemplateRecord {
  id: string;
  name: string;
  description: string;
  version: number;
  created_at: string;
  updated_at: string;
  /** File name of the current version's bytes under templates/ (none for the built-in template). */
  file: string | null;
  size: number;
  sha256: string;
  builtin: boolean;
  /** Seeded from the organisation's policy folder: read-only for users. */
  managed: boolean;
  /** What sanitising removed from the uploaded file before it was stored (absent on records from before it existed). */
  warnings?: string[];
}

export interface MappingRecord {
  id: string;
  name: string;
  template_id: string;
  version: number;
  rules: MappingRules;
  created_at: string;
  updated_at: string;
  builtin: boolean;
  /** Seeded from the organisation's policy folder: read-only for users. */
  managed: boolean;
}

/** A stored conversion record: the shape of ConversionSchema below, which checks it when read. */
export type ConversionRecord = Static<typeof ConversionSchema>;

export interface ApiKeyRecord {
  id: string;
  name: string;
  key_prefix: string;
  /** HMAC-SHA256 of the key under the secret kept in the keychain; the key itself is never stored. */
  hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export { SETTING_KEYS, type SettingKey } from './setting-keys.ts';

export interface Settings {
  plan: Plan;
  /** Conversions a calendar month (UTC); null: the plan's limit. */
  monthly_quota: number | null;
  retention_days: number;
  port: number;
  /** The one folder (absolute) where MCP's convert_markdown may write files; null: it writes none. */
  mcp_output_dir: string | null;
}

/** db.json: everything but the conversion records and their usage counts (conversions/). */
export interface DatabaseData {
  schema_version: number;
  settings: Settings;
  templates: TemplateRecord[];
  mappings: MappingRecord[];
  api_keys: ApiKeyRecord[];
  /** Settings the user has set (a policy's unlocked value is only the default of the others). */
  chosen_settings: SettingKey[];
}

export const DEFAULT_PORT = 47823;

export function emptyData(): DatabaseData {
  return {
    schema_version: SCHEMA_VERSION,
    settings: { plan: 'team', monthly_quota: null, retention_days: 30, port: DEFAULT_PORT, mcp_output_dir: null },
    templates: [],
    mappings: [],
    api_keys: [],

    chosen_settings: [],
  };
}

/** Thrown when the database file cannot be used as it is; the server refuses to start rather than replace it. */
export class DatabaseError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
    this.name = 'DatabaseError';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A file name inside templates/ or outputs/: never a path, so a hand-edited record cannot reach outside them. */
const FileName = Type.String({ pattern: '^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$' });
const Timestamp = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T' });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
const Count = Type.Integer({ minimum: 0 });

/** A conversion record (in a conversions/ segment). */
export const ConversionSchema = Type.Object({
  conversion_id: Type.String({ minLength: 1 }),
  status: Type.Literal('completed'),
  filename: Type.String(),
  warnings: Type.Array(Type.String()),
  stats: Type.Object({
    headings: Count,
    paragraphs: Count,
    lists: Count,
    tables: Count,
    code_blocks: Count,
    images: Count,
  }),
  created_at: Timestamp,
  template_id: Type.String(),
  mapping_id: Type.String(),
  file: FileName,
  size: Count,
  channel: Type.Union([Type.Literal('api'), Type.Literal('ui'), Type.Literal('mcp'), Type.Literal('cli')]),
  key_id: Type.Optional(Type.String()),
  key_name: Type.Optional(Type.String()),
  warning_details: Type.Optional(
    Type.Array(
      Type.Object({
        warning: Type.String(),
        line: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
        count: Type.Integer({ minimum: 1 }),
      }),
    ),
  ),
});

/** What a database file must hold; extra fields are kept, wrong ones refused. */
const databaseFields = {
  settings: Type.Object({
    plan: Type.Union([Type.Literal('solo'), Type.Literal('team'), Type.Literal('enterprise')]),
    monthly_quota: Type.Union([Count, Type.Null()]),
    retention_days: Type.Integer({ minimum: 1 }),
    port: Type.Integer({ minimum: 0, maximum: 65535 }),
    mcp_output_dir: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  }),
  templates: Type.Array(
    Type.Object({
      id: Type.String({ minLength: 1 }),
      name: Type.String(),
      description: Type.String(),
      version: Type.Integer({ minimum: 1 }),
      created_at: Timestamp,
      updated_at: Timestamp,
      file: Type.Union([FileName, Type.Null()]),
      size: Count,
      sha256: Type.String(),
      builtin: Type.Boolean(),
      managed: Type.Optional(Type.Boolean()),
      warnings: Type.Optional(Type.Array(Type.String())),
    }),
  ),
  mappings: Type.Array(
    Type.Object({
      id: Type.String({ minLength: 1 }),
      name: Type.String(),
      template_id: Type.String(),
      version: Type.Integer({ minimum: 1 }),
      rules: Type.Object({}),
      created_at: Timestamp,
      updated_at: Timestamp,
      builtin: Type.Boolean(),
      managed: Type.Optional(Type.Boolean()),
    }),
  ),
  api_keys: Type.Array(
    Type.Object({
      id: Type.String({ minLength: 1 }),
      name: Type.String(),
      key_prefix: Type.String(),
      hash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
      created_at: Timestamp,
      last_used_at: NullableTimestamp,
      revoked_at: NullableTimestamp,
    }),
  ),
  chosen_settings: Type.Optional(Type.Array(Type.Union(SETTING_KEYS.map((key) => Type.Literal(key))))),
};
const DatabaseSchema = Type.Object({ schema_version: Type.Literal(SCHEMA_VERSION), ...databaseFields });
const databaseValidator = Compile(DatabaseSchema);

/** `conversions/3/file` → `conversions[3].file`. */
export function fieldPath(pointer: string): string {
  return (
    pointer
      .split('/')
      .filter(Boolean)
      .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : `${i === 0 ? '' : '.'}${part}`))
      .join('') || '(the whole file)'
  );
}

/** Checks the shape of a loaded database; a hand-edited file that breaks it is refused, never overwritten. */
function validate(file: string, raw: unknown): DatabaseData {
  if (!isRecord(raw)) throw new DatabaseError(file, `The database ${file} does not hold a JSON object.`);
  const version = raw.schema_version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new DatabaseError(file, `The database ${file} has no valid schema_version.`);
  }
  if (version > SCHEMA_VERSION) {
    throw new DatabaseError(
      file,
      `The database ${file} was written by a newer Docwright (schema ${version}); this one reads schema ${SCHEMA_VERSION}.`,
    );
  }
  // Schema 1 (the conversions in db.json) was written only by development builds before the first release.
  if (version < SCHEMA_VERSION) {
    throw new DatabaseError(
      file,
      `The database ${file} is of schema ${version}, the layout of Docwright's development builds before its first release, which this version does not read (it reads schema ${SCHEMA_VERSION}).`,
    );
  }
  // Settings added by later versions of the same schema take their defaults.
  const candidate = {
    ...raw,
    settings: isRecord(raw.settings) ? { ...emptyData().settings, ...raw.settings } : raw.settings,
  };
  if (!databaseValidator.Check(candidate)) {
    const first = databaseValidator.Errors(candidate)[0];
    const detail = first ? `${fieldPath(first.instancePath)} ${first.message}` : 'its shape is wrong';
    throw new DatabaseError(file, `The database ${file} is damaged: ${detail}.`);
  }
  const mappings = candidate.mappings as MappingRecord[];
  for (const [i, mapping] of mappings.entries()) {
    const rules = checkRules(mapping.rules, `mappings[${i}].rules`, { characters: false });
    if (!rules.ok)
      throw new DatabaseError(
        file,
        `The database ${file} is damaged: ${rules.errors[0] ?? `mappings[${i}].rules is invalid`}.`,
      );
  }
  return withAddedFields(candidate as unknown as DatabaseData);
}

/**
 * Fields that a db.json written before they existed lacks take their defaults: records are not managed; the
 * settings a user has chosen are those that differ from the built-in defaults.
 */
function withAddedFields(data: DatabaseData): DatabaseData {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- absent in a db.json from before the field
  for (const record of [...data.templates, ...data.mappings]) record.managed ??= false;
  const defaults = emptyData().settings;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- absent in a db.json from before the field
  data.chosen_settings ??= SETTING_KEYS.filter((key) => data.settings[key] !== defaults[key]);
  return data;
}

/** Thrown by a write of the database that failed (a full disk, a read-only folder); the records are as before. */
export class DatabaseWriteError extends Error {
  override name = 'DatabaseWriteError';
  constructor(
    message: string,
    /** The system's error code (ENOSPC, EFBIG, EACCES, EROFS…). */
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/**
 * lowdb's adapter for one JSON file: every write goes to a temporary file that is flushed to disk and renamed over
 * the old one (so a kill -9 or a full disk leaves either the old or the new file, never a torn one). Writes
 * requested while one runs are coalesced into the next, which serialises the records as they are when it starts.
 */
export class AtomicJsonFile<T> implements Adapter<T> {
  private latest: T | null = null;
  private waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];
  private running = false;

  constructor(private readonly file: string) {}

  async read(): Promise<T | null> {
    return null; // the opener reads and checks the file itself
  }

  write(data: T): Promise<void> {
    this.latest = data;
    const done = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    if (!this.running) void this.drain();
    return done;
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0);
      try {
        await writeFileAtomic(this.file, JSON.stringify(this.latest));
        for (const w of batch) w.resolve();
      } catch (error) {
        const failure = new DatabaseWriteError(
          `Could not write ${this.file}: ${(error as Error).message}`,
          (error as NodeJS.ErrnoException).code,
        );
        for (const w of batch) w.reject(failure);
        // Let the callers undo their changes before the next write serialises the records.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    this.running = false;
  }
}

/**
 * Reads and checks db.json (null when there is none). A file that is not valid JSON or not a Docwright database
 * stops the start with a message naming it, after a backup copy is kept.
 */
export function readDatabase(file: string): DatabaseData | null {
  if (!existsSync(file)) return null;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new DatabaseError(
      file,
      `The database ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new DatabaseError(
      file,
      `The database ${file} is not valid JSON (${(error as Error).message}); it was left as it is and ${backupOf(file)}. Repair or move it, then start again.`,
    );
  }
  try {
    return validate(file, raw);
  } catch (error) {
    if (error instanceof DatabaseError) {
      throw new DatabaseError(
        file,
        `${error.message} It was left as it is and ${backupOf(file)}. Repair or move it, then start again.`,
      );
    }
    throw error;
  }
}

/**
 * Copies the file next to itself, unless the newest backup already holds the same bytes (a start retried); says
 * where, for the error message.
 */
export function backupOf(file: string): string {
  try {
    const dir = dirname(file);
    const prefix = `${basename(file)}.`;
    const bytes = readFileSync(file);
    const previous = readdirSync(dir)
      .filter((name) => name.startsWith(prefix) && name.endsWith('.bak'))
      .sort()
      .pop();
    if (previous && readFileSync(join(dir, previous)).equals(bytes)) return `copied to ${join(dir, previous)}`;
    const backup = `${file}.${new Date().toISOString().replace(/[:.]/g, '-')}.bak`;
    copyFileSync(file, backup);
    return `copied to ${backup}`;
  } catch (error) {
    return `no backup copy could be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); copy it somewhere safe first`;
  }
}
