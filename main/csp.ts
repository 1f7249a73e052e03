/**
 * The Content-Security-Policy of every page of the local server, the same the server sends: scripts, styles, fonts
 * and connections from the server itself only (inline styles for Svelte transitions and docx-preview; data: and blob:
 * images and fonts for the document preview), no plugins, no <base>, no framing, forms only to the server.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/** Response headers with our CSP in place of any the response carried (header names compared case-insensitively). */
export function withCsp(headers: Record<string, string[]> | undefined): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') result[name] = value;
  }
  result['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
  return result;
}
