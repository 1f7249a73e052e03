import { randomUUID } from 'node:crypto';
import type { TemplateStyle } from '../convert/index.ts';
import { AUTO_MAPPING_NAME, matchedCount, suggestRules } from '../convert/auto-mapping.ts';
import type { MappingRules } from '../convert/index.ts';
import { ApiError } from '../errors.ts';
import { wellFormed } from '../convert/names.ts';
import { PLAN_LIMITS, type Services } from '../services.ts';
import type { TemplateInspection } from '../convert-pool/pool.ts';
import type { MappingRecord, TemplateRecord } from '../store/database.ts';

// The rules of templates and mappings, the same for every surface (the REST API and the app, MCP, the CLI): who may
// change what, the plan's template limit, the matched mapping a new template comes with, the version bump of each
// change, and the caches a replaced or deleted template leaves behind. A surface parses its input, calls these,
// and presents the record (./present.ts).

/** A stored template, or 404 (never stored, or deleted by another request while this one waited). */
export function findTemplate(services: Services, id: string): TemplateRecord {
  return services.store.getTemplate(id) ?? gone(id);
}

function gone(id: string): never {
  throw new ApiError('not_found', `Template ${id} not found.`);
}

/** A template the user may change or delete: neither the built-in one nor one the organisation manages (403). */
export function editableTemplate(services: Services, id: string): TemplateRecord {
  const t = findTemplate(services, id);
  if (t.builtin)
    throw new ApiError('forbidden', 'The built-in template cannot be changed or deleted; upload your own.');
  if (t.managed)
    throw new ApiError(
      'forbidden',
      `The template "${t.name}" is managed by your organisation; it cannot be changed or deleted here. Upload your own to change it.`,
    );
  return t;
}

/** The name of a template uploaded without one: its file's, made to fit the rules of a name. */
export function nameFromFile(filename: string | undefined): string {
  const base = wellFormed((filename ?? '').replace(/\.do[ct]x$/i, ''))
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .trim()
    .slice(0, 200);
  return base || 'Template';
}

/** The text fields given with a template's file; absent ones keep their value (or get the default). */
export interface TemplateFields {
  name?: string;
  description?: string;
}

/**
 * Stores a new template: read, checked and sanitised in a worker (the clean bytes are what is stored), within the
 * plan's limit of the user's own templates, with a mapping matched to its styles by name (docs/mappings.md).
 */
export async function addTemplate(
  services: Services,
  bytes: Uint8Array,
  fields: TemplateFields & { filename?: string },
  checked?: TemplateInspection,
): Promise<TemplateRecord> {
  const name = fields.name ?? nameFromFile(fields.filename);
  const description = fields.description ?? '';
  const inspected = checked ?? (await services.checkTemplate(bytes));
  const store = services.store;
  const limit = PLAN_LIMITS[store.settings().plan].templates;
  const own = store.listTemplates().filter((t) => !t.builtin && !t.managed).length; // the organisation's do not count
  if (limit !== null && own >= limit)
    throw new ApiError('forbidden', `Your plan allows ${limit} templates; delete one or change the plan.`);
  const at = services.now().toISOString();
  const record = await store.addTemplate(
    { id: randomUUID(), name, description, version: 1, created_at: at, updated_at: at, warnings: inspected.warnings },
    inspected.bytes,
  );
  // A template converts at once: a mapping matched by style name comes with it.
  await addMatchedMapping(services, record.id, inspected.styles);
  return record;
}

/**
 * The stored template and mapping of a template file given to convert with (MCP's template_path): one of the user's
 * own templates of the file's name holding these very bytes, with the mapping its upload got still as it was made;
 * else the file is stored as an upload stores it (addTemplate: checked, within the plan's limit, with its mapping
 * matched by style name), so it converts as the same template uploaded through the API or the app converts.
 */
export async function templateFromFile(
  services: Services,
  bytes: Uint8Array,
  filename: string,
): Promise<{ template: TemplateRecord; mapping: MappingRecord }> {
  const inspected = await services.checkTemplate(bytes);
  const name = nameFromFile(filename);
  const store = services.store;
  for (const t of store.listTemplates()) {
    if (t.builtin || t.managed || t.name !== name) continue;
    const mapping = store
      .listMappings(t.id)
      .find((m) => m.name === AUTO_MAPPING_NAME && m.version === 1 && !m.builtin && !m.managed);
    if (mapping && Buffer.from(await store.templateBytes(t)).equals(inspected.bytes)) return { template: t, mapping };
  }
  const template = await addTemplate(services, bytes, { filename }, inspected);
  const mapping = store.listMappings(template.id)[0];
  // Deleted by another request meanwhile.
  if (!mapping) throw new ApiError('not_found', `Template ${template.id} not found.`);
  return { template, mapping };
}

