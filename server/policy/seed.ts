import { MAPPING_LIMIT, TEMPLATE_LIMIT } from '../limits.ts';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Compile } from 'typebox/compile';
import { checkRules, resolveStyles, type MappingRules } from '../convert/mapping.ts';
import { DEFAULT_TEMPLATE_NAME } from '../convert/default-rules.ts';
import { readTemplate, sanitizedBytes, type Template } from '../convert/template/read.ts';
import { BUILTIN_TEMPLATE_ID, sha256, type Store } from '../store/store.ts';
import type { Policy } from './load.ts';
import { SeedMappingSchema } from './schema.ts';

/** What a start's seeding did, and the warnings to show (a bad file never stops the start). */
export interface SeedReport {
  /** The seed folder read, or null when the policy names none. */
  dir: string | null;
  added: string[];
  updated: string[];
  unchanged: string[];
  /** Records whose file left the folder: kept, no longer managed (the user's own from now on). */
  released: string[];
  warnings: string[];
}

/** Largest seeded template, as for uploads. */
/** Namespace of seeded ids (UUID version 5). */
const NAMESPACE = Buffer.from('6f1c3a528d4e4b7a9c210d0c0a5eed00', 'hex');
const mappingValidator = Compile(SeedMappingSchema);

/**
 * The id of a seeded template or mapping: a UUID (version 5) of its file name, ignoring case, so the same file
 * gets the same id at every start and on every machine, whatever folder the policy names.
 */
