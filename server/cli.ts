import { constants } from 'node:os';
import { resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { CliError, ExitStatus } from './cli/errors.ts';
import { parseMemoryLimit, parseTimeLimit } from './cli/convert-limits.ts';
import { parseFrom } from './cli/dialect-option.ts';
import { convertCommand, type ConvertOpts } from './cli/convert-command.ts';
import { outputPath, readBytes, writeOutput } from './cli/files.ts';
import { ConvertInputError } from './convert/errors.ts';
import { SETTING_KEYS as CONFIG_KEYS } from './store/setting-keys.ts';
import packageJson from '../package.json' with { type: 'json' };
import { docwrightCommand } from './cli/advice.ts';
import { defaultDataDir } from './store/paths.ts';

// The server and admin commands load their modules (Fastify, the keychain, TLS) only when run, so that
// `docwright convert` starts fast.
const serverModules = () => import('./cli/server-commands.ts');
const mcpModule = () => import('./mcp/stdio.ts');
// The engine too: `convert` runs it in worker threads (server/cli/convert-bounded.ts) or in the running server.
const engine = () => import('./convert/index.ts');

/** A setting's value in words: no quota is `unlimited`, no MCP folder `none`. */
function settingText(key: string, value: string | number | null): string {
  if (value === null) return key === 'mcp_output_dir' ? 'none' : 'unlimited';
  return String(value);
}

const EXAMPLES = `
Examples (one for each command):
  docwright convert report.md -o report.docx --template corporate.dotx --mapping mapping.json
  docwright convert docs/ chapter-*.md -o out/
  docwright template default -o my-template.docx
  docwright template styles corporate.dotx
  docwright serve --port 0
  docwright open
  docwright mcp                    (in an MCP client's configuration: the absolute path of docwright)
  docwright keys create "CI script"
  docwright keys list
  docwright config set retention_days 7
  docwright cert
  docwright status --json`;

/**
 * A command whose usage errors (a wrong command line) are one sentence and where its help is, not the whole help:
 * `docwright: convert takes one file, not 2; see \`docwright convert --help\`.` (exit status 2, in main).
 */
class DocwrightCommand extends Command {
  override createCommand(name?: string): Command {
    return new DocwrightCommand(name);
  }

  override error(message: string, options?: { code?: string; exitCode?: number }): never {
    let text = message.replace(/^error: /, '').replace(/\.$/, '');
    const invalid = /^option '(?:-\w, )?(\S+)[^']*' argument '(.*)' is invalid\. (.*)$/s.exec(text);
    if (invalid) text = `${invalid[1] ?? ''} ${invalid[3] ?? ''}, not ${invalid[2] ?? ''}`;
    const names = [this.name()];
    for (let command = this.parent; command; command = command.parent) names.unshift(command.name());
    return super.error(`docwright: ${text}; see \`${names.join(' ')} --help\`.`, options);
  }
}

/** How long after a first stop signal the same signal is taken as a repeat of it, not as the user insisting. */
const SIGNAL_REPEAT_MS = 1_000;

