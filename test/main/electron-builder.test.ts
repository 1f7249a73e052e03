// electron-builder.yml, loaded and validated by electron-builder's own code (its loader and its JSON-schema check),
// without downloading Electron; then what the installers must hold.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, matchesGlob, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);

type Config = Record<string, unknown> & {
  appId?: string;
  productName?: string;
  directories?: { output?: string; buildResources?: string };
  files?: string[];
  asar?: boolean;
  asarUnpack?: string[];
  icon?: string;
  npmRebuild?: boolean;
  electronFuses?: Record<string, boolean>;
  linux?: { target?: string[]; maintainer?: string; vendor?: string };
  win?: { target?: string[] };
  mac?: { target?: string[] };
  nsis?: { oneClick?: boolean; perMachine?: boolean; allowElevation?: boolean; artifactName?: string };
  msi?: { oneClick?: boolean; perMachine?: boolean; upgradeCode?: string; artifactName?: string };
  pkg?: {
    installLocation?: string;
    allowAnywhere?: boolean;
    allowCurrentUserHome?: boolean;
    allowRootDirectory?: boolean;
    isRelocatable?: boolean;
    artifactName?: string;
  };
  rpm?: { packageCategory?: string; artifactName?: string };
  deb?: { artifactName?: string };
};
interface ConfigModule {
  getConfig(projectDir: string, configPath: string | null, configFromOptions: Config | null): Promise<Config>;
  validateConfiguration(config: Record<string, unknown>, debugLogger: unknown): Promise<void>;
}
const builder = require('app-builder-lib/out/util/config/config.js') as ConfigModule;
const { DebugLogger } = require('builder-util/out/DebugLogger.js') as {
  DebugLogger: new (enabled: boolean) => unknown;
};

/** The configuration as electron-builder loads it (merged with package.json, files normalised). */
async function loadConfig(): Promise<Config> {
  return builder.getConfig(root, join(root, 'electron-builder.yml'), null);
}

