/**
 * The process suite again, without cgroups: the fallback (own process group and environment
 * marker) that runs where no cgroup v2 hierarchy is writable must keep its promises too.
 */
import { expect, it } from "vitest";
import { CONTAINMENT_VARIABLE, cgroupsAvailable } from "../../src/workspace/local/process/cgroup.js";

process.env[CONTAINMENT_VARIABLE] = "process-group";
await import("./bash-processes.test.js");

it("runs the suite above without cgroups", () => {
	expect(cgroupsAvailable()).toBe(false);
});
