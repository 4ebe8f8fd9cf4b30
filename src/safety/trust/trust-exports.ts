// The public surface of folder trust, re-exported by `safety/index.ts` in one line.
export {
	isListedInTrustedProjects,
	isModeAtLeastAsStrict,
	type ProjectSettingsReview,
	type ProjectSettingsTrust,
	type ProjectTrustCheck,
	recordProjectTrust,
	settingsContentHash,
	splitProjectSettings,
	trustedByUser,
	userTrustOf,
	type WideningSetting,
} from "./trust.js";
export { alwaysRulesSaver, type SaveAlwaysRules } from "./trust-always-rules.js";
export { readTrustRecords, type TrustRecord, trustRecordOf, trustStorePath, writeTrustRecord } from "./trust-store.js";
