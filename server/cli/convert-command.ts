// `docwright convert` (docs/cli.md): one input or many (files, and folders for their .md files), each converted
// through the running app or `docwright serve` of the data folder when there is one (its warm workers, under the
// limits of every conversion), else in worker threads of this process that end with it. No process outlives the
// command. A batch says one line per input, in order (the document written, or the error in one sentence), and
// ends with exit status 1 when any input failed, the others still written.
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { ConversionStats, Dialect, MappingRules } from '../convert/index.ts';
import { ConvertInputError } from '../convert/errors.ts';
import { dataFolder } from '../store/data-folder.ts';
import { readCitationFiles } from './citation-files.ts';
import type { BoundedConverter, CliJob, CliResult } from './convert-bounded.ts';
import type { ConvertLimits } from './convert-limits.ts';
import { CliError, ExitStatus } from './errors.ts';
import { outputPath, readBytes, readInput, readMapping, reason, writeOutput } from './files.ts';

/** The options of `convert`. */
export interface ConvertOpts {
  output?: string;
  template?: string;
  mapping?: string;
  quiet?: boolean;
  images: boolean;
  /** --number-sections: number the headings (the front matter's number_sections wins). */
  numberSections?: boolean;
  timeLimit?: number;
  memoryLimit?: number;
  /** --from: the markdown dialect (cli/dialect-option.ts). */
  from?: Dialect;
  /** --bibliography FILE, each time given (cli/citation-files.ts). */
  bibliography?: string[];
  /** --csl FILE|NAME. */
  csl?: string;
}

/** A wrong command line: said in one sentence with where the help is, exit status 2 (commander's error). */
export type Usage = (message: string) => never;

/** The names a folder's markdown files end with (a folder given as input converts these, not its subfolders'). */
const MARKDOWN = /\.(md|markdown)$/i;

/**
 * A warning as the command line prints it (in a batch after its input's name). Standard input has no folder to read
 * images from, so the engine's bare `image_placeholder: ALT` says why there (unless --no-images asked for
 * placeholders).
 */
export function warningLine(warning: string, fromStandardInput: boolean, input?: string, line?: number | null): string {
  const placeholder = /^image_placeholder: (.*)$/s.exec(warning);
  const text =
    fromStandardInput && placeholder
      ? `image_placeholder: images are not embedded from standard input: ${placeholder[1] ?? ''}`
      : warning;
  const where = `${input === undefined ? '' : `${input}: `}${line ? `line ${String(line)}: ` : ''}`;
  return `warning: ${where}${text.replace(/\s*\n\s*/g, ' ')}\n`;
}

const plural = (count: number, one: string, many = `${one}s`): string => `${count} ${count === 1 ? one : many}`;

/** The line `convert` prints on success: what it wrote, its size, the counts and the warnings. */
export function convertSummary(output: string, bytes: number, stats: ConversionStats, warnings: number): string {
  const where = output === '-' ? 'standard output' : output;
  const counts = [
    plural(stats.headings, 'heading'),
    plural(stats.paragraphs, 'paragraph'),
    plural(stats.lists, 'list'),
    plural(stats.tables, 'table'),
    plural(stats.code_blocks, 'code block'),
    plural(stats.images, 'image'),
  ].join(', ');
  return `Wrote ${where} (${(bytes / 1024).toFixed(1)} KB): ${counts}; ${warnings === 0 ? 'no warnings' : plural(warnings, 'warning')}`;
}

/** Output path: INPUT with a .docx extension, or standard output for standard input. */
function defaultOutput(input: string): string {
  if (input === '-') return '-';
  const name = basename(input, extname(input));
  return resolve(input, '..', `${name}.docx`);
}

const docxName = (input: string): string => `${basename(input, extname(input))}.docx`;

/** One input of the run: to convert into `output`, or already refused (`error`, its line). */
type Item = { input: string; output: string } | { error: string; reads?: string };

/**
 * Whether a folder's entry that is not plainly a file (a symbolic link, a type the folder does not say) is one of its
 * files to convert: one that leads to a file, or nowhere (a dangling link, a loop, gone meanwhile), whose error is
 * then that input's own line; never a folder, a pipe or a device (a pipe would never be read to its end).
 */
function fileToRead(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return true;
  }
}