/** Builds the `docwright` command line. */
export function buildProgram(): Command {
  const program = new DocwrightCommand('docwright')
    .description('Docwright: markdown to Word documents through your own Word template.')
    .version(packageJson.version, '-V, --version', 'print the version')
    .addHelpText('after', EXAMPLES)
    .exitOverride();

  program
    .command('convert')
    .description(
      'convert markdown to .docx: through the running app or `docwright serve` of the data directory, else in this process',
    )
    .argument('<input...>', "markdown files, folders (their .md files, not their subfolders'), or - for standard input")
    .option(
      '-o, --output <path>',
      'output .docx, or a folder to write into (with several inputs: a folder, made when missing); default: each INPUT with .docx beside it; standard output for -',
    )
    .option('-t, --template <file>', 'Word template (.docx or .dotx); default: the built-in "Docwright Default"')
    .option('-m, --mapping <file>', 'JSON file with a rules object, or a whole mapping object holding "rules"')
    .option('-q, --quiet', 'print nothing on success (warnings and errors still go to standard error)')
    .option('--no-images', 'keep images as placeholders instead of embedding the files beside INPUT (docs/images.md)')
    .option(
      '--number-sections',
      "number the headings 1, 1.1, 1.1.1 (pandoc's --number-sections); the front matter's number_sections wins",
    )
    .option(
      '--from <dialect>',
      "markdown dialect: gfm or pandoc (also markdown, pandoc's name for it); default: the front matter's markdown:, else gfm",
      parseFrom,
    )
    .option(
      '--bibliography <file>',
      "bibliography for the citations ([@key]): .bib/.bibtex/.biblatex (BibTeX), .json (CSL JSON) or .yaml/.yml (CSL YAML), from any folder; repeat for several; wins over the front matter's bibliography",
      (file: string, files: string[] | undefined) => [...(files ?? []), file],
    )
    .option(
      '--csl <file|name>',
      "citation style: a .csl file, or a bundled style (apa, vancouver, harvard1; default apa); wins over the front matter's csl",
    )
    .option(
      '--time-limit <seconds>',
      "longest a conversion may take, in seconds of CPU (default: the server's, 30; converts in this process)",
      parseTimeLimit,
    )
    .option(
      '--memory-limit <MB>',
      "most memory a conversion may use (default: the server's, 1024; converts in this process)",
      parseMemoryLimit,
    )
    .action(async (inputs: string[], opts: ConvertOpts, command: Command) => {
      await convertCommand(inputs, opts, dataDir(), (message) => command.error(message));
    });

  const template = program.command('template').description('work with Word templates');
  template
    .command('default')
    .description('write the built-in "Docwright Default" template, to edit in Word')
    .option('-o, --output <file>', 'where to write it', 'docwright-default.docx')
    .action(async (opts: { output: string }) => {
      const bytes = (await engine()).defaultTemplate();
      const output = outputPath(opts.output, 'docwright-default.docx');
      writeOutput(output, bytes);
      process.stderr.write(
        `Wrote ${output === '-' ? 'standard output' : output} (${(bytes.byteLength / 1024).toFixed(1)} KB): the built-in template "Docwright Default"\n`,
      );
    });
  template
    .command('styles')
    .description("list a template's styles as Word shows them (the names a mapping uses), by type and name")
    .argument('[file]', 'template .docx (default: the built-in one)')
    .option('--json', 'print JSON')
    .action(async (file: string | undefined, opts: { json?: boolean }) => {
      const { readTemplate, defaultTemplateRead } = await engine();
      const { listStyles, styleLines } = await import('./cli/template-styles.ts');
      const styles = listStyles((file ? readTemplate(readBytes(file, 'template')) : defaultTemplateRead()).styles);
      if (opts.json) process.stdout.write(`${JSON.stringify(styles, null, 2)}\n`);
      else for (const line of styleLines(styles)) process.stdout.write(`${line}\n`);
    });
  const dataDir = () => resolve(program.opts<{ dataDir?: string }>().dataDir ?? defaultDataDir());
  program.option('--data-dir <dir>', 'data directory (default: $DOCWRIGHT_HOME, else the per-user app-data folder)');
  const print = (text: string): void => void process.stdout.write(`${text}\n`);

  program
    .command('serve')
    .description('start the local API server (HTTPS on 127.0.0.1) and print its URL and the UI link')
    .option('-p, --port <port>', 'port (default: the port setting, 47823)')
    .option(
      '--host <host>',
      'address to bind: 127.0.0.1 (default), localhost or ::1; a team server: 0.0.0.0, :: or an address of this machine (with --allow-remote, --cert, --key)',
    )
    .option('--http', 'plain HTTP instead of HTTPS (loopback only)')
    .option('--verbose', "say the key secret's notices at every start, with the keychain's own words")
    .option('--allow-remote', 'team server: allow a --host beyond loopback (HTTPS with --cert/--key only)')
    .option(
      '--cert <file>',
      "your server certificate (PEM; intermediates may follow), served instead of Docwright's own",
    )
    .option('--key <file>', "the key of --cert (PEM, unencrypted, readable only by the server's user)")
    .option(
      '--public-host <name...>',
      "host names clients use, accepted besides the certificate's names (DNS rebinding defence)",
    )
    .action(
      async (opts: {
        port?: string;
        host?: string;
        http?: boolean;
        verbose?: boolean;
        allowRemote?: boolean;
        cert?: string;
        key?: string;
        publicHost?: string[];
      }) => {
        const port = opts.port === undefined ? undefined : Number(opts.port);
        if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
          throw new CliError('--port must be a number from 0 to 65535');
        const { startServer, sessionLinkLines } = await serverModules();
        // SIGINT, SIGTERM or SIGHUP closes the server (it answers what it is converting, then takes its discovery file,
        // admin token, link and lock). The handlers are in place before the server starts: a signal that comes while
        // it starts (or just as "running at" is read) closes it once it is up, where Node's default would end the
        // process on the spot and leave the files a client trusts. The same request often comes twice: a process
        // group's kill (`kill -- -PGID`, systemd's default stop) reaches both the server and, on a Node older than 22,
        // the launcher that passes it on. So a signal within SIGNAL_REPEAT_MS of the first is that one again; one after
        // it is the user insisting: the server stops at once, still without leaving the files a client would trust.
        // (test/cli-serve-stop.test.ts)
        let server: Awaited<ReturnType<typeof startServer>> | undefined;
        let closingSince: number | undefined;
        let ready = false;
        let closed = () => {};
        const finished = new Promise<void>((done) => (closed = done));
        const stop = (signal: NodeJS.Signals) => {
          if (closingSince === undefined) {
            closingSince = performance.now();
            if (ready) void server?.close().then(closed, closed);
          } else if (performance.now() - closingSince > SIGNAL_REPEAT_MS) {
            server?.abandon();
            // 128 + the signal's number, as a shell reports a process ended by it.
            process.exit(128 + constants.signals[signal]);
          }
        };
        const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
        for (const signal of signals) process.on(signal, stop);
        try {
          server = await startServer({
            dataDir: dataDir(),
            ...(port !== undefined ? { port } : {}),
            ...(opts.host ? { host: opts.host } : {}),
            http: opts.http ?? false,
            verbose: opts.verbose ?? false,
            // Team server (server/http/listen.ts).
            allowRemote: opts.allowRemote ?? false,
            ...(opts.cert !== undefined ? { tlsCert: opts.cert } : {}),
            ...(opts.key !== undefined ? { tlsKey: opts.key } : {}),
            ...(opts.publicHost ? { publicHosts: opts.publicHost.flatMap((h) => h.split(',')).filter(Boolean) } : {}),
          });
        } catch (error) {
          for (const signal of signals) process.off(signal, stop);
          throw error;
        }
        for (const warning of server.warnings) process.stderr.write(`warning: ${warning}\n`);
        // The link file is written before anything is printed: whoever reads "running at" finds it there.
        const linkLines = await sessionLinkLines(dataDir(), server.uiLink);
        if (closingSince !== undefined) {
          // Asked to stop while it started: closed (its link file too) before "running at" is printed.
          await server.close();
          return;
        }
        ready = true;
        print(`Docwright is running at ${server.discovery.url}`);
        for (const line of linkLines) print(line);
        if (server.discovery.cert_path && !opts.cert) {
          print('               Your browser warns once about the certificate Docwright made for this computer:');
          print('               check that it shows the fingerprint below, then proceed.');
        }
        if (server.discovery.cert_path)
          print(
            `Certificate:   ${server.discovery.cert_path} (${opts.cert ? 'yours' : 'curl --cacert it'}; SHA-256 ${String(server.discovery.fingerprint)})`,
          );
        print(`Data:          ${dataDir()}`);
        print('Stop with Ctrl+C.');
        await finished;
      },
    );

  program
    .command('open')
    .description("a new link that opens the running server's app in a browser (each link works once, within 5 minutes)")
    .action(async () => {
      const { newSessionLink, showSessionLink } = await serverModules();
      await showSessionLink(dataDir(), await newSessionLink(dataDir()), print);
    });

  program
    .command('mcp')
    .description(
      'MCP for AI agents on standard input/output: through the running server, else one started for the session',
    )
    .addHelpText('after', "\nAuthenticates with the running server's admin token, or with DOCWRIGHT_API_KEY when set.")
    .action(async () => {
      const { runStdio } = await mcpModule();
      const apiKey = process.env.DOCWRIGHT_API_KEY?.trim();
      await runStdio({ dataDir: dataDir(), ...(apiKey ? { apiKey } : {}) });
    });

  const keys = program.command('keys').description('API keys (shown once when created)');
  keys
    .command('create')
    .argument('<name>', 'a label, e.g. "CI script"')
    .description('create an API key and print it once')
    .option('--json', 'print JSON')
    .action(async (name: string, opts: { json?: boolean }) => {
      if (!name.trim() || name.length > 100) throw new CliError('the key name must have 1 to 100 characters');
      const { withAdmin } = await serverModules();
      const created = await withAdmin(dataDir(), (ops) => ops.createKey(name));
      if (opts.json) print(JSON.stringify(created, null, 2));
      else {
        print(created.key);
        process.stderr.write(`Created key ${created.id} (${created.name}). Copy it now: it is not shown again.\n`);
      }
    });
  keys
    .command('list')
    .description('list API keys (never their secrets)')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const { withAdmin } = await serverModules();
      const list = await withAdmin(dataDir(), (ops) => ops.listKeys());
      if (opts.json) return print(JSON.stringify(list, null, 2));
      if (list.length === 0) return print(`No API keys. Create one: ${docwrightCommand('keys create NAME')}`);
      for (const k of list)
        print(
          `${k.id}  ${k.key_prefix}…  ${k.name}  created ${k.created_at}  last used ${k.last_used_at ?? 'never'}${k.revoked_at ? `  REVOKED ${k.revoked_at}` : ''}`,
        );
    });
  keys
    .command('revoke')
    .argument('<id>', 'the key id (docwright keys list)')
    .description('revoke an API key; it fails from the next request on')
    .action(async (id: string) => {
      const { withAdmin } = await serverModules();
      const k = await withAdmin(dataDir(), (ops) => ops.revokeKey(id));
      print(`Revoked ${k.id} (${k.name}).`);
    });

  const config = program.command('config').description(`settings: ${CONFIG_KEYS.join(', ')}`);
  config
    .command('get')
    .argument('[key]', 'one setting (its value alone)')
    .description('print the settings as `key = value` lines, as `config set` prints them (or the value of one)')
    .option('--json', 'print JSON (null for unlimited and none)')
    .action(async (key: string | undefined, opts: { json?: boolean }) => {
      const { withAdmin } = await serverModules();
      const settings = await withAdmin(dataDir(), (ops) => ops.settings());
      if (key === undefined) {
        if (opts.json) return print(JSON.stringify(settings, null, 2));
        for (const name of CONFIG_KEYS) print(`${name} = ${settingText(name, settings[name])}`);
        return;
      }
      if (!(CONFIG_KEYS as readonly string[]).includes(key))
        throw new CliError(`unknown setting ${key}; use one of ${CONFIG_KEYS.join(', ')}`);
      const value = settings[key as keyof typeof settings];
      print(opts.json ? JSON.stringify(value) : settingText(key, value));
    });
  config
    .command('set')
    .argument('<key>')
    .argument('<value>')
    .description('change a setting (takes effect at once on a running server)')
    .action(async (key: string, value: string) => {
      const { withAdmin, parseSetting } = await serverModules();
      const patch = parseSetting(key, value);
      const settings = await withAdmin(dataDir(), (ops) => ops.updateSettings(patch));
      print(
        `${key} = ${settingText(key, settings[key as keyof typeof settings])}${key === 'port' ? ' (used from the next start)' : ''}`,
      );
    });

  program
    .command('cert')
    .description("print the path of the server's certificate (for curl --cacert)")
    .action(async () => {
      const { loadOrCreateCertificate, dataFolder } = await serverModules();
      const tls = await loadOrCreateCertificate(dataFolder(dataDir()).certificate);
      print(tls.certPath);
    });

  program
    .command('status')
    .description('is the server running? its URL, pid, plan and where the key secret is kept')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const { findRunningServer, callServer, withAdmin, loadSecret, PLAN_LIMITS, quotaOf } = await serverModules();
      const running = findRunningServer(dataDir());
      const settings = await withAdmin(dataDir(), (ops) => ops.settings());
      // The conversions `docwright convert` sent it since it started (docs/cli.md, "Through the running server").
      const served = running
        ? ((await callServer(running, 'GET', '/api/cli/convert').catch(() => undefined))?.body as {
            conversions?: number;
          } | null)
        : null;
      const keychain = running ? running.discovery.keychain : (await loadSecret(dataDir())).store;
      const status = {
        running: Boolean(running),
        url: running?.discovery.url ?? null,
        pid: running?.discovery.pid ?? null,
        plan: settings.plan,
        monthly_quota: quotaOf(settings),
        api_access: PLAN_LIMITS[settings.plan].api,
        keychain,
        data_dir: dataDir(),
        fingerprint: running?.discovery.fingerprint ?? null,
        cert_path: running?.discovery.cert_path ?? null,
        cli_conversions: served?.conversions ?? null,
      };
      if (opts.json) return print(JSON.stringify(status, null, 2));
      print(
        running
          ? `Running at ${String(status.url)} (pid ${String(status.pid)}); ${plural(status.cli_conversions ?? 0, 'conversion')} for \`docwright convert\` since it started`
          : `Not running (start it: ${docwrightCommand('serve')})`,
      );
      if (status.fingerprint) print(`Certificate: ${String(status.cert_path)} (SHA-256 ${status.fingerprint})`);
      print(
        `Plan: ${status.plan}; key secret in the ${keychain === 'keychain' ? 'OS keychain' : '0600 file in the data directory'}; data in ${status.data_dir}`,
      );
    });
  return program;
}

