// The shell's security decisions, on plain Node: window settings, CSP, navigation and link rules, permissions,
// certificate pinning and the IPC sender check.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CERTIFICATE, certificateVerdict, fingerprintOf } from '../../main/certificate.ts';
import { CONTENT_SECURITY_POLICY, withCsp } from '../../main/csp.ts';
import {
  externalUrl,
  isServerUrl,
  navigationAllowed,
  permissionAllowed,
  requestAllowed,
} from '../../main/navigation.ts';
import { isTrustedSender } from '../../main/sender.ts';
import { windowOptions } from '../../main/window-options.ts';
import { UI_CSP } from '../../server/http/routes/ui.ts';
import { loadOrCreateCertificate, type TlsMaterial } from '../../server/http/tls.ts';
import { dataFolder } from '../../server/store/data-folder.ts';

const ORIGIN = 'https://127.0.0.1:47823';

describe('window settings', () => {
  const options = windowOptions({ preload: '/app/dist/main/preload.cjs', devTools: false });
  const prefs = options.webPreferences ?? {};

  it('isolates and sandboxes the renderer, without Node', () => {
    expect(prefs.contextIsolation).toBe(true);
    expect(prefs.sandbox).toBe(true);
    expect(prefs.nodeIntegration).toBe(false);
    expect(prefs.nodeIntegrationInWorker).toBe(false);
    expect(prefs.nodeIntegrationInSubFrames).toBe(false);
  });

  it('keeps web security, refuses <webview>, insecure content, experimental features and drop navigation', () => {
    expect(prefs.webSecurity).toBe(true);
    expect(prefs.allowRunningInsecureContent).toBe(false);
    expect(prefs.webviewTag).toBe(false);
    expect(prefs.experimentalFeatures).toBe(false);
    expect(prefs.navigateOnDragDrop).toBe(false);
    expect(prefs).not.toHaveProperty('enableBlinkFeatures');
  });

  it('fetches nothing from the network for spell-checking, and loads the given preload', () => {
    expect(prefs.spellcheck).toBe(false);
    expect(prefs.preload).toBe('/app/dist/main/preload.cjs');
    expect(prefs.devTools).toBe(false);
    expect(windowOptions({ preload: 'p', devTools: true }).webPreferences?.devTools).toBe(true);
  });

  it('holds from 800×600 and shows only once painted', () => {
    expect(options.minWidth).toBe(800);
    expect(options.minHeight).toBe(600);
    expect(options.show).toBe(false);
  });
});

