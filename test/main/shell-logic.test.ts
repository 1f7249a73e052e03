// The rest of the shell's logic, on plain Node: IPC arguments and file names, the log, the tray menu, the
// command line.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkOpenSize,
  IpcInputError,
  MAX_BATCH,
  MAX_OPEN_BYTES,
  parseFileToSave,
  parseFolderFiles,
  parsePath,
  safeFileName,
  saveFilters,
  uniqueName,
} from '../../main/files.ts';
import { IPC } from '../../main/ipc-channels.ts';
import { launchOptions, LaunchError } from '../../main/launch-options.ts';
import { FileLog, logLine, redact } from '../../main/log.ts';
import { trayMenuTemplate, trayTooltip } from '../../main/tray-menu.ts';

const temp = mkdtempSync(join(tmpdir(), 'docwright-shell-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('file names from the renderer', () => {
  it('never leave the chosen folder and are valid on every OS', () => {
    expect(safeFileName('report.docx')).toBe('report.docx');
    expect(safeFileName('../../etc/passwd')).toBe('_.._etc_passwd');
    expect(safeFileName('..\\..\\Windows\\win.ini')).toBe('_.._Windows_win.ini');
    expect(safeFileName('a:b*c?"d"<e>|f\u0000g\nh.docx')).toBe('a_b_c__d__e__f_g_h.docx');
    expect(safeFileName('  .hidden. ')).toBe('hidden');
    expect(safeFileName('CON.docx')).toBe('_CON.docx');
    expect(safeFileName('lpt1')).toBe('_lpt1');
    expect(safeFileName('')).toBe('document.docx');
    expect(safeFileName('///')).toBe('document.docx');
    expect(safeFileName('Résumé – ünïcode 日本.docx')).toBe('Résumé – ünïcode 日本.docx');
    const long = safeFileName(`${'x'.repeat(400)}.docx`);
    expect(long.length).toBe(200);
    expect(long.endsWith('.docx')).toBe(true);
  });

  it('are made unique against existing files', () => {
    const taken = new Set(['report.docx', 'report (2).docx', 'notes']);
    expect(uniqueName('report.docx', (n) => taken.has(n))).toBe('report (3).docx');
    expect(uniqueName('notes', (n) => taken.has(n))).toBe('notes (2)');
    expect(uniqueName('new.docx', (n) => taken.has(n))).toBe('new.docx');
  });

  it('come with bytes the main process checks', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    expect(parseFileToSave({ suggestedName: 'a/b.docx', bytes })).toEqual({ name: 'a_b.docx', bytes });
    expect(parseFileToSave({ suggestedName: 'x.docx', bytes: bytes.buffer }).bytes).toEqual(bytes);
    for (const bad of [
      null,
      'x',
      [],
      { suggestedName: 1, bytes },
      { suggestedName: 'x' },
      { suggestedName: 'x', bytes: [1, 2] },
      { suggestedName: 'x'.repeat(1001), bytes },
    ]) {
      expect(() => parseFileToSave(bad), JSON.stringify(bad)).toThrow(IpcInputError);
    }
  });

  it('in a batch are unique within the batch (case-insensitively) and bounded', () => {
    const bytes = new Uint8Array(1);
    const files = parseFolderFiles([
      { name: 'a.docx', bytes },
      { name: 'A.docx', bytes },
      { name: 'a.docx', bytes },
      { name: 'b/c.docx', bytes },
    ]);
    expect(files.map((f) => f.name)).toEqual(['a.docx', 'A (2).docx', 'a (3).docx', 'b_c.docx']);
    expect(() => parseFolderFiles([])).toThrow(IpcInputError);
    expect(() => parseFolderFiles(new Array(MAX_BATCH + 1).fill({ name: 'a', bytes }))).toThrow(IpcInputError);
    expect(() => parseFolderFiles([{ name: 'a' }])).toThrow(/file 1/);
  });

  it('paths to reveal, opened file sizes and dialog filters', () => {
    expect(parsePath('/home/u/report.docx')).toBe('/home/u/report.docx');
    for (const bad of ['', 3, 'a\u0000b', 'x'.repeat(5000)]) expect(() => parsePath(bad)).toThrow(IpcInputError);
    expect(() => checkOpenSize('big.md', MAX_OPEN_BYTES + 1)).toThrow('big.md is larger than 10 MB');
    expect(() => checkOpenSize('ok.md', MAX_OPEN_BYTES)).not.toThrow();
    expect(saveFilters('a.DOCX')).toEqual([{ name: 'Word document', extensions: ['docx'] }]);
    expect(saveFilters('a.zip')).toEqual([]);
  });

  it('travel on one set of namespaced channels', () => {
    const names = Object.values(IPC);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^docwright:[a-z-]+$/);
  });
});

