import { UI_CSP } from '../server/http/routes/ui.ts';

/** The Content-Security-Policy of every page of the local server: the one the server itself sends (one source). */
export const CONTENT_SECURITY_POLICY = UI_CSP;

/** Response headers with our CSP in place of any the response carried (header names compared case-insensitively). */
export function withCsp(headers: Record<string, string[]> | undefined): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') result[name] = value;
  }
  result['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
  return result;
}
