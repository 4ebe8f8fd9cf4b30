import { describe, expect, it } from "vitest";
import { locateRipgrep } from "../../../src/workspace/local/search/ripgrep-path.js";

describe("locateRipgrep", () => {
	it("finds the binary @vscode/ripgrep names, without importing the package first", async () => {
		const located = await locateRipgrep();
		const { rgPath } = (await import("@vscode/ripgrep")) as { rgPath: string };
		expect(located).toEqual({ path: rgPath });
	});

	it("gives the user's binary when one is named", async () => {
		expect(await locateRipgrep("/opt/rg")).toEqual({ path: "/opt/rg" });
	});
});
