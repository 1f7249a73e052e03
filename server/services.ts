import { randomBytes, randomUUID } from 'node:crypto';
import { generateKey, hashKey } from './auth/keys.ts';
// The engine's own modules, not its index: the server's thread loads what it uses here, and the engine (the parser,
// the compiler, docx) only in its conversion workers (docs/performance.md, "The server at rest").
import type { Dialect, BibliographyFormat, ImageInput, MappingRules, TemplateStyle } from './convert/index.ts';
import { ConvertInputError } from './convert/errors.ts';
import { checkRules, resolveStyles } from './convert/mapping.ts';
import {
  ConvertBusyError,
  ConvertCancelledError,
  ConvertLimitError,
  ConvertPool,
  limitMessage,
  type PoolJob,
  type PoolOptions,
  type PoolResult,
  type TemplateInspection,
} from './convert-pool/pool.ts';
import type { CitationJobInput } from './convert-pool/protocol.ts';
import type {
  ApiKeyRecord,
  ConversionRecord,
  MappingRecord,
  Plan,
  Settings,
  TemplateRecord,
} from './store/database.ts';
import { Store } from './store/store.ts';
import { ApiError } from './errors.ts';
import { nameProblem } from './convert/names.ts';
import { dataDirOverlap, realFolder } from './confined/within.ts';
import {
  applyPolicy,
  effectiveSettings,
  keyCreationRefusal,
  lockedAmong,
  type EffectiveSettings,
  type Policy,
} from './policy/index.ts';

/** Monthly conversions and template count of each plan (SPEC.md Limits); null is unlimited. */
export const PLAN_LIMITS: Record<Plan, { conversions: number | null; templates: number | null; api: boolean }> = {
  solo: { conversions: 20, templates: 5, api: false },
  team: { conversions: null, templates: null, api: true },
  enterprise: { conversions: null, templates: null, api: true },
};

/** The quota in force: the plan's limit, capped further by the `monthly_quota` setting when set; null is unlimited. */
export function quotaOf(settings: Settings): number | null {
  const plan = PLAN_LIMITS[settings.plan].conversions;
  const cap = settings.monthly_quota;
  if (plan === null) return cap;
  return cap === null ? plan : Math.min(plan, cap);
}

/** First moment of the next calendar month (UTC), when the quota resets. */
export function nextMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

export interface ConvertRequest {
  markdown: string;
  template_id: string;
  mapping_id: string;
  filename?: string;
  channel: ConversionRecord['channel'];
  /** The API key asking (channel `api`): recorded with its name. */
  keyId?: string;
  /** Aborted when the caller stops waiting: the conversion stops, nothing is stored or charged. */
  signal?: AbortSignal;
  /** The document's images (docs/images.md); absent: placeholders, as SPEC.md says. */
  images?: ImageInput;
  /** Number the headings (docs/api-extensions.md); the front matter's `number_sections` wins. */
  number_sections?: boolean;
  /** The markdown dialect (docs/api-extensions.md); absent: the front matter's, else GFM. */
  dialect?: Dialect;
  /** A bibliography (BibTeX, CSL JSON or YAML text) sent with the markdown (docs/captions-references.md); absent: the front matter's. */
  bibliography?: string;
  /** Its format; absent: told from its text. */
  bibliography_format?: BibliographyFormat;
  /** A bundled CSL style's name or a CSL style's XML; absent: the front matter's `csl`, else APA. */
  csl?: string;
}

/** The bibliography and style a request sends, as a conversion job takes them. */
function citationsOf(request: ConvertRequest): { citations?: CitationJobInput } {
  const { bibliography, bibliography_format: format, csl } = request;
  if (bibliography === undefined && csl === undefined) return {};
  return {
    citations: {
      ...(bibliography !== undefined ? { bibliography: { text: bibliography, ...(format ? { format } : {}) } } : {}),
      ...(csl !== undefined ? { csl } : {}),
    },
  };
}

/** Refuses a name that breaks the rule of server/convert/names.ts (every channel: HTTP checks it in its schemas too). */
function checkName(field: string, value: string | undefined): void {
  const problem = value === undefined ? undefined : nameProblem(field, value);
  if (problem) throw new ApiError('validation_error', problem);
}

