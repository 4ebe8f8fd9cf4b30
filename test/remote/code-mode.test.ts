import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createTools } from "../../src/tools/index.js";
import { createWorkspaceFromUrl, type RemoteWorkspace } from "../../src/workspace/remote/index.js";
import { runCall, textOf } from "../safety/run-calls.js";
import { inContainer, useTestContainer } from "./docker-fixture.js";

// A code program on a workspace in a container: its inner grep, read, write and bash calls are the
// workspace's, so they see and change the container's disk and never this machine's (the folder
// does not exist here).

const folder = "/srv/toolbelt-code-mode";
const container = useTestContainer("toolbelt-code-mode", "the docker code-mode tests", (name) =>
	inContainer(
		name,
		`mkdir -p ${folder}/src/a ${folder}/src/b && printf 'one\\n// TODO first a\\n' > ${folder}/src/a/x.ts && printf '// TODO first b\\n// TODO second b\\n' > ${folder}/src/b/y.ts`,
	),
);

function open(): RemoteWorkspace {
	const workspace = createWorkspaceFromUrl(`docker://${container.name}${folder}`);
	container.opened.push(workspace);
	return workspace;
}

const program = `const hits = await tools.grep({ pattern: "TODO" });
const files = [...new Set(hits.text.split("\\n").map((line) => /^(src\\/[^:]+):/.exec(line)?.[1]).filter(Boolean))].sort();
const firsts = await Promise.all(files.map((path) => tools.read({ path, limit: 2 })));
await tools.write({ path: "out/summary.txt", content: files.map((path, index) => path + " " + firsts[index].text.split("\\n").length).join("\\n") + "\\n" });
const listed = await tools.bash({ command: "cat out/summary.txt | wc -l" });
return { files, lines: listed.text.trim() };`;

describe("code mode on a docker workspace", () => {
	it("runs the program's inner calls on the container's disk", { timeout: 120_000 }, async (context) => {
		if (container.skipReason) return context.skip();
		const tools = createTools(open());
		const message = await runCall([tools.code, tools.grep, tools.read, tools.write, tools.bash], {}, "code", {
			code: program,
		});
		expect(message.isError, textOf(message)).toBe(false);
		expect(textOf(message)).toContain('"files": [\n    "src/a/x.ts",\n    "src/b/y.ts"\n  ]');
		expect(textOf(message)).toContain('"lines": "2"');
		expect(inContainer(container.name, `cat ${folder}/out/summary.txt`)).toMatch(
			/^src\/a\/x\.ts \d+\nsrc\/b\/y\.ts \d+\n$/,
		);
		expect(existsSync(folder)).toBe(false);
	});
});