/** Renames a template or changes its description (version + 1). */
export async function updateTemplate(services: Services, id: string, fields: TemplateFields): Promise<TemplateRecord> {
  const t = editableTemplate(services, id);
  const patch = { ...fields, version: t.version + 1, updated_at: services.now().toISOString() };
  return (await services.store.updateTemplate(t.id, patch)) ?? gone(t.id);
}

/**
 * Replaces the .docx of a template the caller found editable (version + 1): the old version's caches go, the
 * user's mappings stay as they are, and a template left with none gets a matched one again.
 */
export async function replaceTemplateFile(
  services: Services,
  t: TemplateRecord,
  bytes: Uint8Array,
  fields: TemplateFields,
): Promise<TemplateRecord> {
  const inspected = await services.checkTemplate(bytes);
  const patch = {
    ...(fields.name ? { name: fields.name } : {}),
    ...(fields.description !== undefined ? { description: fields.description } : {}),
    version: t.version + 1,
    updated_at: services.now().toISOString(),
    warnings: inspected.warnings,
  };
  // Deleted while its new file was read: nothing is stored, and no mapping is made for it.
  const updated = (await services.store.updateTemplate(t.id, patch, inspected.bytes)) ?? gone(t.id);
  // The old version's bytes and reading, here and in every worker, are of no further use.
  services.forgetTemplate(t.id);
  if (services.store.listMappings(t.id).length === 0) await addMatchedMapping(services, t.id, inspected.styles);
  return updated;
}

/** Deletes a template, its mappings and its caches. */
export async function deleteTemplate(services: Services, id: string): Promise<void> {
  const t = editableTemplate(services, id);
  await services.store.deleteTemplate(t.id);
  services.forgetTemplate(t.id);
}

/** A template's styles (the names a mapping uses). */
export async function templateStyles(
  services: Services,
  id: string,
): Promise<Pick<TemplateStyle, 'name' | 'id' | 'type'>[]> {
  return (await services.template(findTemplate(services, id))).styles.map(({ name, id, type }) => ({ name, id, type }));
}

/** Mapping rules matched to a template's styles by name (what a new template's mapping gets), and how many matched. */
export async function suggestedRules(
  services: Services,
  id: string,
): Promise<{ rules: MappingRules; matched: number; of: number }> {
  const rules = suggestRules((await services.template(findTemplate(services, id))).styles);
  return { rules, ...matchedCount(rules) };
}

// Stored directly: its rules name only styles just read from the template, so there is nothing to check (and the
// template is not read a second time).
async function addMatchedMapping(services: Services, templateId: string, styles: readonly TemplateStyle[]) {
  const at = services.now().toISOString();
  await services.store.addMapping({
    id: randomUUID(),
    name: AUTO_MAPPING_NAME,
    template_id: templateId,
    version: 1,
    rules: suggestRules(styles),
    created_at: at,
    updated_at: at,
    builtin: false,
    managed: false,
  });
}

/** A stored mapping, or 404. */
export function findMapping(services: Services, id: string): MappingRecord {
  const m = services.store.getMapping(id);
  if (!m) throw new ApiError('not_found', `Mapping ${id} not found.`);
  return m;
}

const managedMessage = (name: string) =>
  `The mapping "${name}" is managed by your organisation; it cannot be changed or deleted here. Create your own to change it.`;

/**
 * Renames a mapping or replaces its rules (version + 1), neither the built-in one nor one the organisation manages;
 * with a `missing_style` warning for each style its template lacks.
 */
export async function updateMapping(
  services: Services,
  id: string,
  patch: { name?: string; rules?: MappingRules },
): Promise<{ mapping: MappingRecord; warnings: string[] }> {
  const m = findMapping(services, id);
  if (m.builtin) throw new ApiError('forbidden', 'The built-in mapping cannot be changed; create your own.');
  if (m.managed) throw new ApiError('forbidden', managedMessage(m.name));
  const rules = patch.rules ?? m.rules;
  const warnings = await services.mappingWarnings(m.template_id, rules);
  const updated = await services.store.updateMapping(m.id, {
    ...patch,
    rules,
    version: m.version + 1,
    updated_at: services.now().toISOString(),
  });
  return { mapping: updated ?? m, warnings };
}

/** Deletes a mapping, neither the built-in one nor one the organisation manages. */
export async function deleteMapping(services: Services, id: string): Promise<void> {
  const m = findMapping(services, id);
  if (m.builtin) throw new ApiError('forbidden', 'The built-in mapping cannot be deleted.');
  if (m.managed) throw new ApiError('forbidden', managedMessage(m.name));
  await services.store.deleteMapping(m.id);
}
