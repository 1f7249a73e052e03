// The files the user converts in this session: each read, sent, and shown with its result. A batch runs on as many
// conversions at once as the server has workers (from its settings), started in the order the files were given.
import { api, ApiProblem, type Conversion } from './api.ts';
import {
  checkBibliography,
  checkSize,
  checkStyle,
  chooseCitations,
  describeBibliography,
  describeStyle,
  frontMatterNames,
  isNamed,
  joinBibliographies,
  type Bibliography,
  type CslStyle,
} from './citation-files.ts';
import { imagesToSend } from './image-files.ts';

/** Extensions the drop zone takes. */
export const ACCEPTED = ['.md', '.markdown', '.txt'];
/** Largest markdown the server takes (10 MiB); larger files are refused before they are read. */
export const MAX_MARKDOWN_BYTES = 10 * 1024 * 1024;

export type JobState = 'queued' | 'reading' | 'converting' | 'done' | 'failed' | 'cancelled';

export interface Source {
  /** The name shown and used for the output (without extension). */
  name: string;
  /** A file to read, or text pasted by the user. */
  file?: File;
  text?: string;
  /** Image files that came with the file, by path relative to it: the ones it names are embedded. */
  images?: ReadonlyMap<string, File>;
  /** Bibliographies and CSL styles that came with the file, by path relative to it (docs/captions-references.md). */
  citationFiles?: ReadonlyMap<string, File>;
}

export class Job {
  readonly id = crypto.randomUUID();
  state = $state<JobState>('queued');
  /** 0–1 while the file is read; null while the server converts (indeterminate). */
  progress = $state<number | null>(0);
  result = $state<Conversion | null>(null);
  error = $state<string | null>(null);
  /** When the job started reading or converting (ms since the epoch); null while it waits. */
  startedAt = $state<number | null>(null);
  /** The bibliography and style sent with it, in words ("refs.bib · BibTeX, 20 entries"); null: none. */
  citations = $state<string | null>(null);
  /** Aborts the request: the server ends the conversion's worker and charges nothing. */
  private readonly abort = new AbortController();

  constructor(readonly source: Source) {}

  get label(): string {
    return this.source.file?.name ?? `Pasted text (${this.source.name})`;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Whether the job is still to finish (waiting, reading or converting). */
  get active(): boolean {
    return this.state === 'queued' || this.state === 'reading' || this.state === 'converting';
  }

  /** Stops the job: a waiting one never starts; a running one's conversion is stopped on the server. */
  cancel(): void {
    if (!this.active) return;
    this.abort.abort();
    this.state = 'cancelled';
  }
}

/** Whether a file looks like markdown by its name (browsers give no reliable type for .md). */
export function isMarkdownFile(name: string): boolean {
  const lower = name.toLowerCase();
  return ACCEPTED.some((ext) => lower.endsWith(ext));
}

/** The output's name: the file's name without its extension. */
export function baseName(name: string): string {
  return name.replace(/\.(md|markdown|txt)$/i, '') || 'document';
}

function readText(file: File, onProgress: (fraction: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    reader.onload = () => resolve(typeof reader.result === 'string' ? reader.result : '');
    reader.onerror = () => reject(new Error(`Could not read ${file.name}.`));
    reader.readAsText(file, 'utf-8');
  });
}

/** What a conversion is asked with: the template, the mapping, and whether to number the headings. */
export interface Choice {
  templateId: string;
  mappingId: string;
  /** Number the headings (the API's number_sections; the front matter's says otherwise). */
  numberSections?: boolean;
  /** The bibliography and the style given on the page (its button), for markdown that brings none of its own. */
  bibliography?: Bibliography | undefined;
  csl?: CslStyle | undefined;
}

/** A file's text, refused before it is read when it is larger than the API takes. */
async function citationText(file: File): Promise<string> {
  checkSize(file.name, file.size);
  return file.text();
}

