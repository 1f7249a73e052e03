/** The organisation's policy: managed settings and seeded templates and mappings (README "For IT teams"). */
export { PolicyError, loadPolicy, policyPath, type Policy } from './load.ts';
export {
  applyPolicy,
  effectiveSettings,
  keyCreationRefusal,
  listenAddress,
  listenPort,
  lockedAmong,
  lockedMessage,
  managedSettings,
  settingsInForce,
  type EffectiveSettings,
  type ManagedSetting,
  type ManagedSettings,
} from './effective.ts';
export { POLICY_SETTING_KEYS, type PolicySettingKey } from './schema.ts';
export { seedFromPolicy, seedId, type SeedReport } from './seed.ts';
