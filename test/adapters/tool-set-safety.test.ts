import { describe, expect, it, vi } from "vitest";
import { createToolbeltToolSet } from "../../src/adapters/shared/tool-set.js";
import { createSafetyLayer } from "../../src/safety/index.js";
import { useTempDir } from "../helpers/temp-dir.js";

describe("an adapter's tool set with a safety layer", () => {
	const dir = useTempDir();

	it("tells the layer its tools as they are made, so judging their first command waits for nothing", async () => {
		const safety = await createSafetyLayer({ cwd: dir(), homeDir: dir(), trustProject: false });
		// Only what the set tells it is asked here; the load itself is tested in test/safety/shell-parser-ahead.
		const prepareFor = vi.spyOn(safety, "prepareFor").mockImplementation(() => {});
		const set = createToolbeltToolSet(dir(), { safety, tools: ["read", "bash"] });
		expect(set.tools.map((tool) => tool.name)).toEqual(["read", "bash"]);
		expect(prepareFor).toHaveBeenCalledTimes(1);
		expect(prepareFor).toHaveBeenCalledWith(["read", "bash"]);
	});
});
