// Setup file of the shared workers (vitest.config.ts, the "shared" project): what a file stubbed
// with `vi.stubEnv` or `vi.stubGlobal` ends with the file, so the next file of the worker starts
// with the process as it was. vitest's own `unstubEnvs` only restores before each test, which
// leaves the last test's stubs in place while the next file is collected and its `beforeAll` runs.
import { afterAll, vi } from "vitest";

afterAll(() => {
	vi.unstubAllEnvs();
	vi.unstubAllGlobals();
});
