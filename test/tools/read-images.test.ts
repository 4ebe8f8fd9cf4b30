import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import type { ImageContent } from "../../src/engine/types.js";
import { createReadTool, type ReadImageDetails, type ReadToolOptions } from "../../src/tools/read.js";
import { resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";

const temp = useTempDir();

function solid(width: number, height: number) {
	return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } });
}

/** Random pixels: incompressible, so a large image is really large in bytes. */
function noise(width: number, height: number) {
	return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } });
}

async function read(path: string, options?: ReadToolOptions) {
	const result = await createReadTool(temp(), options).execute("1", { path }, undefined);
	const image = result.content.find((block): block is ImageContent => block.type === "image");
	const text = resultText(result);
	return { result, image, text, details: result.details as ReadImageDetails };
}

describe("read tool: images", () => {
	it.each([
		["png", "image/png"],
		["jpeg", "image/jpeg"],
		["gif", "image/gif"],
		["webp", "image/webp"],
	] as const)("returns a small %s unchanged as an image block", async (format, mimeType) => {
		const bytes = await solid(12, 8).toFormat(format).toBuffer();
		await writeFile(join(temp(), `small.${format}`), bytes);
		const { image, text, details } = await read(`small.${format}`);
		expect(image).toEqual({ type: "image", data: bytes.toString("base64"), mimeType });
		expect(text).toContain(`Image small.${format} (${mimeType}, 12×8`);
		expect(details).toMatchObject({ kind: "image", width: 12, height: 8, resized: false, included: true });
	});

	it("recognises images by their bytes, not the extension", async () => {
		await writeFile(join(temp(), "notes.txt"), await solid(4, 4).png().toBuffer());
		expect((await read("notes.txt")).image?.mimeType).toBe("image/png");
		await writeFile(join(temp(), "fake.png"), "just text\n");
		const fake = await read("fake.png");
		expect(fake.image).toBeUndefined();
		expect(fake.text).toBe("     1\tjust text");
	});

	it("scales a large image down to fit 2000×2000, keeping the aspect ratio", async () => {
		await writeFile(join(temp(), "wide.png"), await solid(3000, 1500).png().toBuffer());
		const { image, details, text } = await read("wide.png");
		const metadata = await sharp(Buffer.from(image!.data, "base64")).metadata();
		expect([metadata.width, metadata.height]).toEqual([2000, 1000]);
		expect(details).toMatchObject({
			originalWidth: 3000,
			originalHeight: 1500,
			width: 2000,
			height: 1000,
			resized: true,
		});
		expect(text).toContain("scaled to 2000×1000");
	});

	it("honours configured limits, re-encoding smaller until the base64 fits", async () => {
		await writeFile(join(temp(), "noise.png"), await noise(600, 600).png().toBuffer());
		const limits = { imageMaxWidth: 500, imageMaxHeight: 400, imageMaxBase64Bytes: 60_000 };
		const { image, details } = await read("noise.png", limits);
		expect(image!.data.length).toBeLessThanOrEqual(60_000);
		expect(image!.mimeType).toBe("image/jpeg");
		expect(details.width).toBeLessThanOrEqual(400);
		expect(details.height).toBeLessThanOrEqual(400);
	});

	it("returns a text notice, never an oversized image, when it cannot fit", async () => {
		await writeFile(join(temp(), "photo.jpg"), await noise(300, 300).jpeg().toBuffer());
		const { image, text, details } = await read("photo.jpg", { imageMaxBase64Bytes: 100 });
		expect(image).toBeUndefined();
		expect(text).toMatch(/^photo\.jpg is an image \(image\/jpeg, .*\) that is not shown: it cannot be made to fit/);
		expect(details).toMatchObject({ included: false, originalWidth: 300 });
	});

	it("never returns an image it cannot decode (a model API would reject it, and every later request with it)", async () => {
		const corrupt = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(200)]);
		await writeFile(join(temp(), "corrupt.png"), corrupt);
		const { image, text, details } = await read("corrupt.png");
		expect(image).toBeUndefined();
		expect(text).toMatch(/^corrupt\.png is an image \(image\/png, .*\) that is not shown: it could not be decoded/);
		expect(text).toContain("damaged");
		expect(details).toMatchObject({ included: false });
	});

	it("gives a notice when images are turned off", async () => {
		await writeFile(join(temp(), "a.gif"), await solid(3, 3).gif().toBuffer());
		const { image, text } = await read("a.gif", { images: false });
		expect(image).toBeUndefined();
		expect(text).toMatch(/^a\.gif is an image \(image\/gif, \d+ B\) that is not shown: images are turned off/);
	});
});
