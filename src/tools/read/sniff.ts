import { isUtf8 } from "node:buffer";

/** Bytes looked at to tell text from binary (NUL bytes, UTF-8 validity, magic numbers). */
export const SNIFF_BYTES = 8192;

/** What the first bytes of a file say it is. */
export type Sniffed =
	| { kind: "text"; bom: boolean }
	| { kind: "image"; mimeType: "image/png" | "image/jpeg" | "image/gif" | "image/webp" }
	| { kind: "binary"; reason: "nul-byte" | "invalid-utf8"; mimeType: string | undefined; description: string };

function startsWith(bytes: Uint8Array, signature: readonly number[], at = 0): boolean {
	return signature.every((value, index) => bytes[at + index] === value);
}

/** The image formats read returns as images, recognised by their magic bytes (never the extension). */
export function imageMimeType(bytes: Uint8Array): "image/png" | "image/jpeg" | "image/gif" | "image/webp" | undefined {
	if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
	if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
	if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) {
		return "image/gif";
	}
	if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8))
		return "image/webp";
	return undefined;
}

/** Drops an incomplete UTF-8 sequence at the end of a sample that was cut from a longer file. */
function withoutCutSequence(sample: Uint8Array): Uint8Array {
	for (let back = 1; back <= 3 && back <= sample.length; back++) {
		const byte = sample[sample.length - back] ?? 0;
		if ((byte & 0xc0) === 0x80) continue;
		const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
		return needed > back ? sample.subarray(0, sample.length - back) : sample;
	}
	return sample;
}

/** Names a binary format for the notice, from its magic bytes when `file-type` knows them. */
async function describeBinary(sample: Uint8Array): Promise<{ mimeType: string | undefined; description: string }> {
	if (startsWith(sample, [0xff, 0xfe]) || startsWith(sample, [0xfe, 0xff])) {
		return { mimeType: "text/plain; charset=utf-16", description: "UTF-16 text" };
	}
	try {
		const { fileTypeFromBuffer } = await import("file-type");
		const type = await fileTypeFromBuffer(sample);
		if (type) return { mimeType: type.mime, description: `${type.mime}, .${type.ext}` };
	} catch {
		// An unknown or truncated format is simply "binary data".
	}
	return { mimeType: undefined, description: "binary data" };
}

/**
 * Classifies a file by its first bytes: an image format read can show, binary (a NUL byte, or
 * bytes that are not UTF-8), or UTF-8 text (with or without a BOM).
 * `complete` says whether `sample` is the whole file (then a cut sequence at its end is invalid).
 */
export async function sniff(sample: Uint8Array, complete: boolean): Promise<Sniffed> {
	const image = imageMimeType(sample);
	if (image) return { kind: "image", mimeType: image };
	if (sample.includes(0)) return { kind: "binary", reason: "nul-byte", ...(await describeBinary(sample)) };
	if (!isUtf8(complete ? sample : withoutCutSequence(sample))) {
		return { kind: "binary", reason: "invalid-utf8", ...(await describeBinary(sample)) };
	}
	return { kind: "text", bom: startsWith(sample, [0xef, 0xbb, 0xbf]) };
}