const plural = (count: number, one: string): string => `${String(count)} ${count === 1 ? one : `${one}s`}`;

/** Errors of the server modules a user can act on (named, so that checking them needs no import). */
const USER_ERRORS = new Set(['ServeError', 'DatabaseError', 'DataDirLockedError', 'DataDirError', 'PolicyError']);

/**
 * What ARGV asks of the conversion daemon, which is no more (issue 31): its commands (`docwright daemon …`) or
 * `--no-daemon`; undefined for any other command line. (DOCWRIGHT_DAEMON and DOCWRIGHT_DAEMON_DIR are read by
 * nothing now.)
 */
function removedUsage(argv: string[]): string | undefined {
  const end = argv.indexOf('--');
  const args = end === -1 ? argv : argv.slice(0, end);
  const words = args.filter((arg, i) => !arg.startsWith('-') && args[i - 1] !== '--data-dir');
  if (words[0] === 'daemon') return '`docwright daemon`';
  if (words[0] === 'convert' && args.includes('--no-daemon')) return '--no-daemon';
  return undefined;
}

/** Runs the command line; returns the exit status. */
export async function main(argv: string[]): Promise<number> {
  const removed = removedUsage(argv);
  if (removed) {
    process.stderr.write(
      `docwright: ${removed} was removed: there is no conversion daemon any more; \`docwright convert\` goes through the running app or \`docwright serve\` of its data folder, else converts in its own process and exits.\n`,
    );
    return 2;
  }
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof ExitStatus) return error.status;
    if (
      error instanceof CliError ||
      error instanceof ConvertInputError ||
      (error instanceof Error && USER_ERRORS.has(error.name))
    ) {
      process.stderr.write(`docwright: ${error.message.replace(/\s*\n\s*/g, ' ')}\n`);
      return 1;
    }
    process.stderr.write(`docwright: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