describe('the log', () => {
  it('never holds the session link token, API keys, Authorization or the admin token', () => {
    const text = redact(
      'opened https://127.0.0.1:47823/auth/session?token=abcDEF123_-x&next=1 with Authorization: Bearer dw_0123456789abcdefghijABCDEFGHIJ012345 ' +
        'key dw_0123456789abcdefghijABCDEFGHIJklmnop and x-docwright-admin: s3cr3t and cookie=dw_session=zzz',
    );
    expect(text).not.toMatch(/abcDEF123|0123456789abc|s3cr3t|zzz/);
    expect(text).toContain('token=[redacted]&next=1');
    expect(text).toContain('Authorization: [redacted]');
    expect(redact('Bearer dw_abc')).toBe('Bearer [redacted]');
  });

  it("never holds the session id: in the redirect's fragment, nor in its header", () => {
    const text = redact(
      'navigated to https://127.0.0.1:47823/#session=Sess10nId_-abcdefghijklmnop and x-docwright-session: Sess10nId2',
    );
    expect(text).not.toMatch(/Sess10nId/);
    expect(text).toContain('#session=[redacted]');
    expect(text).toContain('x-docwright-session: [redacted]');
  });

  it('writes one line per event into docwright.log, and rotates', () => {
    const now = new Date('2026-01-02T03:04:05.000Z');
    expect(logLine('warn', 'two\nlines', now)).toBe('2026-01-02T03:04:05.000Z WARN  two | lines\n');
    const log = new FileLog(join(temp, 'logs'), 200, () => now);
    log.info('started https://127.0.0.1:1/auth/session?token=secret-token');
    log.error('failed', new Error('boom'));
    const lines = readFileSync(log.path, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('2026-01-02T03:04:05.000Z INFO  started https://127.0.0.1:1/auth/session?token=[redacted]');
    expect(lines[1]).toMatch(/ERROR failed: Error: boom/);
    writeFileSync(log.path, 'x'.repeat(300));
    log.info('after rotation');
    expect(readFileSync(`${log.path}.1`, 'utf8')).toBe('x'.repeat(300));
    expect(readFileSync(log.path, 'utf8')).toMatch(/after rotation\n$/);
  });
});

describe('the tray menu', () => {
  it('has Open, Copy API URL and Quit, each doing its action', () => {
    const calls: string[] = [];
    const menu = trayMenuTemplate('https://127.0.0.1:47823', {
      open: () => calls.push('open'),
      copyApiUrl: () => calls.push('copy'),
      quit: () => calls.push('quit'),
    });
    const items = menu.filter((item) => item.type !== 'separator');
    expect(items.map((item) => item.label)).toEqual(['API at https://127.0.0.1:47823', 'Open', 'Copy API URL', 'Quit']);
    expect(items[0]?.enabled).toBe(false);
    for (const item of items.slice(1)) item.click?.({} as never, undefined, {});
    expect(calls).toEqual(['open', 'copy', 'quit']);
    expect(trayTooltip('https://127.0.0.1:47823')).toContain('https://127.0.0.1:47823');
  });
});

describe('the command line', () => {
  it('takes --port and the data directory of `docwright serve`', () => {
    expect(launchOptions(['/app', '--port=0'], { DOCWRIGHT_HOME: '/data' }, '/appdata', 'linux')).toEqual({
      dataDir: '/data',
      port: 0,
      userDataDir: join('/data', 'electron'),
    });
    expect(launchOptions(['/app', '--no-sandbox', '--port', '5000'], {}, '/appdata', 'linux').port).toBe(5000);
    const plain = launchOptions(['/app'], { XDG_DATA_HOME: '/xdg' }, '/appdata', 'linux');
    expect(plain).toEqual({
      dataDir: join('/xdg', 'docwright'),
      port: undefined,
      userDataDir: join('/appdata', 'Docwright'),
    });
    for (const bad of [['--port=x'], ['--port=70000'], ['--port']])
      expect(() => launchOptions(bad, {}, '/a', 'linux')).toThrow(LaunchError);
  });
});
