import { Type, type Static, type TSchema } from 'typebox';

/** One managed setting: its value, and whether it is locked (wins over the user's choice) or only the default. */
function managed<T extends TSchema>(value: T) {
  return Type.Object({ value, locked: Type.Boolean() }, { additionalProperties: false });
}

/**
 * The settings a policy may manage, each with the values it accepts and how an error message says them. `plan`,
 * `monthly_quota`, `retention_days` and `port` are also user settings; `host` and `http` are how `serve` listens;
 * `allow_remote` (the team server's opt-in), `allow_api_keys` and `max_api_keys` are the organisation's alone.
 */
export const POLICY_SETTINGS = {
  plan: {
    schema: Type.Union([Type.Literal('solo'), Type.Literal('team'), Type.Literal('enterprise')]),
    says: '"solo", "team" or "enterprise"',
  },
  monthly_quota: {
    schema: Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000_000 }), Type.Null()]),
    says: "an integer from 0 to 1000000000, or null (the plan's limit)",
  },
  retention_days: { schema: Type.Integer({ minimum: 1, maximum: 3650 }), says: 'an integer from 1 to 3650' },
  port: { schema: Type.Integer({ minimum: 1, maximum: 65535 }), says: 'an integer from 1 to 65535' },
  host: {
    schema: Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:-]+$' }),
    says: 'an IP address or host name, e.g. "127.0.0.1"',
  },
  http: { schema: Type.Boolean(), says: 'true (plain HTTP) or false (HTTPS)' },
  allow_remote: { schema: Type.Boolean(), says: 'true (serve may listen beyond loopback, with HTTPS) or false' },
  allow_api_keys: { schema: Type.Boolean(), says: 'true or false' },
  max_api_keys: {
    schema: Type.Union([Type.Integer({ minimum: 0, maximum: 10_000 }), Type.Null()]),
    says: 'an integer from 0 to 10000, or null (no limit)',
  },
} as const;

export type PolicySettingKey = keyof typeof POLICY_SETTINGS;
export const POLICY_SETTING_KEYS = Object.keys(POLICY_SETTINGS) as PolicySettingKey[];

const settingsShape = {
  plan: Type.Optional(managed(POLICY_SETTINGS.plan.schema)),
  monthly_quota: Type.Optional(managed(POLICY_SETTINGS.monthly_quota.schema)),
  retention_days: Type.Optional(managed(POLICY_SETTINGS.retention_days.schema)),
  port: Type.Optional(managed(POLICY_SETTINGS.port.schema)),
  host: Type.Optional(managed(POLICY_SETTINGS.host.schema)),
  http: Type.Optional(managed(POLICY_SETTINGS.http.schema)),
  allow_remote: Type.Optional(managed(POLICY_SETTINGS.allow_remote.schema)),
  allow_api_keys: Type.Optional(managed(POLICY_SETTINGS.allow_api_keys.schema)),
  max_api_keys: Type.Optional(managed(POLICY_SETTINGS.max_api_keys.schema)),
};

/** The policy file (policy.json): managed settings and the folder of seeded templates and mappings. */
export const PolicyFileSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    settings: Type.Optional(Type.Object(settingsShape, { additionalProperties: false })),
    /** Folder of seeded templates (.docx/.dotx) and mappings (*.mapping.json); relative to the policy file's folder. */
    seed_dir: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  },
  { additionalProperties: false },
);
export type PolicyFile = Static<typeof PolicyFileSchema>;
export type PolicySettings = NonNullable<PolicyFile['settings']>;

/** A seeded mapping file (`<name>.mapping.json`). */
export const SeedMappingSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    /** Shown name; default: the file name without `.mapping.json`. */
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** The template: a seeded template's file name ("corporate.docx") or name ("corporate"), or the built-in one. */
    template: Type.String({ minLength: 1, maxLength: 260 }),
    /** Mapping rules, as in the API (checked by the engine's own rules check). */
    rules: Type.Object({}),
  },
  { additionalProperties: false },
);
export type SeedMapping = Static<typeof SeedMappingSchema>;
