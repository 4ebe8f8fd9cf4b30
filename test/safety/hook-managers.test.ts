import { describe, expect, it } from "vitest";
import { hookManagerSteps } from "../../src/safety/runs-later/hook-managers.js";

/** Runs the steps against a map of file texts. */
function run(top: string, folders: string[], files: Record<string, string>) {
	const steps = hookManagerSteps(top, folders);
	let next = steps.next();
	while (!next.done) next = steps.next(files[next.value]);
	return next.value;
}

describe("hookManagerSteps", () => {
	it("follows lefthook's installed hook to its configs, what they extend, the rc it sources and the programs they run", () => {
		const result = run("/r", ["/r/.git/hooks"], {
			"/r/.git/hooks/pre-commit": '#!/bin/sh\n[ -f .lefthook-rc ] && . .lefthook-rc\ncall_lefthook run "pre-commit"\n',
			"/r/lefthook.yml":
				"extends:\n  - shared/base.yml\npre-commit:\n  jobs:\n    - run: ./scripts/lint.sh {staged_files}\n      root: web/\n",
			"/r/shared/base.yml": "pre-push:\n  commands:\n    test:\n      run: bash ci/test.sh\n",
		});
		expect(result.files).toEqual(
			expect.arrayContaining([
				"/r/.lefthook-rc",
				"/r/lefthook-local.yml",
				"/r/.config/lefthook.toml",
				"/r/web/scripts/lint.sh",
				"/r/shared/base.yml",
				"/r/ci/test.sh",
			]),
		);
		expect(result.folders).toEqual(["/r/.lefthook", "/r/.lefthook-local"]);
	});

	it("reads nothing more without a manager's hook, and takes pre-commit's config from the hook", () => {
		expect(run("/r", ["/r/.git/hooks"], { "/r/.git/hooks/pre-commit": "#!/bin/sh\nnpm test\n" })).toEqual({
			files: [],
			folders: [],
		});
		const preCommit = run("/r", ["/r/.git/hooks"], {
			"/r/.git/hooks/pre-commit": "ARGS=(hook-impl --config=ci/hooks.yaml --hook-type=pre-commit)\n",
			"/r/ci/hooks.yaml":
				"repos:\n- repo: local\n  hooks:\n  - id: a\n    entry: check.sh\n    language: script\n  - id: b\n    entry: 'x/y'\n    language: pygrep\n",
		});
		expect(preCommit.files).toEqual(["/r/ci/hooks.yaml", "/r/check.sh"]);
	});
});
