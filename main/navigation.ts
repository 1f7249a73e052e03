// Where the window may go and what it may load: the local server's origin, nothing else. Pure rules, wired to
// Electron's events in harden.ts.

/** The origin of a URL, or undefined for one that does not parse. */
function originOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** Whether a URL belongs to the server (same scheme, host and port). Opaque origins ("null") never do. */
export function isServerUrl(url: string | undefined, serverOrigin: string): boolean {
  const origin = originOf(url);
  return origin !== undefined && origin !== 'null' && origin === serverOrigin;
}

/** Whether the window may navigate (or be redirected) to a URL: only within the server's origin. */
export function navigationAllowed(url: string, serverOrigin: string): boolean {
  return isServerUrl(url, serverOrigin);
}

/**
 * The URL to hand to the OS browser for a link the page tried to open, or undefined to drop it: http(s) links
 * outside the server only (never file:, javascript:, custom schemes, or the server's own pages, which need the
 * window's session).
 */
export function externalUrl(url: string, serverOrigin: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  if (parsed.origin === serverOrigin) return undefined;
  return parsed.href;
}

const LOCAL_SCHEMES = new Set(['data:', 'blob:', 'devtools:']);

/** Whether the session may make a request: to the server, or for in-memory data (data:, blob:) and DevTools. */
export function requestAllowed(url: string, serverOrigin: string): boolean {
  if (isServerUrl(url, serverOrigin)) return true;
  try {
    return LOCAL_SCHEMES.has(new URL(url).protocol);
  } catch {
    return false;
  }
}

/**
 * Whether to grant a web permission: none, except writing text to the clipboard from the server's pages (the
 * "copy" buttons of a new API key and its curl example). Camera, location, notifications and the rest are refused.
 */
export function permissionAllowed(
  permission: string,
  requestingUrl: string | undefined,
  serverOrigin: string,
): boolean {
  return permission === 'clipboard-sanitized-write' && isServerUrl(requestingUrl, serverOrigin);
}