/** Makes a download name from a requested filename: no path, no control characters, at most 200 characters, .docx. */
export function outputFilename(requested: string | undefined): string {
  const base = (requested ?? 'document')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/[\\/]/g, '_')
    .replace(/\.docx$/i, '')
    .trim()
    .slice(0, 200);
  return `${base && base !== '.' && base !== '..' ? base : 'document'}.docx`;
}

/**
 * The document name a markdown file's own name suggests (`notes/report.md` → `report`), for callers that send a file
 * and no `filename`: its last path segment without the extension; undefined when nothing usable is left.
 */
export function stemOf(fileName: string | undefined): string | undefined {
  const last = (fileName ?? '').split(/[\\/]/).pop() ?? '';
  const stem = last
    .replace(/\.[^.]*$/, '')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 200);
  return stem && stem !== '.' && stem !== '..' ? stem : undefined;
}

/** A template version's cache key: its id, version and content hash. */
function templateKey(record: TemplateRecord): string {
  return `${record.id}:${record.version}:${record.sha256}`;
}

/** Template versions each of the main thread's caches keeps (the least recently used goes first). */
export const TEMPLATES_CACHED = 16;

/**
 * A bounded cache by template version (least recently used first out): storing a version drops the template's
 * other versions, and `forget` drops a template (replaced or deleted).
 */
class TemplateCache<T> {
  private readonly entries = new Map<string, T>();
  constructor(private readonly max: number) {}