/** Whether two paths name the same existing file (device and inode, after links). */
function sameFile(a: string, b: string): boolean {
  const one = statSync(a, { throwIfNoEntry: false });
  const two = one && statSync(b, { throwIfNoEntry: false });
  return one !== undefined && two !== undefined && one.dev === two.dev && one.ino === two.ino;
}

/** The inputs of a batch, in order: each file, and each folder's markdown files by name. */
function batchItems(args: string[], outDir: string | undefined): Item[] {
  const items: Item[] = [];
  const seen = new Set<string>();
  /** Each document written, by its resolved path, and the input it comes from. */
  const outputs = new Map<string, string>();
  for (const arg of args) {
    let files = [arg];
    if (statSync(arg, { throwIfNoEntry: false })?.isDirectory()) {
      try {
        files = readdirSync(arg, { withFileTypes: true })
          .filter((e) => MARKDOWN.test(e.name) && (e.isFile() || fileToRead(join(arg, e.name))))
          .map((e) => join(arg, e.name))
          .sort();
      } catch (error) {
        items.push({ error: `cannot read the folder ${arg}: ${reason(error)}` });
        continue;
      }
      if (files.length === 0) {
        items.push({ error: `the folder ${arg} holds no .md files.` });
        continue;
      }
    }
    for (const input of files) {
      // The same file twice (named again, or also in a folder given) is converted once.
      if (seen.has(resolve(input))) continue;
      seen.add(resolve(input));
      const output = outDir === undefined ? defaultOutput(input) : join(outDir, docxName(input));
      const first = outputs.get(resolve(output));
      if (first !== undefined) {
        items.push({
          error: `${input} was not converted: its document ${output} is also that of ${first}; convert them into different folders.`,
          reads: input,
        });
        continue;
      }
      outputs.set(resolve(output), input);
      items.push({ input, output });
    }
  }
  return items;
}

/** The folder -o names for a batch: made when missing; a file (or a .docx name) is a usage error. */
function batchFolder(output: string | undefined, usage: Usage): string | undefined {
  if (output === undefined) return undefined;
  if (output === '-') usage('with several inputs, -o names a folder, not standard output');
  const stat = statSync(output, { throwIfNoEntry: false });
  if ((stat && !stat.isDirectory()) || (!stat && /\.docx$/i.test(output)))
    usage(`with several inputs, -o names a folder, not the file ${output}`);
  if (!stat)
    try {
      mkdirSync(output, { recursive: true });
    } catch (error) {
      throw new CliError(`cannot make the folder ${output}: ${reason(error)}`);
    }
  return output;
}

/** Converts one input; its document, or why not (an error whose message is the line to print). */
interface Converter {
  /** The document; `by` says who converted it when not this process (the running server, by its pid). */
  convert(job: CliJob, label: string): Promise<CliResult & { by?: string }>;
  close(): Promise<void>;
}

/** The conversion's error of a server's refusal, as the command line converting alone would give it. */
class ServerRefusal extends Error {}

/**
 * The running server of DATADIR as a converter, or undefined when there is none. A conversion it cannot take
 * (gone meanwhile, busy, an answer this command does not know) is converted in this process by `fallback`.
 */