/** The bibliography and style one markdown is sent with: its own files (read and checked), else the page's. */
async function citationsFor(
  name: string,
  markdown: string,
  files: ReadonlyMap<string, File> | undefined,
  choice: Choice,
): Promise<{ bibliography: Bibliography | undefined; csl: CslStyle | undefined }> {
  // Nothing to cite: nothing is read or sent (the server formats citations only where an `@` is).
  if (!markdown.includes('@')) return { bibliography: undefined, csl: undefined };
  const names = await frontMatterNames(markdown);
  // In a chosen or dropped folder, a .json or .yaml file is data as often as a bibliography: taken only when named.
  const usable = new Map(
    [...(files ?? [])].filter(
      ([path, file]) => !file.webkitRelativePath || !/\.(json|ya?ml)$/i.test(path) || isNamed(path, names.bibliography),
    ),
  );
  const chosen = chooseCitations<File | Bibliography | CslStyle>(name, names, usable, {
    bibliography: choice.bibliography,
    csl: choice.csl,
  });
  const bibliographies: Bibliography[] = [];
  for (const given of chosen.bibliography)
    if (given instanceof File) bibliographies.push(await checkBibliography(given.name, await citationText(given)));
    else if ('format' in given) bibliographies.push(given);
  const given = chosen.csl;
  const csl =
    given instanceof File
      ? checkStyle(given.name, await citationText(given))
      : given && 'xml' in given
        ? given
        : undefined;
  return {
    bibliography: bibliographies.length > 0 ? await joinBibliographies(bibliographies) : undefined,
    csl,
  };
}

export class ConvertQueue {
  jobs = $state<Job[]>([]);
  running = $state(false);
  /** The jobs of the batches still running (for "3 of 5"); emptied when all have finished. */
  batch = $state<Job[]>([]);

  /**
   * Adds files or pasted text and converts them with the given template and mapping, `concurrency` at a time (the
   * server's workers), starting them in the order given.
   */
  async add(sources: Source[], choice: Choice, onDone?: () => void, concurrency = 1): Promise<void> {
    const jobs = sources.map((s) => new Job(s));
    // Job keeps its own reactive fields ($state), so the instances themselves are updated as they run.
    this.jobs = [...jobs, ...this.jobs];
    this.batch = [...this.batch.filter((j) => j.active), ...jobs];
    this.running = true;
    let next = 0;
    const lane = async (): Promise<void> => {
      for (let job = jobs[next++]; job; job = jobs[next++]) if (job.state === 'queued') await this.run(job, choice);
    };
    try {
      await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, jobs.length)) }, lane));
    } finally {
      this.running = this.jobs.some((j) => j.active);
      if (!this.batch.some((j) => j.active)) this.batch = [];
      onDone?.();
    }
  }

  private async run(job: Job, choice: Choice): Promise<void> {
    try {
      job.startedAt = Date.now();
      let markdown = job.source.text ?? '';
      const file = job.source.file;
      if (file) {
        if (file.size > MAX_MARKDOWN_BYTES)
          throw new Error(
            `${file.name} is larger than 10 MB, the most Docwright converts at once. Split it into smaller files.`,
          );
        job.state = 'reading';
        markdown = await readText(file, (fraction) => {
          job.progress = fraction;
        });
      }
      if (job.signal.aborted) return;
      // An empty file converts to a valid empty document with the warning empty_document, as the CLI makes it. The
      // API takes at least one character (SPEC), so it is sent as one line break: the same document, the same warning.
      if (markdown === '') markdown = '\n';
      job.state = 'converting';
      job.progress = null;
      const body = {
        markdown,
        template_id: choice.templateId,
        mapping_id: choice.mappingId,
        filename: job.source.name.slice(0, 200),
        ...(choice.numberSections ? { number_sections: true } : {}),
      };
      const images = imagesToSend(markdown, job.source.images);
      const { bibliography, csl } = await citationsFor(job.label, markdown, job.source.citationFiles, choice);
      job.citations =
        [bibliography && describeBibliography(bibliography), csl && describeStyle(csl)].filter(Boolean).join('; ') ||
        null;
      // Reading the bibliography took a moment: a job cancelled meanwhile is not sent (the catch says cancelled).
      job.signal.throwIfAborted();
      job.result =
        images.size > 0 || bibliography || csl
          ? await api.convertWithFiles(body, { images, bibliography, csl }, job.signal)
          : await api.convert(body, job.signal);
      job.state = 'done';
      job.progress = 1;
    } catch (error) {
      if (job.signal.aborted) {
        job.state = 'cancelled';
        return;
      }
      job.state = 'failed';
      job.error = error instanceof ApiProblem || error instanceof Error ? error.message : String(error);
    }
  }

  /** Cancels every job still waiting or running. */
  cancelAll(): void {
    for (const job of this.jobs) job.cancel();
  }

  clearFinished(): void {
    this.jobs = this.jobs.filter((j) => j.active);
  }

  get finished(): Job[] {
    return this.jobs.filter((j) => j.state === 'done');
  }
}