  get(key: string): T | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: T): void {
    this.forget(key.slice(0, key.indexOf(':')));
    this.entries.set(key, value);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.max) break;
      this.entries.delete(oldest);
    }
  }

  forget(templateId: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(`${templateId}:`)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** What the server keeps of a read template: its styles and what sanitising it removed. */
export interface TemplateSummary {
  readonly styles: readonly TemplateStyle[];
  readonly warnings: readonly string[];
}

/** The operations every channel shares (REST API, UI, MCP): conversions against the quota, templates, mappings. */
export class Services {
  private readonly parsed = new TemplateCache<TemplateSummary>(TEMPLATES_CACHED);
  private readonly bytes = new TemplateCache<Uint8Array>(TEMPLATES_CACHED);
  private pool: ConvertPool | null = null;

  constructor(
    readonly store: Store,
    readonly now: () => Date = () => new Date(),
    /** The conversion workers' number and limits (environment variables otherwise; see ConvertPool). */
    private readonly poolOptions: PoolOptions = {},
    /** The organisation's policy (server/policy/), applied to the store's settings; null: none. */
    readonly policy: Policy | null = null,
  ) {
    if (policy) applyPolicy(store, policy);
  }

  /** Every setting in force (the policy applied): quota, plan, retention, port, host, http, API-key rules. */
  settings(): EffectiveSettings {
    return effectiveSettings(this.store.settings(), this.policy);
  }

  /** Stores the user's settings; a setting the policy locks is refused (403 forbidden) and nothing changes. */
  async updateSettings(patch: Partial<Settings>): Promise<Settings> {
    const locked = lockedAmong(Object.keys(patch), this.policy);
    if (locked) throw new ApiError('forbidden', `${locked.message}.`);
    let folder = patch.mcp_output_dir;
    if (typeof folder === 'string') {
      // Stored as its real path: the folder it names now, the same for every process that reads the setting.
      const checked = realFolder(folder);
      if (!checked.ok)
        throw new ApiError(
          'validation_error',
          checked.reason === 'missing'
            ? 'mcp_output_dir must be the absolute path of an existing folder'
            : `mcp_output_dir must not be a folder under /proc, /sys or /dev (${folder}); choose one of your own, such as ~/Documents/Docwright`,
        );
      folder = checked.real;
      patch = { ...patch, mcp_output_dir: folder };
    }
    const overlap = typeof folder === 'string' ? dataDirOverlap(folder, this.store.dataDir) : undefined;
    if (overlap)
      throw new ApiError(
        'validation_error',
        `mcp_output_dir must not ${overlap === 'holds' ? 'hold' : 'lie inside'} Docwright's data directory (${this.store.dataDir}), whose keys and settings MCP must never reach; choose a folder ${overlap === 'holds' ? 'beside' : 'outside'} it, such as ~/Documents/Docwright`,
      );
    return this.store.updateSettings(patch);
  }

  /** The worker threads that convert, started at the first conversion (or by `warm`). */
  get convertPool(): ConvertPool {
    this.pool ??= new ConvertPool(this.poolOptions);
    return this.pool;
  }

  /** Ends the conversion workers. */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.close();
  }

  /** A template read (in a worker) once per version and cached, for its styles; conversions read it once per worker. */
  async template(record: TemplateRecord): Promise<TemplateSummary> {
    const key = templateKey(record);
    let template = this.parsed.get(key);
    if (!template) {
      const { styles, warnings } = await this.inspect(await this.templateBytes(record));
      template = { styles, warnings };
      this.parsed.set(key, template);
    }
    return template;
  }

  /** A template's bytes, read from disk once per version. */
  private async templateBytes(record: TemplateRecord): Promise<Uint8Array> {
    const key = templateKey(record);
    let bytes = this.bytes.get(key);
    if (!bytes) {
      bytes = await this.store.templateBytes(record);
      this.bytes.set(key, bytes);
    }
    return bytes;
  }

  /** Drops every cached version of a template (replaced or deleted), here and in the conversion workers. */
  forgetTemplate(id: string): void {
    this.parsed.forget(id);
    this.bytes.forget(id);
    this.pool?.forgetTemplate(id);
  }

  /** Template versions the main thread holds: read for their styles, and as bytes (diagnostics and tests). */
  get templatesCached(): { parsed: number; bytes: number } {
    return { parsed: this.parsed.size, bytes: this.bytes.size };
  }

  /** Converts, counting against the monthly quota exactly once, and stores the output and its record. */
  async convert(request: ConvertRequest): Promise<{ record: ConversionRecord; docx: Uint8Array }> {
    // Before anything is reserved or stored: a name no filename can carry is refused, not charged.
    checkName('filename', request.filename);
    const templateRecord = this.store.getTemplate(request.template_id);
    if (!templateRecord) throw new ApiError('not_found', `Template ${request.template_id} not found.`);
    const mapping = this.store.getMapping(request.mapping_id);
    if (!mapping) throw new ApiError('not_found', `Mapping ${request.mapping_id} not found.`);
    const now = this.now();
    const settings = this.store.settings();
    const reservation = this.store.reserve(now, quotaOf(settings));
    if (!reservation) {
      const reset = nextMonth(now);
      const retryAfter = Math.max(1, Math.ceil((reset.getTime() - now.getTime()) / 1000));
      throw new ApiError(
        'rate_limit_exceeded',
        `The monthly quota of ${String(quotaOf(settings))} conversions is used up; it resets on ${reset.toISOString()}.`,
        {
          'Retry-After': String(retryAfter),
        },
      );
    }
    const conversionId = randomUUID();
    try {
      const template = { key: templateKey(templateRecord), bytes: await this.templateBytes(templateRecord) };
      let result;
      try {
        result = await this.convertPool.run({
          markdown: request.markdown,
          template,
          mapping: mapping.rules,
          created: now,
          // The worker stores the output before it answers (the pool removes it when the conversion fails).
          output: this.store.outputPath(conversionId),
          ...(request.signal ? { signal: request.signal } : {}),
          ...(request.images ? { images: request.images } : {}),
          ...(request.number_sections ? { numberSections: true } : {}),
          ...(request.dialect ? { dialect: request.dialect } : {}),
          ...citationsOf(request),
        });
      } catch (error) {
        if (error instanceof ConvertInputError) throw new ApiError('validation_error', error.message);
        if (error instanceof ConvertLimitError) {
          throw new ApiError('document_too_complex', limitMessage(error));
        }
        if (error instanceof ConvertBusyError)
          throw new ApiError('server_busy', `The server is busy: ${error.message}; retry in a few seconds.`, {
            'Retry-After': '5',
          });
        if (error instanceof ConvertCancelledError) throw new ApiError('conversion_cancelled', error.message);
        throw error;
      }
      // Cancelled while the result came back: not stored, not charged.
      if (request.signal?.aborted) {
        this.store.discardOutput(conversionId);
        throw new ApiError('conversion_cancelled', 'The conversion was cancelled.');
      }
      const key = request.keyId ? this.store.listKeys().find((k) => k.id === request.keyId) : undefined;
      reservation.commit();
      const record = await this.store.addConversion(
        {
          conversion_id: conversionId,
          status: 'completed',
          filename: outputFilename(request.filename),
          warnings: result.warnings,
          stats: result.stats,
          created_at: now.toISOString(),
          template_id: templateRecord.id,
          mapping_id: mapping.id,
          channel: request.channel,
          ...(key ? { key_id: key.id, key_name: key.name } : {}),
          warning_details: result.warningDetails,
        },
        result.docx,
        true,
      );
      return { record, docx: result.docx };
    } catch (error) {
      // Not converted or not stored: the quota is not charged.
      reservation.cancel();
      throw error;
    }
  }

  /** Checks mapping rules against a template's styles: `missing_style` warnings, never an error. */
  async mappingWarnings(templateId: string, rules: MappingRules): Promise<string[]> {
    // The rules' style names follow the one name rule (checkRules), on every surface that stores or checks a mapping.
    const checked = checkRules(rules);
    if (!checked.ok) throw new ApiError('validation_error', checked.errors.join('; '));
    const record = this.store.getTemplate(templateId);
    if (!record) throw new ApiError('not_found', `Template ${templateId} not found.`);
    const template = await this.template(record);
    return resolveStyles(rules, template.styles).warnings;
  }

  /**
   * Reads, checks and sanitises uploaded template bytes in a conversion worker (never on the event loop): the bytes
   * to store (sanitised), what was removed, its styles. A template refused or past the workers' limits is a 422.
   */
  async checkTemplate(bytes: Uint8Array): Promise<TemplateInspection> {
    return this.inspect(bytes);
  }

  private async inspect(bytes: Uint8Array): Promise<TemplateInspection> {
    try {
      return await this.convertPool.inspect(bytes);
    } catch (error) {
      if (error instanceof ConvertInputError) throw new ApiError('validation_error', `file: ${error.message}`);
      if (error instanceof ConvertLimitError) {
        const limit =
          error.limit === 'time'
            ? `reading it took longer than ${this.convertPool.timeoutMs / 1000} s`
            : error.limit === 'memory'
              ? `reading it needed more than ${this.convertPool.memoryMb} MB of memory`
              : 'it is too complex to read';
        throw new ApiError('validation_error', `file: The template was refused: ${limit}.`);
      }
      if (error instanceof ConvertBusyError)
        throw new ApiError('server_busy', `The server is busy: ${error.message}; retry in a few seconds.`, {
          'Retry-After': '5',
        });
      throw error;
    }
  }

  /** Creates an API key: only its keyed hash is stored; the key is returned once. */
  async createApiKey(name: string, secret: Buffer): Promise<{ record: ApiKeyRecord; key: string }> {
    const active = this.store.listKeys().filter((k) => k.revoked_at === null).length;
    const refusal = keyCreationRefusal(this.settings(), active, this.policy);
    if (refusal) throw new ApiError('forbidden', refusal);
    checkName('name', name);
    const { key, prefix } = generateKey();
    const record = await this.store.addKey({
      id: `key_${randomBytes(8).toString('hex')}`,
      name: name.trim(),
      key_prefix: prefix,
      hash: hashKey(secret, key),
      created_at: this.now().toISOString(),
      last_used_at: null,
      revoked_at: null,
    });
    return { record, key };
  }

  /** Creates a mapping after checking its template exists. */
  async createMapping(input: {
    name: string;
    template_id: string;
    rules: MappingRules;
  }): Promise<{ mapping: MappingRecord; warnings: string[] }> {
    checkName('name', input.name);
    const warnings = await this.mappingWarnings(input.template_id, input.rules);
    const at = this.now().toISOString();
    const mapping = await this.store.addMapping({
      id: randomUUID(),
      name: input.name,
      template_id: input.template_id,
      version: 1,
      rules: input.rules,
      created_at: at,
      updated_at: at,
      builtin: false,
      managed: false,
    });
    if (!mapping) throw new ApiError('not_found', `Template ${input.template_id} not found.`);
    return { mapping, warnings };
  }

  /** How many of `docwright convert`'s conversions this server did since it started (`docwright status`). */
  cliConversions = 0;

  /**
   * A conversion for `docwright convert` on this computer (its own template, mapping and images folder): in the same
   * conversion workers under the same limits as every other conversion, but not recorded, stored or charged, as
   * the command line converting in its own process would not (docs/cli.md, "Through the running server"). The
   * pool's errors are the caller's to report.
   */
  async convertForCommandLine(job: PoolJob): Promise<PoolResult> {
    const result = await this.convertPool.run(job);
    this.cliConversions += 1;
    return result;
  }
}
