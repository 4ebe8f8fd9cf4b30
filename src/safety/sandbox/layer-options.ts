import { resolve } from "node:path";
import { expandHome } from "../../workspace/index.js";
import type { SandboxNetworkOptions, SandboxOptions } from "../sandbox.js";
import type { LoadedSettings } from "../settings/settings.js";
import { networkPolicyOf } from "./network/from-settings.js";

// The sandbox's options from two places: what the caller of the safety layer passed, over what the
// settings files say.

/** The sandbox as a caller of `createSafetyLayer` sets it up; each field unset takes the settings' value. */
export interface SandboxSetting {
	allowNetwork?: boolean;
	writablePaths?: readonly string[];
	isolateProcesses?: boolean;
	bwrapPath?: string;
	/** Credential locations to leave visible, e.g. `["~/.aws"]`. Default: the settings' `sandbox.exposeCredentials`, else none. */
	exposeCredentials?: readonly string[];
	/**
	 * The network policy (see `SandboxNetworkOptions`): `allow` replaces the settings'
	 * `sandbox.network.allow`; `deny` and `hosts` add to theirs; `resolver` and
	 * `onConnection` (the audit of every connection) exist only here. Default: the settings'.
	 */
	network?: Partial<SandboxNetworkOptions>;
}

/** The sandbox's options: the caller's where given, else the settings'. */
export function sandboxOptionsOf(
	extra: SandboxSetting,
	settings: LoadedSettings,
	place: { roots: readonly string[]; cwd: string; homeDir: string },
): SandboxOptions {
	const allowNetwork = extra.allowNetwork ?? settings.sandbox.allowNetwork ?? false;
	return {
		writableRoots: place.roots,
		writablePaths: (extra.writablePaths ?? settings.sandbox.writablePaths ?? []).map((path) =>
			resolve(place.cwd, expandHome(path, place.homeDir)),
		),
		allowNetwork,
		network: networkPolicyOf(settings.sandbox, { allowNetwork, network: extra.network }),
		isolateProcesses: extra.isolateProcesses,
		bwrapPath: extra.bwrapPath,
		homeDir: place.homeDir,
		exposeCredentials: extra.exposeCredentials ?? settings.sandbox.exposeCredentials ?? [],
	};
}