async function serverConverter(dataDir: string, fallback: () => Promise<Converter>): Promise<Converter | undefined> {
  // The discovery file first: without one no server runs, and nothing more is loaded.
  const folder = dataFolder(dataDir);
  if (folder.readDiscovery() === undefined) return undefined;
  // One that another user could have written names a server that may be theirs: the document is converted here.
  const untrusted = folder.untrusted();
  if (untrusted !== undefined) {
    process.stderr.write(
      `warning: ${untrusted.replace(/\. Make it .*$|\. Run Docwright .*$/s, '')}; converted here, not by the server it names.\n`,
    );
    return undefined;
  }
  const { callServer, findRunningServer } = await import('./running-server.ts');
  const server = findRunningServer(dataDir);
  if (!server) return undefined;
  let gone = false;
  const by = `converted by the running server (pid ${String(server.discovery.pid)})`;
  return {
    async convert(job, label) {
      if (!gone) {
        const body = {
          markdown: job.markdown,
          ...(job.template ? { template: Buffer.from(job.template).toString('base64') } : {}),
          ...(job.mapping === undefined ? {} : { mapping: job.mapping }),
          ...(job.folder === undefined ? {} : { folder: job.folder }),
          ...(job.numberSections ? { number_sections: true } : {}),
          ...(job.dialect === undefined ? {} : { dialect: job.dialect }),
          ...(job.bibliography === undefined ? {} : { bibliography: job.bibliography }),
          ...(job.csl === undefined ? {} : { csl: job.csl }),
          created: job.created,
        };
        // The server's own limits end a long conversion; this only notices a server that stopped answering.
        const answer = await callServer(server, 'POST', '/api/cli/convert', body, 10 * 60_000).catch(() => undefined);
        if (answer?.status === 200) {
          const result = answer.body as Omit<CliResult, 'docx' | 'warningLines'> & {
            docx: string;
            warning_lines?: (number | null)[];
          };
          return {
            docx: new Uint8Array(Buffer.from(result.docx, 'base64')),
            warnings: result.warnings,
            ...(result.warning_lines ? { warningLines: result.warning_lines } : {}),
            stats: result.stats,
            ...(result.matched ? { matched: result.matched } : {}),
            by,
          };
        }
        type Refusal = { error?: { code?: string; message?: string; limit?: string; reason?: string } } | null;
        const error = (answer?.body as Refusal | undefined)?.error;
        if (answer?.status === 422 && error?.code === 'validation_error')
          throw new ConvertInputError('markdown_invalid', error.message ?? 'the input was refused');
        if (answer?.status === 422 && error?.code === 'document_too_complex' && error.limit && error.reason) {
          const { limitError } = await import('./convert-bounded.ts');
          throw new ServerRefusal(limitError(error.limit as 'time' | 'memory' | 'engine', error.reason, label).message);
        }
        // Not answered (stopped, busy, another version's answer): this process converts, this one and the rest.
        gone = answer?.status !== 503;
      }
      return (await fallback()).convert(job, label);
    },
    close: async () => undefined,
  };
}

/**
 * A template the engine refused, in one sentence that names it (the engine's message, the API's too, is two: "This
 * file is not a Word template (.docx or .dotx). It is not a zip package.").
 */
function templateRefused(error: unknown, template: string | undefined): CliError | undefined {
  if (!(error instanceof ConvertInputError) || error.code !== 'template_invalid' || template === undefined)
    return undefined;
  const sentence = error.message.replace(/\.\s+(\S)/g, (_, first: string) => `: ${first.toLowerCase()}`);
  return new CliError(`template ${template}: ${sentence.charAt(0).toLowerCase()}${sentence.slice(1)}`);
}

