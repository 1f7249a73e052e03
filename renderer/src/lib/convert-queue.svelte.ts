// The files the user converts in this session: each read, sent, and shown with its result, one at a time so the
// monthly quota is spent in the order the files were given.
import { api, ApiProblem, type Conversion } from './api.ts';

/** Extensions the drop zone takes. */
export const ACCEPTED = ['.md', '.markdown', '.txt'];
/** Largest markdown the server takes (10 MiB); larger files are refused before they are read. */
export const MAX_MARKDOWN_BYTES = 10 * 1024 * 1024;

export type JobState = 'queued' | 'reading' | 'converting' | 'done' | 'failed';

export interface Source {
  /** The name shown and used for the output (without extension). */
  name: string;
  /** A file to read, or text pasted by the user. */
  file?: File;
  text?: string;
}

export class Job {
  readonly id = crypto.randomUUID();
  state = $state<JobState>('queued');
  /** 0–1 while the file is read; null while the server converts (indeterminate). */
  progress = $state<number | null>(0);
  result = $state<Conversion | null>(null);
  error = $state<string | null>(null);

  constructor(readonly source: Source) {}

  get label(): string {
    return this.source.file?.name ?? `Pasted text (${this.source.name})`;
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

export class ConvertQueue {
  jobs = $state<Job[]>([]);
  running = $state(false);

  /** Adds files or pasted text and converts them with the given template and mapping. */
  async add(sources: Source[], choice: { templateId: string; mappingId: string }, onDone?: () => void): Promise<void> {
    const jobs = sources.map((s) => new Job(s));
    // Job keeps its own reactive fields ($state), so the instances themselves are updated as they run.
    this.jobs = [...jobs, ...this.jobs];
    this.running = true;
    try {
      for (const job of jobs) await this.run(job, choice);
    } finally {
      this.running = this.jobs.some((j) => j.state === 'queued' || j.state === 'reading' || j.state === 'converting');
      onDone?.();
    }
  }

  private async run(job: Job, choice: { templateId: string; mappingId: string }): Promise<void> {
    try {
      let markdown = job.source.text ?? '';
      const file = job.source.file;
      if (file) {
        if (file.size > MAX_MARKDOWN_BYTES) throw new Error(`${file.name} is larger than 10 MB, the most Docwright converts at once. Split it into smaller files.`);
        job.state = 'reading';
        markdown = await readText(file, (fraction) => {
          job.progress = fraction;
        });
      }
      if (markdown.trim().length === 0) throw new Error(`${job.label} is empty; there is nothing to convert.`);
      job.state = 'converting';
      job.progress = null;
      job.result = await api.convert({ markdown, template_id: choice.templateId, mapping_id: choice.mappingId, filename: job.source.name.slice(0, 200) });
      job.state = 'done';
      job.progress = 1;
    } catch (error) {
      job.state = 'failed';
      job.error = error instanceof ApiProblem || error instanceof Error ? error.message : String(error);
    }
  }

  clearFinished(): void {
    this.jobs = this.jobs.filter((j) => j.state !== 'done' && j.state !== 'failed');
  }

  get finished(): Job[] {
    return this.jobs.filter((j) => j.state === 'done');
  }
}
