// A conversion worker: runs the pure engine on the jobs the pool sends, with the templates it was sent read once
// and kept by key. Loaded from dist/convert-worker.js (the build) or, from the sources, through tsx-worker.mjs.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import {
  convert,
  ConvertInputError,
  defaultTemplateRead,
  detailsOf,
  matchedCount,
  OutputTooLargeError,
  readTemplate,
  sanitizedBytes,
  suggestRules,
  type Renderer,
  type RenderResult,
  type Template,
} from '../convert/index.ts';
import { sourceOf } from '../confined/image-folder.ts';
import { renderInChild } from './render-child.ts';
import { writeFileAtomicSync } from '../store/files.ts';
import type {
  ForgetMessage,
  InspectMessage,
  InspectResultMessage,
  JobMessage,
  ReadyMessage,
  ResultMessage,
} from './protocol.ts';
import { BUILTIN_TEMPLATE_KEY } from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('server/convert-pool/worker.ts runs only as a worker thread');

const templates = new Map<string, Template>();

// On Linux a nice value is per thread: this worker yields the CPU to the event loop (health, every other request)
// when the cores are busy, and a large conversions' worker to the others (the pool says which: pool.ts). Elsewhere
// it would lower the whole process, so it is left alone.
const nice = (workerData as { nice?: unknown } | null)?.nice;
if (process.platform === 'linux') {
  try {
    setPriority(typeof nice === 'number' ? nice : 5);
  } catch {
    // Not permitted (a sandbox): the worker runs at the process's priority.
  }
}

// SVGs are rendered by the pool, in child processes it kills with the job (pool.ts): this thread asks and waits. A
// thread cannot stop a native call, nor a child it started when it is ended itself; the pool can do both.
const renders = (workerData as { renders?: { port: MessagePort; flag: SharedArrayBuffer } } | null)?.renders;
const flag = renders ? new Int32Array(renders.flag) : undefined;
/** How this worker's conversions render SVGs (the engine starts no process): through the pool (given a render
 * channel when it has a render launcher), else a child each. */
const renderer: Renderer =
  renders && flag
    ? (request) => {
        Atomics.store(flag, 0, 0);
        renders.port.postMessage(request);
        // Woken by the pool's answer (it always answers, or ends this worker).
        Atomics.wait(flag, 0, 0);
        const answer = receiveMessageOnPort(renders.port)?.message as RenderResult | undefined;
        return answer ?? { ok: false, reason: 'an SVG that cannot be rendered' };
      }
    : renderInChild;

/** A RangeError from deep in the engine is the input exhausting the stack or a string's maximum length. */
function tooComplex(error: unknown): boolean {
  return error instanceof RangeError && /call stack|string length|array length|allocation/i.test(error.message);
}

function failure(id: number, error: unknown): Extract<ResultMessage, { ok: false }> {
  if (error instanceof ConvertInputError)
    return { id, ok: false, kind: 'input', code: error.code, message: error.message };
  if (tooComplex(error) || error instanceof OutputTooLargeError)
    return { id, ok: false, kind: 'too_complex', message: (error as Error).message };
  return {
    id,
    ok: false,
    kind: 'internal',
    message: error instanceof Error ? (error.stack ?? error.message) : String(error),
  };
}

/** Reads (and so checks and sanitises) a template; the main thread stores the clean bytes it gets back. */
function inspect(job: InspectMessage): InspectResultMessage {
  try {
    const template = readTemplate(job.bytes);
    const sanitized = sanitizedBytes(job.bytes, template);
    // Moved, not copied, to the main thread: a buffer of its own.
    const clean =
      sanitized === job.bytes
        ? null
        : sanitized.byteOffset === 0 && sanitized.byteLength === sanitized.buffer.byteLength
          ? sanitized
          : sanitized.slice();
    return {
      id: job.id,
      ok: true,
      inspected: true,
      clean,
      warnings: [...template.warnings],
      styles: [...template.styles],
    };
  } catch (error) {
    return failure(job.id, error);
  }
}

