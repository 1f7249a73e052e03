// Wires the pure security rules to Electron: the session (certificate pinning, permissions, requests, CSP) and
// every webContents (new windows, navigation, <webview>).
import { shell, type Session, type WebContents } from 'electron';
import { CERTIFICATE, certificateVerdict } from './certificate.ts';
import { withCsp } from './csp.ts';
import type { FileLog } from './log.ts';
import { externalUrl, isServerUrl, navigationAllowed, permissionAllowed, requestAllowed } from './navigation.ts';

/** The local server the window shows. */
export interface TrustedServer {
  origin: string;
  /** SHA-256 fingerprint of its certificate (`AB:CD:…`). */
  fingerprint: string;
}

/** Pins the server's certificate, refuses permissions and requests elsewhere, and enforces the CSP on its pages. */
export function hardenSession(session: Session, server: TrustedServer, log: FileLog): void {
  session.setCertificateVerifyProc((request, callback) => {
    const verdict = certificateVerdict(
      { hostname: request.hostname, pem: request.certificate.data },
      server.fingerprint,
    );
    if (verdict === CERTIFICATE.reject)
      log.warn(`Refused a certificate for ${request.hostname}: not the local server's own`);
    callback(verdict);
  });
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    const allowed = permissionAllowed(permission, details.requestingUrl, server.origin);
    if (!allowed) log.info(`Refused the permission ${permission}`);
    callback(allowed);
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    permissionAllowed(permission, requestingOrigin, server.origin),
  );
  session.webRequest.onBeforeRequest((details, callback) => {
    const allowed = requestAllowed(details.url, server.origin);
    if (!allowed) log.warn(`Blocked a request to ${details.url}`);
    callback({ cancel: !allowed });
  });
  session.webRequest.onHeadersReceived((details, callback) => {
    callback(isServerUrl(details.url, server.origin) ? { responseHeaders: withCsp(details.responseHeaders) } : {});
  });
}

/** No new windows (http(s) links go to the OS browser), no navigation away from the server, no <webview>. */
export function hardenContents(contents: WebContents, server: TrustedServer, log: FileLog): void {
  const openOutside = (url: string) => {
    const external = externalUrl(url, server.origin);
    if (external === undefined) {
      log.info(`Dropped a link to ${url}`);
      return;
    }
    shell.openExternal(external).catch((error: unknown) => log.error('The OS browser did not open the link', error));
  };
  contents.setWindowOpenHandler(({ url }) => {
    openOutside(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event) => {
    if (navigationAllowed(event.url, server.origin)) return;
    event.preventDefault();
    openOutside(event.url);
  });
  contents.on('will-redirect', (event) => {
    if (navigationAllowed(event.url, server.origin)) return;
    event.preventDefault();
    log.warn(`Blocked a redirect to ${event.url}`);
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}
