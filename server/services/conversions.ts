import { ApiError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { ConversionRecord } from '../store/database.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * A conversion still kept (within `retention_days`), or 404 `not_found` (an expired one is gone too): the same on
 * every surface (GET /api/v1/conversions/:id, MCP's get_conversion and its resources).
 */
export function findConversion(services: Services, id: string): ConversionRecord {
  const record = UUID.test(id) ? services.store.getConversion(id) : undefined;
  if (!record) throw new ApiError('not_found', `Conversion ${id} not found.`);
  const days = services.store.settings().retention_days;
  if (Date.parse(record.created_at) < services.now().getTime() - days * 86_400_000)
    throw new ApiError('not_found', `Conversion ${id} has expired (kept ${days} days).`);
  return record;
}
