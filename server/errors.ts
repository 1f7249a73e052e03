/**
 * The error catalogue, below every transport: the domain (services, store, MCP, CLI) throws these; server/http/
 * answers each with its status and the envelope `{ "error": { "code", "message" } }`, MCP with a tool error.
 */
export const ERRORS = {
  missing_api_key: { status: 401, message: 'No API key: send it as "Authorization: Bearer <key>".' },
  invalid_api_key: { status: 401, message: 'The API key is invalid, revoked, or not a Docwright key.' },
  unauthorized: {
    status: 401,
    message: 'The settings area needs the Docwright app session (open the link `docwright serve` prints).',
  },
  api_access_denied: {
    status: 403,
    message: 'Your plan (Solo) has no access to the public API; use the app or MCP, or change the plan.',
  },
  forbidden: { status: 403, message: 'Forbidden.' },
  not_found: { status: 404, message: 'Not found.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed here.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'Unsupported Content-Type.' },
  bad_request: { status: 400, message: 'Malformed request.' },
  validation_error: { status: 422, message: 'The request failed validation.' },
  document_too_complex: {
    status: 422,
    message: 'markdown: the document took too long or too much memory to convert; split it or simplify its nesting.',
  },
  rate_limit_exceeded: { status: 429, message: 'The monthly conversion quota is exhausted.' },
  too_many_requests: { status: 429, message: 'Too many failed authentication attempts; wait and retry.' },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  headers_too_large: { status: 431, message: 'The request head is too large.' },
  conversion_cancelled: { status: 499, message: 'The conversion was cancelled: the client stopped waiting for it.' },
  internal_error: { status: 500, message: 'Server error; retry, or report it if it persists.' },
  server_busy: {
    status: 503,
    message: 'Every conversion worker is busy and the queue is full; retry in a few seconds.',
  },
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** An error that becomes the envelope with its catalogue status. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? ERRORS[code].message);
    this.name = 'ApiError';
    this.status = ERRORS[code].status;
  }
}

/** The JSON body of an error. */
export function envelope(code: ErrorCode, message: string) {
  return { error: { code, message } };
}
