import { defaultTemplate } from './default-template.ts';
import { templateFromJson } from './template/prepared.ts';
import { readTemplate, type Template } from './template/read.ts';

// The built-in template already read, embedded by scripts/build.mjs (undefined when running the sources).
declare const __DOCWRIGHT_DEFAULT_TEMPLATE_READ__: string | undefined;

let cached: Template | undefined;

/**
 * The built-in template, read. The bundle holds it prepared at build time: it is ours, so a command-line run need
 * not unzip, check and parse it on every start (about 60 ms). The sources read it once per process.
 */
export function defaultTemplateRead(): Template {
  cached ??=
    typeof __DOCWRIGHT_DEFAULT_TEMPLATE_READ__ === 'string'
      ? templateFromJson(__DOCWRIGHT_DEFAULT_TEMPLATE_READ__)
      : readTemplate(defaultTemplate());
  return cached;
}
