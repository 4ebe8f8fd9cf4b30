import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { executeToolCalls } from "./src/engine/execute-tool-calls.js";
import { createTool } from "./src/tools/index.js";
const dir = await mkdtemp(join(tmpdir(), "cm-"));
const tools = (["ls", "code"] as const).map((n) => createTool(n, dir));
const run = async (code: string) => (await executeToolCalls({ tools, toolCalls: [{ type: "toolCall", id: "x" + Math.random(), name: "code", arguments: { code } }] })).messages[0];
for (let i = 0; i < 4; i++) {
  const t = performance.now(); const m = await run("return 1"); console.log(i, (performance.now() - t).toFixed(0), "ms warm", (m.details as any).warmStart);
  await new Promise((r) => setTimeout(r, 4000));
}
