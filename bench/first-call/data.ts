// The files the first-call rows work on, made once in a folder of the temp dir and kept for later
// runs (a marker file says they are complete): 20,000 small source files, a 5 MB one-line file, a
// 600 MB and a 200 MB text file, and 100 files of 256 KB.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

const MARKER = ".complete-v1";

/** Makes the bench's files in `dataDir` unless a complete set is there already. */
export async function ensureFirstCallData(dataDir: string): Promise<void> {
	if (existsSync(join(dataDir, MARKER))) return;
	console.error(`making the first-call files in ${dataDir} (first run only, about 1 GB) …`);
	await rm(dataDir, { recursive: true, force: true });
	await mkdir(join(dataDir, "reads"), { recursive: true });
	for (let folder = 0; folder < 200; folder++) {
		const name = join(dataDir, "tree", `d${String(folder).padStart(3, "0")}`);
		await mkdir(name, { recursive: true });
		await Promise.all(
			Array.from({ length: 100 }, (_, index) => {
				const number = folder * 100 + index;
				const lines = Array.from({ length: 20 }, (_, line) =>
					line === 2 ? "// TODO revisit this" : `export const value${line} = ${number + line};`,
				);
				if (number % 1000 === 7) lines[10] = "// needle_literal_7";
				return writeFile(join(name, `f${String(index).padStart(3, "0")}.ts`), `${lines.join("\n")}\n`);
			}),
		);
	}
	const half = "x".repeat(2_500_000);
	await writeFile(join(dataDir, "line5mb.txt"), `${half}needle${half}\n`);
	const shell = (script: string) => execFileSync("bash", ["-c", script], { cwd: dataDir, stdio: "inherit" });
	shell(
		`seq 1 8000000 | awk '{ print "row " $1 " lorem ipsum dolor sit amet consectetur adipiscing elit sed do" }' > big600.txt`,
	);
	shell("head -n 2700000 big600.txt > big200.txt");
	shell("for i in $(seq 0 99); do head -c 262144 big600.txt > reads/r$i.txt; done");
	await writeFile(join(dataDir, MARKER), "");
}
