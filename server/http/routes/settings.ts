import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { managedSettings, type ManagedSettings } from '../../policy/index.ts';
import { nextMonth, PLAN_LIMITS, quotaOf } from '../../services.ts';
import type { Settings } from '../../store/database.ts';
import { ApiError } from '../../errors.ts';
import { ERROR_RESPONSES } from '../../schemas/index.ts';
import { access } from '../../web/access.ts';

const SettingsSchema = Type.Object({
  plan: Type.Union([Type.Literal('solo'), Type.Literal('team'), Type.Literal('enterprise')]),
  monthly_quota: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: "null: the plan's limit (Solo 20, others unlimited)",
  }),
  retention_days: Type.Integer({ minimum: 1, maximum: 3650 }),
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
  mcp_output_dir: Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Null()], {
    description: 'The one folder (absolute path, existing) where MCP agents may write converted files; null: none',
  }),
});

/** The running server as the settings page shows it (null fields under `inject`, where nothing listens). */
export interface ServerInfo {
  url: string | null;
  port: number | null;
  https: boolean;
  /** SHA-256 fingerprint of the server's certificate, as browsers show it. */
  fingerprint: string | null;
  cert_path: string | null;
}

/** GET/PATCH /api/settings answer. */
export interface SettingsView {
  /** The settings in force (the organisation's policy applied). */
  settings: Settings;
  usage: { month: string; conversions: number; quota: number | null; resets_at: string };
  limits: (typeof PLAN_LIMITS)[keyof typeof PLAN_LIMITS];
  server: ServerInfo;
  /**
   * Settings the organisation's policy manages: `locked` ones cannot be changed (PATCH answers 403); unlocked ones
   * are defaults that apply until the user sets them (`in_force`). Empty without a policy.
   */
  managed: ManagedSettings;
  /** The policy file in force, or null. */
  policy_path: string | null;
  /** Whether a new API key may be created, and the policy's limit on keys not revoked (null: none). */
  api_keys: { allowed: boolean; max: number | null; active: number };
  /** Conversions the server runs at once (its worker threads): the app converts a batch this many at a time. */
  conversion_workers: number;
}

/** Settings and usage (the settings area: the app's session or the CLI only). */
export async function settingsRoutes(app: FastifyInstance): Promise<void> {
  const store = app.services.store;
  const view = (): SettingsView => {
    const settings = store.settings();
    const now = app.services.now();
    const policy = app.services.policy;
    const effective = app.services.settings();
    const active = store.listKeys().filter((k) => k.revoked_at === null).length;
    return {
      settings,
      usage: {
        month: now.toISOString().slice(0, 7),
        conversions: store.usage(now),
        quota: quotaOf(settings),
        resets_at: nextMonth(now).toISOString(),
      },
      limits: PLAN_LIMITS[settings.plan],
      server: app.serverInfo(),
      managed: managedSettings(policy, store.userSettings(), store.chosenSettings()),
      policy_path: policy?.path ?? null,
      api_keys: {
        allowed: effective.allow_api_keys && (effective.max_api_keys === null || active < effective.max_api_keys),
        max: effective.max_api_keys,
        active,
      },
      conversion_workers: app.services.convertPool.size,
    };
  };
  app.get(
    '/api/settings',
    {
      ...access('owner'),
      schema: { summary: "Settings, plan limits and this month's usage", response: ERROR_RESPONSES },
    },
    async () => view(),
  );
  app.patch<{ Body: Partial<Settings> }>(
    '/api/settings',
    {
      ...access('owner'),
      schema: {
        summary: 'Change settings',
        body: Type.Partial(SettingsSchema, { additionalProperties: false, minProperties: 1 }),
        response: ERROR_RESPONSES,
      },
    },
    async (request) => {
      const dir = request.body.mcp_output_dir;
      if (typeof dir === 'string' && (!isAbsolute(dir) || !statSync(dir, { throwIfNoEntry: false })?.isDirectory())) {
        throw new ApiError('validation_error', 'mcp_output_dir must be the absolute path of an existing folder');
      }
      await app.services.updateSettings(request.body);
      return view();
    },
  );
}