async function run(job: JobMessage): Promise<ResultMessage> {
  for (const key of job.evict) templates.delete(key);
  try {
    let template = templates.get(job.templateKey);
    if (!template) {
      if (job.templateBytes) template = readTemplate(job.templateBytes);
      else if (job.templateKey === BUILTIN_TEMPLATE_KEY) template = defaultTemplateRead();
      else return { id: job.id, ok: false, kind: 'internal', message: `template ${job.templateKey} was not sent` };
      templates.set(job.templateKey, template);
    }
    // A template sent without a mapping (the command line's --template alone) is mapped as its upload would be.
    const matched =
      job.mapping === undefined && job.templateKey !== BUILTIN_TEMPLATE_KEY ? suggestRules(template.styles) : undefined;
    const mapping = job.mapping ?? matched;
    const result = await convert({
      markdown: job.markdown,
      template,
      ...(mapping ? { mapping } : {}),
      created: job.created,
      ...(job.images ? { images: sourceOf(job.images), renderer } : {}),
      ...(job.numberSections ? { numberSections: true } : {}),
      ...(job.dialect ? { dialect: job.dialect } : {}),
      ...job.citations,
    });
    // Stored here, before the answer, where the pool asks (the server's outputs): this thread may block on the disk
    // for the ~0.5 ms a flush takes, where the event loop would wait for five trips through libuv's thread pool.
    if (job.output !== undefined) {
      try {
        writeFileAtomicSync(job.output, result.docx, 0o600, job.outputTemp);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        return { id: job.id, ok: false, kind: 'storage', ...(code ? { code } : {}), message: (error as Error).message };
      }
    }
    // A template stored before sanitising existed is sanitised as it is read: the output says what was removed.
    const warningDetails = [...detailsOf(template.warnings), ...result.warningDetails];
    return {
      id: job.id,
      ok: true,
      docx: result.docx,
      warnings: warningDetails.map((detail) => detail.warning),
      warningDetails,
      stats: result.stats,
      ...(matched ? { matched: matchedCount(matched) } : {}),
    };
  } catch (error) {
    // Forgotten on any failure (it may be the template that failed); the pool's mirror of this cache does the same.
    templates.delete(job.templateKey);
    return failure(job.id, error);
  }
}

/** Something of every kind the engine compiles (a worker's first conversion compiles its code: ~330 ms, later ~50). */
const WARM_UP =
  '---\ntitle: w\n---\n# H\n\nA *b* **c** `d` [e](https://e.example) www.f.example g@h.example[^1]\n\n- i\n  1. j\n\n> k\n\n| l | m |\n|---|---|\n| n | o |\n\n```js\np\n```\n\n[^1]: q\n';

// Warmed before it says it is ready, on the built-in template: the first user's conversion runs compiled code
// (unless the pool says not to: a one-shot command line's worker).
if ((workerData as { warmUp?: unknown } | null)?.warmUp !== false) {
  try {
    await convert({ markdown: WARM_UP, created: new Date(0) });
  } catch {
    // A warm-up is never a reason not to start.
  }
}

/** This thread's id on Linux ("PID/task/TID"), so the pool can read the CPU time a conversion has used. */
function threadId(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * V8's young-generation collection, run when a conversion has been answered, where the process runs with --expose-gc
 * (given on its command line; nothing here sets a V8 flag while it runs). A conversion allocates ~27 MB at 9 KB of
 * markdown, about one young generation; collected mid-conversion, everything the conversion still holds is copied
 * (2-4 ms), collected between conversions almost nothing is alive (~1 ms), off the request's path. Without the flag
 * nothing is collected by hand.
 */
function youngCollector(): (() => void) | undefined {
  const gc = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') return undefined;
  const collect = gc as (options: { type: 'minor' }) => void;
  return () => collect({ type: 'minor' });
}

const collectYoung = youngCollector();
let collecting = false;

/** Collects once the answer is on its way (setImmediate: after the message loop's turn), once however many jobs. */
function collectSoon(): void {
  if (!collectYoung || collecting) return;
  collecting = true;
  setImmediate(() => {
    collecting = false;
    collectYoung();
  });
}

const tid = threadId();
port.postMessage((tid === undefined ? { ready: true } : { ready: true, tid }) satisfies ReadyMessage);

/** One message at a time, in the order they came (a conversion awaits docx's packing). */
let handled = Promise.resolve();
const handle = async (job: JobMessage | InspectMessage | ForgetMessage): Promise<void> => {
  if (job.kind === 'forget') {
    for (const key of job.keys) templates.delete(key);
    return;
  }
  const result: ResultMessage | InspectResultMessage = job.kind === 'inspect' ? inspect(job) : await run(job);
  if (result.ok && 'inspected' in result) {
    port.postMessage(result, result.clean ? [result.clean.buffer as ArrayBuffer] : []);
  } else if (result.ok) {
    // The bytes move to the main thread instead of being copied (a whole buffer of its own, as fflate returns).
    const docx =
      result.docx.byteOffset === 0 && result.docx.byteLength === result.docx.buffer.byteLength
        ? result.docx
        : result.docx.slice();
    port.postMessage({ ...result, docx }, [docx.buffer as ArrayBuffer]);
  } else {
    port.postMessage(result);
  }
  collectSoon();
};
port.on('message', (job: JobMessage | InspectMessage | ForgetMessage) => {
  handled = handled
    .then(() => handle(job))
    .catch((error: unknown) => {
      // An error out of the handler ends the worker, as an uncaught one did before (the pool answers for it).
      setImmediate(() => {
        throw error;
      });
    });
});
