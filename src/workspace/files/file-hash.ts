import { createHash } from "node:crypto";
import type { FileOperations } from "./contract.js";

/** Above this size a file is hashed by chunks: memory stays bounded whatever its size. */
const WHOLE_READ_MAX_BYTES = 1024 * 1024;
const HASH_CHUNK_BYTES = 1024 * 1024;

/**
 * The sha256 (hex) of the file at `path`: computed where it lives when the backend can
 * (`files.hash`), else read here, whole when `size` says it is small (one round trip), by chunks
 * otherwise (a file may be larger than memory, or than the 2 GiB a Buffer holds).
 */
export async function fileHash(files: FileOperations, path: string, size?: number): Promise<string> {
	if (files.hash) return files.hash(path);
	const hash = createHash("sha256");
	if (size !== undefined && size <= WHOLE_READ_MAX_BYTES) return hash.update(await files.readFile(path)).digest("hex");
	const file = await files.open(path);
	try {
		const buffer = Buffer.allocUnsafe(HASH_CHUNK_BYTES);
		for (let position = 0; ; ) {
			const bytesRead = await file.read({ buffer, offset: 0, length: buffer.length, position });
			if (bytesRead === 0) return hash.digest("hex");
			hash.update(buffer.subarray(0, bytesRead));
			position += bytesRead;
		}
	} finally {
		await file.close();
	}
}
