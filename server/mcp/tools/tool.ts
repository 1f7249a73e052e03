import type {
  CallToolResult,
  ContentBlock,
  Tool as ToolListing,
  ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { ApiError } from '../../errors.ts';
import type { Services } from '../../services.ts';

/** What every tool runs against: the services of the server that owns the data directory. */
export interface ToolContext {
  services: Services;
  /** Largest .docx returned inside a tool result (base64); a larger one comes as a resource link. */
  embedLimit: number;
}

/** A tool's answer: its structured result (also sent as JSON text) and any further content (the .docx). */
export interface ToolAnswer<O> {
  result: O;
  content?: ContentBlock[];
}

/** A tool as written: zod schemas for its input and output, and the function that runs it. */
export interface ToolSpec<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  run(args: z.output<I>, context: ToolContext): Promise<ToolAnswer<z.input<O>>>;
}

/** A tool as the server lists and calls it, its types erased. */
export interface Tool {
  listing: ToolListing;
  /** Validates the arguments (a `validation_error` naming the field), runs, and shapes the MCP result. */
  call(args: unknown, context: ToolContext): Promise<CallToolResult>;
}

/** JSON Schema of a zod object in the dialect the SDK uses for its own tools (draft-07). */
function jsonSchema(schema: z.ZodObject, io: 'input' | 'output'): ToolListing['inputSchema'] {
  return z.toJSONSchema(schema, { target: 'draft-7', io }) as ToolListing['inputSchema'];
}

/** Defines a tool: its listing (schemas from zod) and its call, with errors left to the caller to report. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): Tool {
  return {
    listing: {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: jsonSchema(spec.input, 'input'),
      outputSchema: jsonSchema(spec.output, 'output'),
      annotations: { title: spec.title, ...spec.annotations },
    },
    async call(args, context) {
      const parsed = spec.input.safeParse(args ?? {});
      if (!parsed.success) throw new ApiError('validation_error', validationMessage(parsed.error, args ?? {}));
      const answer = await spec.run(parsed.data, context);
      const result = spec.output.parse(answer.result) as Record<string, unknown>;
      return {
        content: [{ type: 'text', text: JSON.stringify(result, null, 2) }, ...(answer.content ?? [])],
        structuredContent: result,
      };
    },
  };
}

/** The problems of a zod error in the REST API's words: `markdown is required; filename must have …`. */
export function validationMessage(error: z.ZodError, input: unknown): string {
  const messages = error.issues.map((issue) => issueMessage(issue, input));
  return messages.length > 0 ? messages.join('; ') : 'arguments are invalid';
}

function issueMessage(issue: z.core.$ZodIssue, input: unknown): string {
  const field = issue.path.map(String).join('.') || 'arguments';
  switch (issue.code) {
    case 'invalid_type':
      return valueAt(input, issue.path) === undefined
        ? `${field} is required`
        : `${field} must be ${article(issue.expected)}`;
    case 'too_small':
      return issue.origin === 'string'
        ? `${field} must have at least ${String(issue.minimum)} character${issue.minimum === 1 ? '' : 's'}`
        : `${field} must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return issue.origin === 'string'
        ? `${field} must have at most ${String(issue.maximum)} characters`
        : `${field} must be at most ${String(issue.maximum)}`;
    case 'unrecognized_keys': {
      const keys = issue.keys.map((k) => (field === 'arguments' ? k : `${field}.${k}`));
      return `${keys.join(', ')} ${keys.length === 1 ? 'is not a known field' : 'are not known fields'}${hint(keys)}`;
    }
    case 'invalid_value':
      return `${field} has an unknown value; use ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`;
    default:
      return `${field}: ${issue.message}`;
  }
}

/** The argument an issue is about (zod does not keep it in the issue). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path)
    value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** REST habits an agent may bring along, pointed at this server's names. */
function hint(keys: string[]): string {
  if (keys.includes('template_id') || keys.includes('mapping_id'))
    return ' (use "template" and "mapping": each takes an id or a name)';
  return '';
}