describe('content security policy', () => {
  it('is the policy the server sends on its pages', () => {
    expect(CONTENT_SECURITY_POLICY).toBe(UI_CSP);
  });

  it('allows only the server itself, no inline scripts, no plugins, no framing', () => {
    const directives = new Map(
      CONTENT_SECURITY_POLICY.split(';').map((d) => {
        const [name = '', ...values] = d.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('form-action')).toEqual(["'self'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|\*|https?:/);
  });

  it('replaces any policy a response carries, whatever the header case, and keeps other headers', () => {
    const headers = withCsp({
      'content-security-policy': ['default-src *'],
      'CONTENT-SECURITY-POLICY': ['x'],
      'Content-Type': ['text/html'],
    });
    expect(headers).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
    expect(withCsp(undefined)).toEqual({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
  });
});

describe('navigation and links', () => {
  it('lets the window move only within the server origin', () => {
    expect(navigationAllowed(`${ORIGIN}/auth/session?token=x`, ORIGIN)).toBe(true);
    expect(navigationAllowed(`${ORIGIN}/#/templates`, ORIGIN)).toBe(true);
    for (const url of [
      'https://127.0.0.1:47824/',
      'http://127.0.0.1:47823/',
      'https://localhost:47823/',
      'https://example.com/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,<script>1</script>',
      'about:blank',
      'not a url',
    ]) {
      expect(navigationAllowed(url, ORIGIN), url).toBe(false);
    }
    expect(isServerUrl(undefined, ORIGIN)).toBe(false);
  });

  it('hands only http(s) links outside the server to the OS browser', () => {
    expect(externalUrl('https://example.com/docs?q=1', ORIGIN)).toBe('https://example.com/docs?q=1');
    expect(externalUrl('http://example.com', ORIGIN)).toBe('http://example.com/');
    for (const url of [
      'file:///C:/Windows/system32/calc.exe',
      'javascript:alert(1)',
      'smb://host/share',
      'ms-msdt:/id',
      'mailto:a@b.c',
      `${ORIGIN}/settings`,
      '::',
    ]) {
      expect(externalUrl(url, ORIGIN), url).toBeUndefined();
    }
  });

  it('lets the session reach the server and in-memory data only', () => {
    expect(requestAllowed(`${ORIGIN}/api/v1/templates`, ORIGIN)).toBe(true);
    expect(requestAllowed('blob:https://127.0.0.1:47823/1f0e', ORIGIN)).toBe(true);
    expect(requestAllowed('data:image/png;base64,AAAA', ORIGIN)).toBe(true);
    expect(requestAllowed('https://fonts.googleapis.com/css', ORIGIN)).toBe(false);
    expect(requestAllowed('https://127.0.0.1:9999/', ORIGIN)).toBe(false);
    expect(requestAllowed('file:///etc/hosts', ORIGIN)).toBe(false);
  });

  it('grants no permission but clipboard writing from the server', () => {
    expect(permissionAllowed('clipboard-sanitized-write', `${ORIGIN}/`, ORIGIN)).toBe(true);
    expect(permissionAllowed('clipboard-sanitized-write', ORIGIN, ORIGIN)).toBe(true);
    expect(permissionAllowed('clipboard-sanitized-write', 'https://example.com/', ORIGIN)).toBe(false);
    for (const permission of [
      'clipboard-read',
      'media',
      'geolocation',
      'notifications',
      'openExternal',
      'fileSystem',
      'display-capture',
      'unknown',
    ]) {
      expect(permissionAllowed(permission, `${ORIGIN}/`, ORIGIN), permission).toBe(false);
    }
  });
});

describe('certificate pinning', () => {
  let dir: string;
  let ours: TlsMaterial;
  let other: TlsMaterial;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docwright-pin-'));
    ours = await loadOrCreateCertificate(dataFolder(join(dir, 'a')).certificate);
    other = await loadOrCreateCertificate(dataFolder(join(dir, 'b')).certificate);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts the server certificate on its loopback names', () => {
    expect(fingerprintOf(ours.cert)).toBe(ours.fingerprint);
    for (const hostname of ['127.0.0.1', 'localhost', '::1', '[::1]', 'LOCALHOST']) {
      expect(certificateVerdict({ hostname, pem: ours.cert }, ours.fingerprint), hostname).toBe(CERTIFICATE.accept);
    }
    // The fingerprint's spelling does not matter.
    expect(
      certificateVerdict({ hostname: '127.0.0.1', pem: ours.cert }, ours.fingerprint.replaceAll(':', '').toLowerCase()),
    ).toBe(CERTIFICATE.accept);
  });

  it('refuses any other certificate on loopback, even a valid-looking one, and garbage', () => {
    expect(certificateVerdict({ hostname: '127.0.0.1', pem: other.cert }, ours.fingerprint)).toBe(CERTIFICATE.reject);
    expect(certificateVerdict({ hostname: '127.0.0.1', pem: 'not a certificate' }, ours.fingerprint)).toBe(
      CERTIFICATE.reject,
    );
    expect(certificateVerdict({ hostname: '127.0.0.1', pem: ours.cert }, '')).toBe(CERTIFICATE.reject);
  });

  it('leaves every other host to Chromium (never accepted by us)', () => {
    expect(certificateVerdict({ hostname: 'example.com', pem: ours.cert }, ours.fingerprint)).toBe(
      CERTIFICATE.chromiumDecides,
    );
    expect(CERTIFICATE).toEqual({ accept: 0, reject: -2, chromiumDecides: -3 });
  });
});

describe('IPC sender check', () => {
  const trusted = { serverOrigin: ORIGIN, webContentsId: 7 };
  const good = { frameUrl: `${ORIGIN}/#/convert`, isTopFrame: true, webContentsId: 7 };

  it('accepts the top frame of our window on the server', () => {
    expect(isTrustedSender(good, trusted)).toBe(true);
  });

  it('refuses iframes, other windows, other origins, vanished frames, and a window that is gone', () => {
    expect(isTrustedSender({ ...good, isTopFrame: false }, trusted)).toBe(false);
    expect(isTrustedSender({ ...good, webContentsId: 8 }, trusted)).toBe(false);
    expect(isTrustedSender({ ...good, frameUrl: 'https://example.com/' }, trusted)).toBe(false);
    expect(isTrustedSender({ ...good, frameUrl: 'https://127.0.0.1:47824/' }, trusted)).toBe(false);
    expect(isTrustedSender({ ...good, frameUrl: 'about:blank' }, trusted)).toBe(false);
    expect(isTrustedSender({ ...good, frameUrl: 'data:text/html,x' }, trusted)).toBe(false);
    expect(isTrustedSender({ ...good, frameUrl: undefined }, trusted)).toBe(false);
    expect(isTrustedSender(good, { ...trusted, webContentsId: undefined })).toBe(false);
  });
});
