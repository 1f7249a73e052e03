import type { Template } from './read.ts';
import type { StyleLook, StyleType, TemplateStyle } from './styles.ts';

/** A read template as JSON: the build embeds the built-in one so a command-line run does not unzip, check and parse it. */
interface PreparedTemplate {
  parts: [string, string][];
  mainPart: string;
  styles: { id: string; name: string; type: StyleType; aliases: string[]; look?: StyleLook }[];
  textWidthTwips: number;
  landscapeTextWidthTwips: number;
  warnings: string[];
}

/** The JSON of a read template (its parts in base64, in their order). */
export function templateToJson(template: Template): string {
  const prepared: PreparedTemplate = {
    parts: [...template.parts].map(([name, bytes]) => [name, Buffer.from(bytes).toString('base64')]),
    mainPart: template.mainPart,
    styles: template.styles.map(({ id, name, type, aliases, look }) => ({
      id,
      name,
      type,
      aliases: [...aliases],
      ...(look ? { look } : {}),
    })),
    textWidthTwips: template.textWidthTwips,
    landscapeTextWidthTwips: template.landscapeTextWidthTwips,
    warnings: [...template.warnings],
  };
  return JSON.stringify(prepared);
}

/** The template templateToJson wrote; only for JSON the build made from our own template (it is not checked again). */
export function templateFromJson(json: string): Template {
  const prepared = JSON.parse(json) as PreparedTemplate;
  const parts = new Map<string, Uint8Array>();
  for (const [name, base64] of prepared.parts) parts.set(name, new Uint8Array(Buffer.from(base64, 'base64')));
  const styles: TemplateStyle[] = prepared.styles;
  return { ...prepared, parts, styles };
}