/** Runs `docwright convert ARGS`. */
export async function convertCommand(args: string[], opts: ConvertOpts, dataDir: string, usage: Usage): Promise<void> {
  const batch = args.length > 1 || args.some((arg) => statSync(arg, { throwIfNoEntry: false })?.isDirectory());
  let items: Item[];
  if (batch) {
    if (args.includes('-')) usage('standard input (-) is converted alone, not with other inputs');
    items = batchItems(args, batchFolder(opts.output, usage));
  } else {
    const input = args[0] ?? '-';
    const output =
      opts.output === undefined
        ? defaultOutput(input)
        : outputPath(opts.output, input === '-' ? undefined : docxName(input));
    if (output === '-' && process.stdout.isTTY)
      throw new CliError('refusing to write a .docx to a terminal; use -o FILE');
    items = [{ input, output }];
  }
  // A document is never written over a file this command reads (the same file by any path: a link, another spelling).
  // Every file named as an input (refused ones too: still the user's files).
  const inputs = items.flatMap((item) => ('input' in item ? [item.input] : item.reads ? [item.reads] : []));
  items = items.map((item) => {
    if (!('input' in item) || item.output === '-') return item;
    const over = (path: string | undefined) => path !== undefined && path !== '-' && sameFile(item.output, path);
    const other = inputs.find((input) => input !== item.input && over(input));
    const what = over(item.input)
      ? 'that input itself'
      : other !== undefined
        ? `the input ${other}`
        : over(opts.template)
          ? 'the template'
          : over(opts.mapping)
            ? 'the mapping'
            : over(opts.csl) || opts.bibliography?.some(over)
              ? 'a bibliography or style this command reads'
              : undefined;
    if (what === undefined) return item;
    return {
      error: `${item.input} was not converted: its document ${item.output} is ${what}; write it elsewhere with -o.`,
    };
  });
  const template = opts.template ? readBytes(opts.template, 'template') : undefined;
  const mapping: MappingRules | { rules: MappingRules } | undefined = opts.mapping
    ? readMapping(opts.mapping)
    : undefined;
  // Read once, sent with every input's markdown: they win over each front matter's bibliography and csl.
  const citations = await readCitationFiles(opts.bibliography, opts.csl);
  // Under the server's time and memory limits, or those the user gave (docs/cli.md, "Limits"): with limits of their
  // own the conversions run here, where they apply.
  const limits: ConvertLimits = {
    ...(opts.timeLimit === undefined ? {} : { timeoutMs: opts.timeLimit }),
    ...(opts.memoryLimit === undefined ? {} : { memoryMb: opts.memoryLimit }),
  };
  const jobs = items.filter((item) => 'input' in item).length;
  // As many conversions at once as there are cores (a worker each), never more than there are inputs.
  const parallel = Math.max(1, Math.min(jobs, availableParallelism()));
  let local: Promise<BoundedConverter> | undefined;
  const own = async (): Promise<Converter> => {
    local ??= import('./convert-bounded.ts').then(
      ({ BoundedConverter }) => new BoundedConverter(limits, parallel, jobs),
    );
    return local;
  };
  const server = jobs > 0 && Object.keys(limits).length === 0 ? await serverConverter(dataDir, own) : undefined;
  const converter = server ?? (await own());

  // Said once, before the first document written: the template's styles as an upload would map them.
  let matchSaid = false;

  /** Converts one item and writes its document: the lines to print (warnings, then the result), and whether it failed. */
  const run = async (item: Item): Promise<{ lines: string[]; failed: boolean }> => {
    if ('error' in item) return { lines: [`docwright: ${item.error}\n`], failed: true };
    const { input, output } = item;
    const label = input === '-' ? 'standard input' : input;
    try {
      const markdown = await readInput(input);
      // Images are read from INPUT's folder only; standard input has no folder, so its images stay placeholders.
      const folder = opts.images && input !== '-' ? dirname(resolve(input)) : undefined;
      const numberSections = opts.numberSections === true;
      const dialect = opts.from ? { dialect: opts.from } : {};
      const job = {
        markdown,
        template,
        mapping,
        folder,
        created: Date.now(),
        numberSections,
        ...dialect,
        ...citations,
      };
      const result = await converter.convert(job, label);
      const lines = result.warnings.map((w, i) =>
        warningLine(w, input === '-' && opts.images, batch ? label : undefined, result.warningLines?.[i]),
      );
      writeOutput(output, result.docx);
      if (result.matched && !matchSaid && !opts.quiet) {
        matchSaid = true;
        lines.unshift(
          `mapping: the template's styles matched by name, ${String(result.matched.matched)} of ${String(result.matched.of)} elements (--mapping FILE to choose them)\n`,
        );
      }
      if (!opts.quiet) {
        const by = 'by' in result && result.by ? `; ${result.by}` : '';
        lines.push(`${convertSummary(output, result.docx.byteLength, result.stats, result.warnings.length)}${by}\n`);
      }
      return { lines, failed: false };
    } catch (caught) {
      const error = templateRefused(caught, opts.template) ?? caught;
      if (!batch) throw error instanceof ServerRefusal ? new CliError(error.message) : error;
      const known = error instanceof CliError || error instanceof ServerRefusal;
      const message = error instanceof Error ? error.message : String(error);
      const text = known
        ? message
        : error instanceof ConvertInputError
          ? `${label}: ${message}`
          : `${label}: unexpected error: ${message}`;
      return { lines: [`docwright: ${text.replace(/\s*\n\s*/g, ' ')}\n`], failed: true };
    }
  };

  // PARALLEL conversions at a time; each input's lines printed in the inputs' order as soon as they are known.
  const done: ({ lines: string[]; failed: boolean } | undefined)[] = items.map(() => undefined);
  let next = 0;
  let printed = 0;
  const failures: boolean[] = [];
  const flush = (): void => {
    for (let result = done[printed]; result !== undefined; result = done[printed]) {
      for (const line of result.lines) process.stderr.write(line);
      failures.push(result.failed);
      done[printed] = undefined;
      printed += 1;
    }
  };
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      done[index] = await run(items[index] as Item);
      flush();
    }
  };
  try {
    await Promise.all(Array.from({ length: parallel }, lane));
  } finally {
    await converter.close();
    if (local && converter !== (await local)) await (await local).close();
  }
  if (failures.includes(true)) throw new ExitStatus(1);
}
