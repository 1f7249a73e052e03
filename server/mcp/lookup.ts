import { ApiError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { MappingRecord, TemplateRecord } from '../store/database.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../store/store.ts';

// Agents know templates and mappings by the names a user says ("the corporate template"), so every tool takes an
// id or a name: an exact id first, then a name compared as Word compares style names (case and spaces aside).

const normal = (name: string) => name.trim().replace(/\s+/g, ' ').toLowerCase();

function byIdOrName<T extends { id: string; name: string }>(
  items: T[],
  wanted: string,
  what: string,
  listTool: string,
): T {
  const exact = items.find((item) => item.id === wanted.trim());
  if (exact) return exact;
  const named = items.filter((item) => normal(item.name) === normal(wanted));
  if (named.length === 1 && named[0]) return named[0];
  if (named.length > 1) {
    throw new ApiError(
      'validation_error',
      `${what}: ${named.length} ${what}s are named "${wanted}"; give one of their ids: ${named.map((n) => n.id).join(', ')}`,
    );
  }
  throw new ApiError('not_found', `No ${what} with the id or name "${wanted}"; ${listTool} shows them.`);
}

/** A template by id or name; 404 `not_found` when none matches. */
export function findTemplate(services: Services, wanted: string): TemplateRecord {
  return byIdOrName(services.store.listTemplates(), wanted, 'template', 'list_templates');
}

/** A mapping by id or name; a name is looked up among the given template's mappings first. */
export function findMapping(services: Services, wanted: string, template?: TemplateRecord): MappingRecord {
  const all = services.store.listMappings();
  const exact = all.find((m) => m.id === wanted.trim());
  if (exact) return exact;
  if (template) {
    const own = all.filter((m) => m.template_id === template.id && normal(m.name) === normal(wanted));
    if (own.length === 1 && own[0]) return own[0];
  }
  return byIdOrName(all, wanted, 'mapping', 'list_mappings');
}

/**
 * The template and mapping of a conversion: as given; a mapping alone brings its template; a template alone takes
 * its oldest mapping; nothing takes the built-in pair.
 */
export function resolvePair(
  services: Services,
  template?: string,
  mapping?: string,
): { template: TemplateRecord; mapping: MappingRecord } {
  const chosenTemplate = template === undefined ? undefined : findTemplate(services, template);
  if (mapping !== undefined) {
    const chosenMapping = findMapping(services, mapping, chosenTemplate);
    return { template: chosenTemplate ?? findTemplate(services, chosenMapping.template_id), mapping: chosenMapping };
  }
  if (!chosenTemplate)
    return {
      template: findTemplate(services, BUILTIN_TEMPLATE_ID),
      mapping: findMapping(services, BUILTIN_MAPPING_ID),
    };
  const first = services.store.listMappings(chosenTemplate.id)[0];
  if (!first) {
    throw new ApiError(
      'validation_error',
      `mapping is required: template "${chosenTemplate.name}" has no mapping yet; create one in the app (or POST /api/v1/mappings), or pass a mapping of another template`,
    );
  }
  return { template: chosenTemplate, mapping: first };
}
