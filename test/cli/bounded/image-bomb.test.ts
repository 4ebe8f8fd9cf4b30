import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { constants, createDeflate } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { useTempDir } from "../../helpers/temp-dir.js";
import { CliProcesses, cleanEnv } from "../helpers/cli-binary.js";
import { peakMemoryEnv, peakMemoryOf } from "../helpers/peak-memory.js";

const MB = 1024 * 1024;

/** CRC-32 of a PNG chunk's type and data. */
function crc32(bytes: Buffer): number {
	let crc = 0xffffffff;
	for (const byte of bytes) {
		crc ^= byte;
		for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
	}
	return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
	const length = Buffer.alloc(4);
	length.writeUInt32BE(data.length);
	const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(body));
	return Buffer.concat([length, body, crc]);
}

/** Deflates `rows` copies of `row`, a batch at a time: the test process never holds the raw image. */
async function deflateRepeated(row: Buffer, rows: number): Promise<Buffer> {
	const batchRows = Math.max(1, Math.floor(MB / row.length));
	const batch = Buffer.concat(Array.from({ length: batchRows }, () => row));
	async function* raw() {
		for (let done = 0; done < rows; done += batchRows) {
			yield batch.subarray(0, Math.min(batchRows, rows - done) * row.length);
		}
	}
	const parts: Buffer[] = [];
	// Run-length matches only: the rows are runs of one byte, so this packs them as tightly as the
	// default strategy at level 9 (about 0.5 MB) for a tenth of its CPU time (0.3 s against 3 s).
	const deflate = createDeflate({ level: 9, strategy: constants.Z_RLE });
	deflate.on("data", (part: Buffer) => parts.push(part));
	await pipeline(Readable.from(raw()), deflate);
	return Buffer.concat(parts);
}

/**
 * A valid 1-bit grayscale PNG of `side` × `side` white pixels: every row is the same, so the
 * file is about a thousandth of its decoded size (60,000²: 3.6 billion pixels in under 1 MB).
 * Made without holding the raw image: a child's peak memory counts its parent's from before exec.
 */
async function pngBomb(side: number): Promise<Buffer> {
	const header = Buffer.alloc(13);
	header.writeUInt32BE(side, 0);
	header.writeUInt32BE(side, 4);
	header.writeUInt8(1, 8); // bit depth
	header.writeUInt8(0, 9); // grayscale
	const row = Buffer.alloc(1 + Math.ceil(side / 8), 0xff);
	row[0] = 0; // filter: none
	const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
	return Buffer.concat([
		signature,
		chunk("IHDR", header),
		chunk("IDAT", await deflateRepeated(row, side)),
		chunk("IEND", Buffer.alloc(0)),
	]);
}

describe("toolbelt tool read on an image that claims billions of pixels", () => {
	const dir = useTempDir();
	const processes = new CliProcesses();
	afterEach(() => processes.killAll());

	it("refuses a 60,000 × 60,000 PNG bomb of under 1 MB from its header, in bounded memory, naming the pixel limit", async () => {
		const bomb = await pngBomb(60_000);
		expect(bomb.length).toBeLessThan(2 * MB);
		await writeFile(join(dir(), "bomb.png"), bomb);
		const run = await processes.run(["tool", "read", '{"path": "bomb.png"}'], {
			cwd: dir(),
			env: cleanEnv({ HOME: dir(), ...peakMemoryEnv() }),
		});
		const { peakBytes, stderr } = peakMemoryOf(run);
		expect(stderr).toBe("");
		expect(run.stdout).toMatch(
			/bomb\.png is an image \(image\/png, [\d.]+ [KM]B\) that is not shown: it has 60000×60000 pixels, more than the 100,000,000 read decodes/,
		);
		expect(peakBytes).toBeLessThan(200 * MB);
	}, 120_000);
});
