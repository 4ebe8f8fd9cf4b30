import { errorMessage } from "../../engine/index.js";

/** Limits an image must fit before it goes to the model. */
export interface ImageLimits {
	/** Widest image, in pixels. */
	maxWidth: number;
	/** Tallest image, in pixels. */
	maxHeight: number;
	/** Largest image as base64 characters. */
	maxBase64Bytes: number;
	/** Most pixels of a source image (its first frame) that is decoded. Default: `DEFAULT_MAX_INPUT_PIXELS`. */
	maxInputPixels?: number;
}

/**
 * Most pixels of a source image read decodes: 100 million (10,000 × 10,000), a few hundred MB
 * decoded at most. A small compressed file can claim far more (a 1 MB PNG of 100,000 × 100,000
 * pixels); its header is read, and it is refused before any pixel is decoded.
 */
export const DEFAULT_MAX_INPUT_PIXELS = 100_000_000;

/** An image ready for the model, or the reason there is none. */
export interface FittedImage {
	/** Base64 bytes, or undefined when the image could not be made to fit. */
	data: string | undefined;
	/** MIME type of `data` (the source's, or the format it was re-encoded to). */
	mimeType: string;
	/** Pixel size of the source, when it could be decoded. */
	originalWidth: number | undefined;
	originalHeight: number | undefined;
	/** Pixel size of `data`. */
	width: number | undefined;
	height: number | undefined;
	/** True when the image was scaled or re-encoded. */
	resized: boolean;
	/** Why no image is returned, or a caveat about the one returned. */
	note: string | undefined;
}

type Sharp = typeof import("sharp").default;

let sharpModule: Promise<Sharp | undefined> | undefined;

/** Loads sharp on first use only: text reads never pay for the native module. */
function loadSharp(): Promise<Sharp | undefined> {
	sharpModule ??= import("sharp").then(
		(module) => module.default,
		() => undefined,
	);
	return sharpModule;
}

function base64Length(bytes: number): number {
	return Math.ceil(bytes / 3) * 4;
}

/** Attempts, in order: the source format at full fitted size, then JPEG at falling quality and size. */
const JPEG_QUALITIES = [80, 60, 40] as const;
const SHRINK_STEPS = [1, 0.75, 0.5, 0.35, 0.25] as const;

/**
 * Makes an image fit `limits`: returned unchanged when it already fits, otherwise scaled down
 * (aspect kept) and, if still too large, re-encoded as JPEG at lower quality and size. A failure
 * of a resize step falls back to the source when that fits, so one broken step never drops the
 * image; an image that cannot be decoded at all is never returned.
 */
export async function fitImage(source: Buffer, mimeType: string, limits: ImageLimits): Promise<FittedImage> {
	const sourceFitsBytes = base64Length(source.length) <= limits.maxBase64Bytes;
	const unchanged = (width: number | undefined, height: number | undefined, note?: string): FittedImage => ({
		data: source.toString("base64"),
		mimeType,
		originalWidth: width,
		originalHeight: height,
		width,
		height,
		resized: false,
		note,
	});
	const none = (note: string, width?: number, height?: number): FittedImage => ({
		data: undefined,
		mimeType,
		originalWidth: width,
		originalHeight: height,
		width: undefined,
		height: undefined,
		resized: false,
		note,
	});

	const sharp = await loadSharp();
	if (!sharp) {
		return sourceFitsBytes
			? unchanged(undefined, undefined, "the image library is unavailable, so its pixel size was not checked")
			: none("it is too large and the image library is unavailable to shrink it");
	}
	const maxInputPixels = limits.maxInputPixels ?? DEFAULT_MAX_INPUT_PIXELS;
	let width: number;
	let height: number;
	let pixels: number;
	try {
		// The header only: nothing is decoded yet.
		const metadata = await sharp(source, { limitInputPixels: false }).metadata();
		width = metadata.width ?? 0;
		// An animated GIF or WebP reports the height of all frames stacked; one frame is what is shown.
		height = metadata.pageHeight ?? metadata.height ?? 0;
		// One frame is decoded (sharp's default), so one frame counts.
		pixels = width * height;
	} catch (error) {
		// A model API rejects an image it cannot decode, and the rejected block then fails every
		// later request of the conversation: a file the image library cannot decode is not sent.
		return none(`it could not be decoded, so the file is probably damaged or truncated (${errorMessage(error)})`);
	}
	if (pixels > maxInputPixels) {
		return none(
			`it has ${width}×${height} pixels, more than the ${maxInputPixels.toLocaleString("en-US")} read decodes (decoded, it would take about ${Math.round((pixels * 4) / 1024 ** 3)} GB of memory). ` +
				"It may be a decompression bomb; if it is a real image, make a smaller copy with a tool that decodes it in tiles (e.g. vips resize via bash) and read that",
			width,
			height,
		);
	}
	if (width <= limits.maxWidth && height <= limits.maxHeight && sourceFitsBytes) return unchanged(width, height);

	const fitScale = Math.min(1, limits.maxWidth / width, limits.maxHeight / height);
	const sameFormat = mimeType === "image/gif" ? "png" : (mimeType.slice("image/".length) as "png" | "jpeg" | "webp");
	const attempts: { scale: number; format: "png" | "jpeg" | "webp"; quality?: number }[] = [
		{ scale: fitScale, format: sameFormat },
	];
	for (const shrink of SHRINK_STEPS) {
		for (const quality of JPEG_QUALITIES) attempts.push({ scale: fitScale * shrink, format: "jpeg", quality });
	}
	let lastError: unknown;
	for (const attempt of attempts) {
		const targetWidth = Math.max(1, Math.floor(width * attempt.scale));
		const targetHeight = Math.max(1, Math.floor(height * attempt.scale));
		try {
			let pipeline = sharp(source, { limitInputPixels: maxInputPixels })
				.rotate()
				.resize(targetWidth, targetHeight, { fit: "inside" });
			if (attempt.format === "jpeg") {
				// JPEG has no alpha: transparent pixels become white, not black.
				pipeline = pipeline.flatten({ background: "#ffffff" }).jpeg({ quality: attempt.quality ?? 80, mozjpeg: true });
			} else if (attempt.format === "png") pipeline = pipeline.png({ compressionLevel: 9 });
			else pipeline = pipeline.webp({ quality: 85 });
			const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
			if (base64Length(data.length) > limits.maxBase64Bytes) continue;
			return {
				data: data.toString("base64"),
				mimeType: `image/${attempt.format}`,
				originalWidth: width,
				originalHeight: height,
				width: info.width,
				height: info.height,
				resized: true,
				note: undefined,
			};
		} catch (error) {
			lastError = error;
		}
	}
	if (width <= limits.maxWidth && height <= limits.maxHeight && sourceFitsBytes) return unchanged(width, height);
	const why = lastError ? `resizing failed (${errorMessage(lastError)})` : "even the smallest re-encoding is too large";
	return none(
		`it cannot be made to fit ${limits.maxWidth}×${limits.maxHeight} px and ${limits.maxBase64Bytes} base64 bytes: ${why}`,
		width,
		height,
	);
}
