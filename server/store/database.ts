import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { ConversionStats, MappingRules } from '../convert/index.ts';

export const SCHEMA_VERSION = 1;

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

export interface ConversionRecord {
  conversion_id: string;
  status: 'completed';
  filename: string;
  warnings: string[];
  stats: ConversionStats;
  created_at: string;
  template_id: string;
  mapping_id: string;
  /** Output file name under outputs/. */
  file: string;
  size: number;
  /** Where the conversion came from: the public API, the UI, MCP or the CLI. */
  channel: 'api' | 'ui' | 'mcp' | 'cli';
}

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

/** Settings a user may change (`docwright config`, PATCH /api/settings). */
export const SETTING_KEYS = ['plan', 'monthly_quota', 'retention_days', 'port', 'mcp_output_dir'] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

export interface Settings {
  plan: Plan;
  /** Conversions a calendar month (UTC); null: the plan's limit. */
  monthly_quota: number | null;
  retention_days: number;
  port: number;
  /** The one folder (absolute) where MCP's convert_markdown may write files; null: it writes none. */
  mcp_output_dir: string | null;
}

export interface DatabaseData {
  schema_version: number;
  settings: Settings;
  templates: TemplateRecord[];
  mappings: MappingRecord[];
  conversions: ConversionRecord[];
  api_keys: ApiKeyRecord[];
  /** Conversions counted per calendar month (UTC), `YYYY-MM` → count, across every channel. */
  usage: Record<string, number>;
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
    conversions: [],
    api_keys: [],
    usage: {},
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

/** Migrations by the version they upgrade from. None yet: version 1 is the first schema. */
const MIGRATIONS: Record<number, (data: Record<string, unknown>) => Record<string, unknown>> = {};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks the shape of a loaded database; a hand-edited file that breaks it is refused, never overwritten. */
function validate(file: string, raw: unknown): DatabaseData {
  if (!isRecord(raw)) throw new DatabaseError(file, `The database ${file} does not hold a JSON object.`);
  let data = raw;
  let version = data.schema_version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new DatabaseError(file, `The database ${file} has no valid schema_version.`);
  }
  if (version > SCHEMA_VERSION) {
    throw new DatabaseError(file, `The database ${file} was written by a newer Docwright (schema ${version}); this one reads schema ${SCHEMA_VERSION}.`);
  }
  while (version < SCHEMA_VERSION) {
    const migrate = MIGRATIONS[version];
    if (!migrate) throw new DatabaseError(file, `No migration from schema ${version} for ${file}.`);
    data = migrate(data);
    version += 1;
  }
  for (const key of ['templates', 'mappings', 'conversions', 'api_keys'] as const) {
    if (!Array.isArray(data[key])) throw new DatabaseError(file, `The database ${file} is damaged: "${key}" is not a list.`);
  }
  if (!isRecord(data.settings)) throw new DatabaseError(file, `The database ${file} is damaged: "settings" is not an object.`);
  if (!isRecord(data.usage)) throw new DatabaseError(file, `The database ${file} is damaged: "usage" is not an object.`);
  const defaults = emptyData().settings;
  return withAddedFields({ ...(data as unknown as DatabaseData), schema_version: SCHEMA_VERSION, settings: { ...defaults, ...(data.settings as Partial<Settings>) } });
}

/**
 * Fields added after schema 1 take their defaults: records are not managed; the settings a user has chosen are,
 * for a database from before they were recorded, those that differ from the built-in defaults.
 */
function withAddedFields(data: DatabaseData): DatabaseData {
  for (const record of [...data.templates, ...data.mappings]) record.managed ??= false;
  const defaults = emptyData().settings;
  data.chosen_settings ??= SETTING_KEYS.filter((key) => data.settings[key] !== defaults[key]);
  return data;
}

/**
 * Opens the lowdb database (atomic writes: a temporary file renamed over the old one). A file that is not valid
 * JSON or not a Docwright database stops the start with a message naming it, after a backup copy is kept.
 */
export async function openDatabase(file: string): Promise<Low<DatabaseData>> {
  if (existsSync(file)) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      const backup = backupOf(file);
      throw new DatabaseError(file, `The database ${file} is not valid JSON (${(error as Error).message}); it was left as it is and copied to ${backup}. Repair or move it, then start again.`);
    }
    let data: DatabaseData;
    try {
      data = validate(file, raw);
    } catch (error) {
      if (error instanceof DatabaseError) {
        const backup = backupOf(file);
        throw new DatabaseError(file, `${error.message} It was left as it is and copied to ${backup}.`);
      }
      throw error;
    }
    const db = new Low<DatabaseData>(new JSONFile<DatabaseData>(file), data);
    return db;
  }
  const db = new Low<DatabaseData>(new JSONFile<DatabaseData>(file), emptyData());
  await db.write();
  return db;
}

function backupOf(file: string): string {
  const backup = `${file}.${new Date().toISOString().replace(/[:.]/g, '-')}.bak`;
  copyFileSync(file, backup);
  return backup;
}
