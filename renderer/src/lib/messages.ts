// Errors in plain words: the user sees what happened and what to do, never a status code or raw JSON.

/** A sentence for an error the server answered (its envelope's code and message) or a failure to reach it. */
export function plainMessage(status: number, code: string, detail: string): string {
  switch (code) {
    case 'unreachable':
      return 'Docwright’s server is not answering. Is it still running? Start it again and reload this page.';
    case 'unauthorized':
    case 'missing_api_key':
    case 'invalid_api_key':
      return 'This window is not signed in to the running Docwright. Open the link that Docwright printed when it started.';
    case 'rate_limit_exceeded': {
      // The server's message names the quota and the reset instant; said once, with the date in the user's locale.
      const quota = /quota of (\d+)/.exec(detail)?.[1];
      const reset = /\d{4}-\d{2}-\d{2}T[\d:.]+Z/.exec(detail)?.[0];
      return quotaMessage(quota === undefined ? null : Number(quota), reset ?? null);
    }
    case 'payload_too_large':
      return 'That file is too large. Markdown can be up to 10 MB and a template up to 50 MB.';
    case 'unsupported_media_type':
      return 'That file type is not accepted here.';
    case 'not_found':
      return `It no longer exists: ${lowerFirst(sentence(detail))} Reload the list.`;
    case 'forbidden':
      return sentence(detail);
    case 'validation_error':
      return `Something in the request is not right: ${lowerFirst(sentence(detail))}`;
    case 'internal_error':
      return 'Docwright ran into a problem on its side. Try again; if it keeps happening, restart Docwright.';
    default:
      return status >= 500
        ? 'Docwright ran into a problem on its side. Try again.'
        : sentence(detail || 'That did not work.');
  }
}

/** "This month's 20 conversions are used; more on 1 December." (the date in the user's locale). */
export function quotaMessage(quota: number | null, resetsAt: string | null): string {
  const used =
    quota === null
      ? 'This month’s conversions are used'
      : `This month’s ${quota} conversion${quota === 1 ? ' is' : 's are'} used`;
  const date = resetsAt ? new Date(resetsAt) : null;
  const when =
    date && !Number.isNaN(date.getTime())
      ? date.toLocaleDateString(undefined, { day: 'numeric', month: 'long', timeZone: 'UTC' })
      : null;
  return when ? `${used}; more on ${when}.` : `${used}.`;
}

/**
 * The message for a form field from a refused request: a validation error that names the field (`file: …`) in the
 * server's words without the field's name, else the general message.
 */
export function fieldMessage(error: unknown, field: string): string {
  if (
    error instanceof Error &&
    'code' in error &&
    'detail' in error &&
    error.code === 'validation_error' &&
    typeof error.detail === 'string' &&
    error.detail.startsWith(`${field}: `)
  ) {
    return sentence(error.detail.slice(field.length + 2));
  }
  return error instanceof Error ? error.message : String(error);
}

function sentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return '';
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function lowerFirst(text: string): string {
  // Keep identifiers (`rules.heading`) and names as they are; only a capitalised first word is lowered.
  return /^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}

/** A warning code from a conversion (`missing_style: Heading 7`) in words a user understands. */
export function describeWarning(warning: string): string {
  const at = warning.indexOf(':');
  const code = at < 0 ? warning : warning.slice(0, at);
  const detail = at < 0 ? '' : warning.slice(at + 1).trim();
  switch (code) {
    case 'missing_style':
      return `The template has no style “${detail}”; Word’s built-in formatting was used instead.`;
    case 'list_depth_exceeded':
      return `Lists nest deeper than Word’s 9 levels (${detail}); deeper items were kept at level 9.`;
    case 'unsupported_html':
      return `Raw HTML (${detail}) was kept as text.`;
    case 'math_unsupported':
      return `A formula (${detail}) could not be read as TeX and was kept as written.`;
    case 'template_external_removed':
      return `A link to content outside the template (${detail}) was removed: Word would have fetched it whenever a document opened.`;
    case 'template_field_removed':
      return `A field that fetches outside content (${detail}) was replaced by the text it showed.`;
    case 'template_style_renamed':
      return `A style id with unsafe characters was renamed (${detail}).`;
    case 'template_font_renamed':
      return `A font name with unsafe characters was cleaned (${detail}).`;
    case 'invalid_front_matter':
      return `The front matter could not be read (${detail}); the document properties were left empty.`;
    case 'front_matter_truncated':
      return `The front matter’s ${detail}; the rest was left out.`;
    default:
      return warning;
  }
}

/** Bytes as a short size (`10.7 KB`, `312 KB`, `1.4 MB`): one decimal below 100 KB, so close sizes differ. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 100 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A timestamp in the user's locale. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
