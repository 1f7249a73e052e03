// The one client of the local server: every page calls these functions; none builds a URL by hand. The app's own
// session id (from the one-launch link, kept in this tab's sessionStorage) goes with every request as
// X-Docwright-Session; the UI never holds an API key, and no cookie exists (browsers hand cookies to every port).
import type { Static } from 'typebox';
import type {
  ApiKeyCreatedSchema,
  ApiKeySchema,
  Conversion,
  ConversionListSchema,
  MappingSchema,
  MappingWithWarningsSchema,
  RulesSchema,
  TemplateOut,
  TemplateStyleSchema,
} from '../../../server/schemas/index.ts';
import type { SettingsView } from '../../../server/http/routes/settings.ts';
import { plainMessage } from './messages.ts';

export type { Conversion, SettingsView };
export type Template = TemplateOut;
export type TemplateStyle = Static<typeof TemplateStyleSchema>;
export type Mapping = Static<typeof MappingSchema>;
export type MappingWithWarnings = Static<typeof MappingWithWarningsSchema>;
export type Rules = Static<typeof RulesSchema>;
export type ApiKey = Static<typeof ApiKeySchema>;
export type ApiKeyCreated = Static<typeof ApiKeyCreatedSchema>;
export type Settings = SettingsView['settings'];
/** A page of GET /api/v1/conversions (its items, referenced by name in the schema, typed here). */
export type ConversionPage = Omit<Static<typeof ConversionListSchema>, 'items'> & { items: Conversion[] };

/** An error answered by the server (its envelope), or a failure to reach it; `message` is in plain words. */
export class ApiProblem extends Error {
  override name = 'ApiProblem';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
  ) {
    super(plainMessage(status, code, detail));
  }
}

const SESSION_KEY = 'docwright.session';

/**
 * Takes the session id from the session link's redirect (`/#session=<id>`) into this tab's sessionStorage (kept
 * per origin, so per port: no other local server's page can read it), and removes it from the address bar and
 * history. Runs once, before the app reads the hash for its page.
 */
export function adoptSession(): void {
  const id = /^#session=([A-Za-z0-9_-]+)$/.exec(location.hash)?.[1];
  if (!id) return;
  try {
    sessionStorage.setItem(SESSION_KEY, id);
  } catch {
    // No storage (disabled): the app shows "Open Docwright from its link".
  }
  history.replaceState(null, '', `${location.pathname}${location.search}`);
}

/** The session header of this tab, if it was opened from the link. */
function sessionHeaders(): Record<string, string> {
  let id: string | null;
  try {
    id = sessionStorage.getItem(SESSION_KEY);
  } catch {
    id = null;
  }
  return id ? { 'X-Docwright-Session': id } : {};
}

/** What the app is told when a request finds no server, or a server that no longer knows this tab's session. */
export type ConnectionLoss = 'unreachable' | 'signed-out';
let connectionLost: ((loss: ConnectionLoss) => void) | undefined;

/** Registers the one listener (the app's shell) told of a lost connection, to show one clear state for it. */
export function onConnectionLost(listener: (loss: ConnectionLoss) => void): void {
  connectionLost = listener;
}

async function request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const init: RequestInit = { method, credentials: 'omit', headers: sessionHeaders(), ...(signal ? { signal } : {}) };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch {
    if (signal?.aborted) throw new ApiProblem(0, 'cancelled', 'Cancelled.');
    connectionLost?.('unreachable');
    throw new ApiProblem(0, 'unreachable', 'The Docwright server could not be reached.');
  }
  if (!response.ok) throw await problemOf(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

async function problemOf(response: Response): Promise<ApiProblem> {
  // The session is the only credential the page sends: refused, the server no longer knows it (it was restarted).
  if (response.status === 401) connectionLost?.('signed-out');
  try {
    const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
    const code = typeof body.error?.code === 'string' ? body.error.code : 'unknown';
    const message = typeof body.error?.message === 'string' ? body.error.message : response.statusText;
    return new ApiProblem(response.status, code, message);
  } catch {
    return new ApiProblem(response.status, 'unknown', response.statusText);
  }
}

async function bytes(path: string): Promise<Blob> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'omit', headers: sessionHeaders() });
  } catch {
    connectionLost?.('unreachable');
    throw new ApiProblem(0, 'unreachable', 'The Docwright server could not be reached.');
  }
  if (!response.ok) throw await problemOf(response);
  return response.blob();
}

const id = (value: string) => encodeURIComponent(value);