export function seedId(kind: 'template' | 'mapping', fileName: string): string {
  const hash = createHash('sha1')
    .update(NAMESPACE)
    .update(`${kind}/${fileName.normalize('NFC').toLowerCase()}`)
    .digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const isTemplateFile = (name: string) => /\.(docx|dotx)$/i.test(name);
const isMappingFile = (name: string) => /\.mapping\.json$/i.test(name);
const baseName = (name: string) => name.replace(/\.mapping\.json$/i, '').replace(/\.(docx|dotx)$/i, '');

/** Rules compared regardless of key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}

/**
 * Imports the policy's seed folder into the store, idempotently: each `.docx`/`.dotx` becomes a managed template,
 * each `<name>.mapping.json` a managed mapping, with ids derived from their file names. Unchanged files change
 * nothing; a changed file becomes the next version of the same record; a file that left the folder releases its
 * record (kept, no longer managed). A bad file is a warning naming it, and the rest is imported; a folder that
 * cannot be read is a warning and changes nothing (a share not mounted must not release everything).
 */
export async function seedFromPolicy(
  store: Store,
  policy: Policy | null,
  now: () => Date = () => new Date(),
): Promise<SeedReport> {
  const report: SeedReport = {
    dir: policy?.seedDir ?? null,
    added: [],
    updated: [],
    unchanged: [],
    released: [],
    warnings: [],
  };
  const dir = policy?.seedDir ?? null;
  let names: string[] = [];
  if (dir !== null) {
    try {
      names = readdirSync(dir)
        .filter((name) => !name.startsWith('.') && statSync(join(dir, name), { throwIfNoEntry: false })?.isFile())
        .sort();
    } catch (error) {
      report.warnings.push(
        `The seed folder ${dir} (policy ${String(policy?.path)}) cannot be read (${reason(error)}); seeded templates and mappings were left as they are.`,
      );
      return report;
    }
  }
  const at = () => now().toISOString();
  const where = (name: string) => (dir === null ? name : join(dir, name));

  // Templates: every file present keeps its record managed, even when this version cannot be read.
  const presentTemplates = new Map<string, string>(); // seed id → file name
  const parsed = new Map<string, Template>(); // template id → its styles, for the mappings' warnings
  for (const name of names.filter(isTemplateFile)) {
    const id = seedId('template', name);
    if (presentTemplates.has(id)) {
      report.warnings.push(
        `Seed file ${where(name)} has the same name as ${String(presentTemplates.get(id))} but for letter case; skipped.`,
      );
      continue;
    }
    presentTemplates.set(id, name);
    let bytes: Uint8Array;
    let template: Template;
    try {
      if (statSync(where(name)).size > TEMPLATE_LIMIT)
        throw new Error(`larger than ${TEMPLATE_LIMIT / 1024 / 1024} MB`);
      const raw = new Uint8Array(readFileSync(where(name)));
      template = readTemplate(raw);
      // The seed folder is untrusted input like an upload: the sanitised bytes are what is stored.
      bytes = sanitizedBytes(raw, template);
    } catch (error) {
      report.warnings.push(
        `Seed file ${where(name)} is not a usable Word template (${reason(error)}); skipped${store.getTemplate(id) ? ', the version imported before stays' : ''}.`,
      );
      continue;
    }
    parsed.set(id, template);
    const fields = { name: baseName(name), description: `Provided by your organisation (${name}).` };
    const existing = store.getTemplate(id);
    if (!existing) {
      await store.addTemplate(
        {
          id,
          ...fields,
          version: 1,
          created_at: at(),
          updated_at: at(),
          managed: true,
          warnings: [...template.warnings],
        },
        bytes,
      );
      report.added.push(where(name));
      continue;
    }
    const newBytes = existing.sha256 !== sha256(bytes);
    if (newBytes || existing.name !== fields.name || existing.description !== fields.description) {
      await store.updateTemplate(
        id,
        { ...fields, version: existing.version + 1, updated_at: at(), managed: true, warnings: [...template.warnings] },
        newBytes ? bytes : undefined,
      );
      report.updated.push(where(name));
    } else {
      if (!existing.managed) await store.updateTemplate(id, { managed: true });
      report.unchanged.push(where(name));
    }
  }

  // Mappings, against the folder's templates or the built-in one.
  const templateByRef = new Map<string, string>([
    [BUILTIN_TEMPLATE_ID, BUILTIN_TEMPLATE_ID],
    [DEFAULT_TEMPLATE_NAME.toLowerCase(), BUILTIN_TEMPLATE_ID],
  ]);
  for (const [id, name] of presentTemplates) {
    if (!store.getTemplate(id)) continue;
    templateByRef.set(id, id);
    templateByRef.set(name.toLowerCase(), id);
    templateByRef.set(baseName(name).toLowerCase(), id);
  }
  const presentMappings = new Set<string>();
  for (const name of names.filter(isMappingFile)) {
    const id = seedId('mapping', name);
    if (presentMappings.has(id)) {
      report.warnings.push(
        `Seed file ${where(name)} has the same name as another mapping file but for letter case; skipped.`,
      );
      continue;
    }
    const problem = (why: string) =>
      report.warnings.push(
        `Seed file ${where(name)}: ${why}; skipped${store.getMapping(id) ? ', the version imported before stays' : ''}.`,
      );
    let raw: unknown;
    try {
      if (statSync(where(name)).size > MAPPING_LIMIT) throw new Error('larger than 1 MB');
      raw = JSON.parse(readFileSync(where(name), 'utf8').replace(/^\uFEFF/, ''));
    } catch (error) {
      presentMappings.add(id);
      problem(error instanceof SyntaxError ? `not valid JSON (${error.message})` : `cannot be read (${reason(error)})`);
      continue;
    }
    presentMappings.add(id);
    if (!mappingValidator.Check(raw)) {
      const first = mappingValidator.Errors(raw).find((e) => e.keyword !== 'additionalProperties');
      const field = first?.instancePath.slice(1).replace(/\//g, '.') || '';
      problem(
        field
          ? `${field} ${first?.message ?? 'is invalid'} (a mapping file is { "name", "template", "rules" })`
          : 'it must be an object { "name", "template", "rules" }',
      );
      continue;
    }
    const rules = checkRules(raw.rules, 'rules');
    if (!rules.ok) {
      problem(rules.errors[0] ?? 'rules are invalid');
      continue;
    }
    const templateId = templateByRef.get(raw.template.trim().toLowerCase());
    if (!templateId) {
      problem(
        `template "${raw.template}" is neither a template of the seed folder (its file name or name) nor "${DEFAULT_TEMPLATE_NAME}"`,
      );
      continue;
    }
    const template =
      parsed.get(templateId) ??
      (templateId === BUILTIN_TEMPLATE_ID
        ? readTemplate((await import('../convert/default-template.ts')).defaultTemplate())
        : undefined);
    if (template)
      for (const warning of resolveStyles(rules.rules, template.styles).warnings)
        report.warnings.push(`Seed file ${where(name)}: ${warning}`);
    const fields: { name: string; template_id: string; rules: MappingRules } = {
      name: raw.name ?? baseName(name),
      template_id: templateId,
      rules: rules.rules,
    };
    const existing = store.getMapping(id);
    if (!existing) {
      const added = await store.addMapping({
        id,
        ...fields,
        version: 1,
        created_at: at(),
        updated_at: at(),
        builtin: false,
        managed: true,
      });
      if (added) report.added.push(where(name));
      else problem(`its template "${raw.template}" is not stored`);
    } else if (
      existing.name !== fields.name ||
      existing.template_id !== fields.template_id ||
      canonical(existing.rules) !== canonical(fields.rules)
    ) {
      await store.updateMapping(id, { ...fields, version: existing.version + 1, updated_at: at(), managed: true });
      report.updated.push(where(name));
    } else {
      if (!existing.managed) await store.updateMapping(id, { managed: true });
      report.unchanged.push(where(name));
    }
  }

  for (const name of names) {
    if (/\.json$/i.test(name) && !isMappingFile(name))
      report.warnings.push(`Seed file ${where(name)} is not named <name>.mapping.json; ignored.`);
  }

  // Records whose file is gone: kept (documents and the user's mappings may refer to them), no longer managed.
  for (const t of store.listTemplates()) {
    if (t.managed && !presentTemplates.has(t.id)) {
      await store.updateTemplate(t.id, { managed: false });
      report.released.push(t.name);
    }
  }
  for (const m of store.listMappings()) {
    if (m.managed && !presentMappings.has(m.id)) {
      await store.updateMapping(m.id, { managed: false });
      report.released.push(m.name);
    }
  }
  return report;
}
