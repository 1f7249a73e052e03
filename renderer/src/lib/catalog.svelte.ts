// Templates and mappings as every page sees them: loaded once, reloaded after a change anywhere.
import { api, type Mapping, type Template } from './api.ts';

const CHOICE_KEY = 'docwright.convert.choice';

/** The last template and mapping the user converted with (remembered in this browser profile). */
export interface Choice {
  templateId: string;
  mappingId: string;
}

export class Catalog {
  templates = $state<Template[]>([]);
  mappings = $state<Mapping[]>([]);
  loaded = $state(false);
  error = $state<string | null>(null);

  /** Reloads both lists. */
  async load(): Promise<void> {
    try {
      const [templates, mappings] = await Promise.all([api.templates(), api.mappings()]);
      this.templates = templates;
      this.mappings = mappings;
      this.error = null;
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
    } finally {
      this.loaded = true;
    }
  }

  template(id: string | undefined): Template | undefined {
    return this.templates.find((t) => t.id === id);
  }

  mappingsOf(templateId: string | undefined): Mapping[] {
    return this.mappings.filter((m) => m.template_id === templateId);
  }

  /** The remembered choice if it still exists, else the built-in template and its first mapping. */
  initialChoice(): Choice | undefined {
    const saved = readChoice();
    if (
      saved &&
      this.template(saved.templateId) &&
      this.mappings.some((m) => m.id === saved.mappingId && m.template_id === saved.templateId)
    )
      return saved;
    const template = this.templates.find((t) => t.builtin) ?? this.templates[0];
    if (!template) return undefined;
    const mapping = this.mappingsOf(template.id)[0];
    return { templateId: template.id, mappingId: mapping?.id ?? '' };
  }

  remember(choice: Choice): void {
    try {
      localStorage.setItem(CHOICE_KEY, JSON.stringify(choice));
    } catch {
      // Storage may be disabled; the choice is then only kept for this session.
    }
  }
}

function readChoice(): Choice | undefined {
  try {
    const value = JSON.parse(localStorage.getItem(CHOICE_KEY) ?? 'null') as Partial<Choice> | null;
    return typeof value?.templateId === 'string' && typeof value.mappingId === 'string'
      ? { templateId: value.templateId, mappingId: value.mappingId }
      : undefined;
  } catch {
    return undefined;
  }
}