export const api = {
  settings: () => request<SettingsView>('GET', '/api/settings'),
  updateSettings: (patch: Partial<Settings>) => request<SettingsView>('PATCH', '/api/settings', patch),

  keys: () => request<ApiKey[]>('GET', '/api/settings/api-keys'),
  createKey: (name: string) => request<ApiKeyCreated>('POST', '/api/settings/api-keys', { name }),
  revokeKey: (keyId: string) => request<ApiKey>('DELETE', `/api/settings/api-keys/${id(keyId)}`),

  templates: () => request<Template[]>('GET', '/api/v1/templates'),
  /** Rules matched to the template's styles by name (the server's matching; pre-fills a new mapping). */
  suggestedRules: (templateId: string) =>
    request<{ rules: Rules; matched: number; of: number }>(
      'GET',
      `/api/v1/templates/${id(templateId)}/suggested-rules`,
    ),
  templateStyles: (templateId: string) => request<TemplateStyle[]>('GET', `/api/v1/templates/${id(templateId)}/styles`),
  uploadTemplate: (file: File, name: string, description: string) => {
    const form = new FormData();
    form.set('name', name);
    if (description.trim()) form.set('description', description);
    form.set('file', file, file.name);
    return request<Template>('POST', '/api/v1/templates', form);
  },
  replaceTemplateFile: (templateId: string, file: File) => {
    const form = new FormData();
    form.set('file', file, file.name);
    return request<Template>('PUT', `/api/v1/templates/${id(templateId)}/file`, form);
  },
  updateTemplate: (templateId: string, patch: { name?: string; description?: string }) =>
    request<Template>('PATCH', `/api/v1/templates/${id(templateId)}`, patch),
  deleteTemplate: (templateId: string) => request<unknown>('DELETE', `/api/v1/templates/${id(templateId)}`),

  mappings: (templateId?: string) =>
    request<Mapping[]>('GET', templateId ? `/api/v1/mappings?template_id=${id(templateId)}` : '/api/v1/mappings'),
  createMapping: (body: { name: string; template_id: string; rules: Rules }) =>
    request<MappingWithWarnings>('POST', '/api/v1/mappings', body),
  updateMapping: (mappingId: string, patch: { name?: string; rules?: Rules }) =>
    request<MappingWithWarnings>('PATCH', `/api/v1/mappings/${id(mappingId)}`, patch),
  deleteMapping: (mappingId: string) => request<unknown>('DELETE', `/api/v1/mappings/${id(mappingId)}`),

  /** Converts; aborting `signal` cancels the conversion on the server too (its worker stops, nothing is charged). */
  convert: (
    body: { markdown: string; template_id: string; mapping_id: string; filename?: string; number_sections?: boolean },
    signal?: AbortSignal,
  ) => request<Conversion>('POST', '/api/v1/convert', { ...body, response_format: 'json' }, signal),
  /**
   * Converts with the markdown's image files (multipart, docs/images.md), embedded rather than placeholders, and a
   * bibliography and a CSL style as file parts (docs/captions-references.md); a multipart body has room for a
   * bibliography beside 10 MB of markdown, where a JSON body does not.
   */
  convertWithFiles: (
    body: { markdown: string; template_id: string; mapping_id: string; filename?: string; number_sections?: boolean },
    files: {
      images: ReadonlyMap<string, Blob>;
      bibliography?: { name: string; text: string; format: string } | undefined;
      csl?: { name: string; xml: string } | undefined;
    },
    signal?: AbortSignal,
  ) => {
    const form = new FormData();
    // A multipart field is text: number_sections goes as "true" or "false".
    for (const [key, value] of Object.entries(body)) form.set(key, String(value));
    form.set('response_format', 'json');
    // Each image's filename is its path relative to the markdown, which the server matches with the markdown's links.
    for (const [path, image] of files.images) form.append('images', image, path);
    const { bibliography, csl } = files;
    if (bibliography) {
      form.set('bibliography_format', bibliography.format);
      form.set('bibliography', new Blob([bibliography.text], { type: 'text/plain' }), bibliography.name);
    }
    if (csl) form.set('csl', new Blob([csl.xml], { type: 'application/xml' }), csl.name);
    return request<Conversion>('POST', '/api/v1/convert', form, signal);
  },
  conversions: (offset = 0, limit = 50, filter: { q?: string; template_id?: string; channel?: string } = {}) => {
    const query = new URLSearchParams({ offset: String(offset), limit: String(limit) });
    for (const [key, value] of Object.entries(filter)) if (value) query.set(key, value);
    return request<ConversionPage>('GET', `/api/v1/conversions?${query}`);
  },
  deleteConversion: (conversionId: string) => request<unknown>('DELETE', `/api/v1/conversions/${id(conversionId)}`),
  /** The .docx of a conversion. */
  download: (conversionId: string) => bytes(`/api/v1/conversions/${id(conversionId)}/download`),
};
