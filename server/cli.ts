import { readFileSync, writeFileSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { convert, ConvertInputError, defaultTemplate, readTemplate, type MappingRules } from './convert/index.ts';

/** An error the user can fix: printed as one line, exit status 1. */
class CliError extends Error {}

function readInput(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${path === '-' ? 'standard input' : path}: ${reason(error)}`);
  }
}

function readBytes(path: string, what: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch (error) {
    throw new CliError(`cannot read ${what} ${path}: ${reason(error)}`);
  }
}

function reason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'no such file';
  if (e.code === 'EISDIR') return 'it is a directory';
  if (e.code === 'EACCES') return 'permission denied';
  return e.message ?? String(error);
}

function readMapping(path: string): MappingRules | { rules: MappingRules } {
  const text = readInput(path);
  try {
    return JSON.parse(text) as MappingRules;
  } catch (error) {
    throw new CliError(`mapping ${path} is not valid JSON: ${(error as Error).message}`);
  }
}

function writeOutput(path: string, bytes: Uint8Array): void {
  try {
    if (path === '-') process.stdout.write(bytes);
    else writeFileSync(path, bytes);
  } catch (error) {
    throw new CliError(`cannot write ${path}: ${reason(error)}`);
  }
}

/** Output path: INPUT with a .docx extension, or standard output for standard input. */
function defaultOutput(input: string): string {
  if (input === '-') return '-';
  const name = basename(input, extname(input));
  return resolve(input, '..', `${name}.docx`);
}

/** Builds the `docwright` command line. */
export function buildProgram(): Command {
  const program = new Command('docwright')
    .description('Docwright: markdown to Word documents through your own Word template.')
    .showHelpAfterError()
    .exitOverride();

  program
    .command('convert')
    .description('convert markdown to .docx offline (no server needed)')
    .argument('<input>', 'markdown file, or - for standard input')
    .option('-o, --output <file>', 'output .docx (default: INPUT with .docx; standard output for -)')
    .option('-t, --template <file>', 'Word template (.docx or .dotx); default: the built-in "Docwright Default"')
    .option('-m, --mapping <file>', 'JSON file with a rules object, or a whole mapping object holding "rules"')
    .action((input: string, opts: { output?: string; template?: string; mapping?: string }) => {
      const markdown = readInput(input);
      const template = opts.template ? readBytes(opts.template, 'template') : undefined;
      const mapping = opts.mapping ? readMapping(opts.mapping) : undefined;
      const output = opts.output ?? defaultOutput(input);
      if (output === '-' && process.stdout.isTTY) throw new CliError('refusing to write a .docx to a terminal; use -o FILE');
      const result = convert({ markdown, template, mapping });
      for (const warning of result.warnings) process.stderr.write(`${warning}\n`);
      writeOutput(output, result.docx);
    });

  const template = program.command('template').description('work with Word templates');
  template
    .command('default')
    .description('write the built-in "Docwright Default" template, to edit in Word')
    .option('-o, --output <file>', 'where to write it', 'docwright-default.docx')
    .action((opts: { output: string }) => writeOutput(opts.output, defaultTemplate()));
  template
    .command('styles')
    .description("list a template's styles (the names a mapping uses)")
    .argument('[file]', 'template .docx (default: the built-in one)')
    .option('--json', 'print JSON')
    .action((file: string | undefined, opts: { json?: boolean }) => {
      const styles = readTemplate(file ? readBytes(file, 'template') : defaultTemplate()).styles;
      if (opts.json) process.stdout.write(`${JSON.stringify(styles.map(({ name, id, type }) => ({ name, id, type })), null, 2)}\n`);
      else for (const s of styles) process.stdout.write(`${s.type.padEnd(10)} ${s.name}\n`);
    });
  return program;
}

/** Runs the command line; returns the exit status. */
export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof CliError || error instanceof ConvertInputError) {
      process.stderr.write(`docwright: ${error.message.replace(/\s*\n\s*/g, ' ')}\n`);
      return 1;
    }
    process.stderr.write(`docwright: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
