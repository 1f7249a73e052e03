/** Settings a user may change (`docwright config`, PATCH /api/settings); a module of its own so the CLI learns them without loading the store. */
export const SETTING_KEYS = ['plan', 'monthly_quota', 'retention_days', 'port', 'mcp_output_dir'] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];
