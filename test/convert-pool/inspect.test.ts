// Templates are read, checked and sanitised in the pool's workers (ConvertPool.inspect), not on the event loop:
// a hostile template comes back clean with its warnings, a clean one as the very bytes sent, a broken one as a
// ConvertInputError, and one that runs past the time limit ends its worker with a ConvertLimitError.
import { afterEach, describe, expect, it } from 'vitest';
import { ConvertInputError, defaultTemplate, readTemplate } from '../../server/convert/index.ts';
import { ConvertLimitError, ConvertPool } from '../../server/convert-pool/pool.ts';
import { externalFindings, hostileTemplate, manyStyles, withParts } from '../helpers/hostile-template.ts';

const pools: ConvertPool[] = [];
function pool(options: ConstructorParameters<typeof ConvertPool>[0] = {}): ConvertPool {
  const made = new ConvertPool({ size: 1, ...options });
  pools.push(made);
  return made;
}
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});

describe('ConvertPool.inspect', () => {
  it('returns a hostile template sanitised, with its warnings and styles; a clean one as the bytes sent', async () => {
    const workers = pool();
    const hostile = hostileTemplate(defaultTemplate());
    const inspected = await workers.inspect(hostile);
    expect(inspected.warnings.join('\n')).toContain('template_external_removed: attachedTemplate');
    expect(externalFindings(inspected.bytes)).toEqual([]);
    expect(readTemplate(inspected.bytes).warnings).toEqual([]);
    expect(inspected.styles.map((s) => s.name)).toContain('Evil');
    const clean = defaultTemplate();
    const same = await workers.inspect(clean);
    expect(same.bytes).toBe(clean);
    expect(same.warnings).toEqual([]);
    // Inspecting never fills a worker's conversion cache.
    expect(workers.counters.templatesSent).toBe(0);
  });

  it("refuses a broken package with the engine's ConvertInputError", async () => {
    const refused = await pool()
      .inspect(withParts(defaultTemplate(), { '_rels/.rels': null }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConvertInputError);
    expect((refused as Error).message).toMatch(/no _rels\/\.rels/);
  });

  it('stops a template that runs past the time limit and replaces the worker', async () => {
    const workers = pool({ timeoutMs: 1 });
    const slow = manyStyles(defaultTemplate(), 9_000);
    const refused = await workers.inspect(slow).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConvertLimitError);
    expect((refused as ConvertLimitError).limit).toBe('time');
    expect(workers.counters.replaced).toBe(1);
  });
});