/** The file as written. */
function rawConfig(): Config {
  return parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8')) as Config;
}

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(path: string): { width: number; height: number } {
  const bytes = readFileSync(path);
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('electron-builder.yml', () => {
  it('passes electron-builder’s own validation', async () => {
    const config = await loadConfig();
    await expect(builder.validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
  });

  it('would be refused if it were wrong (the validation does check)', async () => {
    const config = await loadConfig();
    await expect(
      builder.validateConfiguration({ ...config, asarUnpak: ['x'] }, new DebugLogger(false)),
    ).rejects.toThrow(/asarUnpak/);
    await expect(
      builder.validateConfiguration({ ...config, nsis: { oneClick: 'sometimes' } }, new DebugLogger(false)),
    ).rejects.toThrow(/Invalid configuration/);
  });

  it('names the app and builds AppImage, deb and rpm, NSIS and MSI, dmg and pkg', async () => {
    const config = rawConfig();
    expect(config.appId).toBe('app.docwright.desktop');
    expect(config.productName).toBe('Docwright');
    expect(config.linux?.target).toEqual(['AppImage', 'deb', 'rpm']);
    expect(config.linux?.maintainer).toMatch(/<.+@.+>/);
    // rpm (fpm) needs a vendor and a maintainer.
    expect(config.linux?.vendor).toBe('Docwright');
    expect(config.win?.target).toEqual(['nsis', 'msi']);
    expect(config.mac?.target).toEqual(['dmg', 'pkg']);
  });

  it('installs per machine: NSIS and MSI for all users, the pkg into /Applications only', async () => {
    const config = rawConfig();
    // NSIS: oneClick false + perMachine true installs for all users without the per-user/per-machine page.
    expect(config.nsis).toMatchObject({ oneClick: false, perMachine: true, allowElevation: true });
    expect(config.msi).toMatchObject({ perMachine: true });
    // A fixed upgrade code, so that a newer MSI replaces the older one.
    expect(config.msi?.upgradeCode).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(config.pkg).toMatchObject({
      installLocation: '/Applications',
      allowAnywhere: false,
      allowCurrentUserHome: false,
      allowRootDirectory: false,
      isRelocatable: false,
    });
    // electron-builder's loader keeps them as written.
    const loaded = await loadConfig();
    expect(loaded.nsis).toMatchObject({ perMachine: true });
    expect(loaded.msi).toMatchObject({ perMachine: true });
  });

  it('refuses wrong values of the new targets’ options (the validation covers them)', async () => {
    const config = await loadConfig();
    const logger = new DebugLogger(false);
    await expect(builder.validateConfiguration({ ...config, msi: { perMachine: 'yes' } }, logger)).rejects.toThrow(
      /configuration\.msi\.perMachine should be a boolean/,
    );
    await expect(builder.validateConfiguration({ ...config, msi: { allUsers: true } }, logger)).rejects.toThrow(
      /configuration\.msi should be/,
    );
    await expect(builder.validateConfiguration({ ...config, pkg: { allowAnywhere: 'maybe' } }, logger)).rejects.toThrow(
      /configuration\.pkg\.allowAnywhere should be/,
    );
    await expect(
      builder.validateConfiguration({ ...config, pkg: { installLocaton: '/Applications' } }, logger),
    ).rejects.toThrow(/configuration\.pkg should be/);
    await expect(builder.validateConfiguration({ ...config, rpm: { packageCategory: ['x'] } }, logger)).rejects.toThrow(
      /configuration\.rpm\.packageCategory should be/,
    );
  });

  it('names installers without spaces, as docs/installers.md’s silent-install commands give them', async () => {
    const config = rawConfig();
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string };
    const expand = (pattern: string | undefined, ext: string, arch = 'x64') =>
      (pattern ?? '')
        .replaceAll('${productName}', config.productName ?? '')
        .replaceAll('${version}', 'VERSION')
        .replaceAll('${ext}', ext)
        .replaceAll('${name}', pkg.name)
        .replaceAll('${arch}', arch);
    const nsis = expand(config.nsis?.artifactName, 'exe');
    const msi = expand(config.msi?.artifactName, 'msi');
    const macPkg = expand(config.pkg?.artifactName, 'pkg');
    // electron-builder's own patterns for deb and rpm (app-builder-lib FpmTarget).
    const deb = expand(config.deb?.artifactName ?? '${name}_${version}_${arch}.${ext}', 'deb', 'amd64');
    const rpm = expand(config.rpm?.artifactName ?? '${name}-${version}.${arch}.${ext}', 'rpm', 'x86_64');
    for (const name of [nsis, msi, macPkg, deb, rpm]) expect(name).not.toMatch(/\s/);
    const readme = readFileSync(join(root, 'docs', 'installers.md'), 'utf8');
    for (const command of [
      `${nsis} /S /allusers`,
      `msiexec /i ${msi} /qn ALLUSERS=1`,
      `installer -pkg ${macPkg} -target /`,
      `apt install ./${deb}`,
      `dnf install ./${rpm}`,
    ]) {
      expect(readme, command).toContain(command);
    }
    // Where each platform's policy file lives, as docs/it-policy.md (its one home) and the configuration's comment say.
    const policyDoc = readFileSync(join(root, 'docs', 'it-policy.md'), 'utf8');
    const yml = readFileSync(join(root, 'electron-builder.yml'), 'utf8');
    for (const path of [
      '%ProgramData%\\Docwright\\policy.json',
      '/Library/Application Support/Docwright/policy.json',
      '/etc/docwright/policy.json',
    ]) {
      expect(policyDoc, path).toContain(path);
      expect(yml, path).toContain(path);
    }
  });

  it('packs the built app only (no sources, tests or source maps), outside dist/', async () => {
    const config = rawConfig();
    expect(config.directories?.output).toBe('release');
    const files = config.files ?? [];
    expect(files).toEqual(expect.arrayContaining(['package.json', 'dist/main/**/*', 'dist/ui/**/*', '!**/*.map']));
    const included = files.filter((pattern) => !pattern.startsWith('!'));
    for (const source of [
      'main/main.ts',
      'server/serve.ts',
      'renderer/src/App.svelte',
      'test/main/security.test.ts',
      'dist/cli.js',
    ]) {
      expect(
        included.some((pattern) => matchesGlob(source, pattern)),
        source,
      ).toBe(false);
    }
    expect(included.some((pattern) => matchesGlob('dist/main/main.js', pattern))).toBe(true);
    expect(included.some((pattern) => matchesGlob('dist/main/preload.cjs', pattern))).toBe(true);
    const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      main?: string;
      scripts?: Record<string, string>;
    };
    expect(included.some((pattern) => packageJson.main !== undefined && matchesGlob(packageJson.main, pattern))).toBe(
      true,
    );
    expect(packageJson.scripts?.dist).toMatch(/build\.mjs && electron-builder/);
  });

  it('keeps the keychain’s native module outside the asar, where it can be loaded', async () => {
    const config = rawConfig();
    expect(config.asar).toBe(true);
    expect(config.npmRebuild).toBe(false);
    const native = 'node_modules/@napi-rs/keyring-linux-x64-gnu/keyring.linux-x64-gnu.node';
    expect((config.asarUnpack ?? []).some((pattern) => matchesGlob(native, pattern))).toBe(true);
    expect(
      (config.asarUnpack ?? []).some((pattern) => matchesGlob('node_modules/@napi-rs/keyring/index.js', pattern)),
    ).toBe(true);
    // And the SVG renderer's (docs/images.md), loaded by the conversion worker.
    const resvg = 'node_modules/@resvg/resvg-js-linux-x64-gnu/resvgjs.linux-x64-gnu.node';
    expect((config.asarUnpack ?? []).some((pattern) => matchesGlob(resvg, pattern))).toBe(true);
    // And the SVG render child's script, which the app's utility processes load from the disk (main/render-launcher.ts,
    // given the unpacked path by server/convert-pool/render-child.ts), with the package it loads.
    for (const file of ['dist/main/render-child.js', 'node_modules/@resvg/resvg-js/index.js'])
      expect((config.asarUnpack ?? []).some((pattern) => matchesGlob(file, pattern))).toBe(true);
    expect((config.files ?? []).some((pattern) => matchesGlob('dist/main/render-child.js', pattern))).toBe(true);
  });

  it('turns off Electron’s Node switches in the binary, and has a large enough icon', async () => {
    const config = rawConfig();
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
    });
    const size = pngSize(join(root, config.icon ?? 'missing'));
    expect(size.width).toBeGreaterThanOrEqual(512);
    expect(size.height).toBe(size.width);
  });
});
