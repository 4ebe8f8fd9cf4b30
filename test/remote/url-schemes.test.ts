import { describe, expect, it } from "vitest";
import { parseSettings } from "../../src/safety/index.js";
import { workspaceUrlForms, workspaceUrlSchemes } from "../../src/workspace/index.js";
import { isWorkspaceUrl, parseWorkspaceUrl, WorkspaceUrlError } from "../../src/workspace/remote/index.js";

// The URL schemes have one home (workspace/url-schemes/): the parser, its messages and the settings'
// trustedProjects pattern all take them from there, so each scheme of the table works in each place.

describe("the workspace URL schemes", () => {
	it("every scheme of the table is a workspace URL, parses to its kind, and is a trusted project in settings", () => {
		expect(workspaceUrlSchemes).toEqual(["ssh", "docker", "podman", "kubectl"]);
		for (const scheme of workspaceUrlSchemes) {
			const url = `${scheme}://box/srv/app`;
			expect(isWorkspaceUrl(url), url).toBe(true);
			expect(parseWorkspaceUrl(url).kind, url).toBe(scheme);
			expect(parseSettings(JSON.stringify({ trustedProjects: [url] }), "settings.json").trustedProjects).toEqual([url]);
		}
	});

	it("refuses other schemes everywhere, naming every form of the table", () => {
		expect(isWorkspaceUrl("sftp://box/srv/app")).toBe(false);
		expect(() => parseSettings(JSON.stringify({ trustedProjects: ["sftp://box/srv/app"] }), "settings.json")).toThrow();
		try {
			parseWorkspaceUrl("sftp://box/srv/app");
			expect.unreachable("sftp:// parsed");
		} catch (error) {
			expect(error).toBeInstanceOf(WorkspaceUrlError);
			for (const form of Object.values(workspaceUrlForms)) expect((error as Error).message).toContain(form);
		}
	});
});
