const NEWLINE = 0x0a;
/** `0x0a` in each byte of a 32-bit word. */
const NEWLINES = 0x0a0a0a0a;
const LOW_SEVEN = 0x7f7f7f7f;
const ONES = 0x01010101;
/** Words per fold of the lanes: four per step add at most 4 to a lane, and a lane holds 255. */
const WORDS_PER_FOLD = 248;
/** Below this many bytes the JavaScript count is as fast as a copy into WebAssembly and a call. */
const SIMD_FROM_BYTES = 4096;
/** Bytes copied into the WebAssembly memory per call: its one 64 KiB page. */
const SIMD_PIECE_BYTES = 65536;

/**
 * A WebAssembly module of one function, `count(start, length)`: the newlines in its memory's
 * `[start, start + length)`, `length` a multiple of 16, sixteen bytes per step (compare with a
 * vector of newlines, take the lanes' top bits as a mask, count its ones). Its text form:
 *
 *     (func (export "count") (param $at i32) (param $length i32) (result i32)
 *       (local $end i32) (local $count i32) (local $newlines v128)
 *       (local.set $end (i32.add (local.get $at) (local.get $length)))
 *       (local.set $newlines (i8x16.splat (i32.const 10)))
 *       (block $done (loop $next
 *         (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
 *         (local.set $count (i32.add (local.get $count) (i32.popcnt (i8x16.bitmask
 *           (i8x16.eq (v128.load (local.get $at)) (local.get $newlines))))))
 *         (local.set $at (i32.add (local.get $at) (i32.const 16)))
 *         (br $next)))
 *       (local.get $count))
 *     (memory (export "memory") 1)
 */
const SIMD_COUNT_BODY = [
	[0x02, 0x02, 0x7f, 0x01, 0x7b], // locals: two i32, one v128
	[0x20, 0x00, 0x20, 0x01, 0x6a, 0x21, 0x02], // $end = $at + $length
	[0x41, 0x0a, 0xfd, 0x0f, 0x21, 0x04], // $newlines = i8x16.splat(10)
	[0x02, 0x40, 0x03, 0x40], // block, loop
	[0x20, 0x00, 0x20, 0x02, 0x4f, 0x0d, 0x01], // br_if $done ($at >= $end)
	[0x20, 0x00, 0xfd, 0x00, 0x04, 0x00, 0x20, 0x04, 0xfd, 0x23], // i8x16.eq(v128.load $at, $newlines)
	[0xfd, 0x64, 0x69, 0x20, 0x03, 0x6a, 0x21, 0x03], // $count += popcnt(bitmask)
	[0x20, 0x00, 0x41, 0x10, 0x6a, 0x21, 0x00], // $at += 16
	[0x0c, 0x00, 0x0b, 0x0b], // br $next, end loop, end block
	[0x20, 0x03, 0x0b], // $count
].flat();
const SIMD_COUNT_MODULE = new Uint8Array([
	...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
	...[0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f], // types: (i32, i32) -> i32
	...[0x03, 0x02, 0x01, 0x00], // functions: one of type 0
	...[0x05, 0x03, 0x01, 0x00, 0x01], // memory: one page
	...[0x07, 0x12, 0x02, 0x05, ...[0x63, 0x6f, 0x75, 0x6e, 0x74], 0x00, 0x00], // exports: "count",
	...[0x06, ...[0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79], 0x02, 0x00], // "memory"
	...[0x0a, SIMD_COUNT_BODY.length + 2, 0x01, SIMD_COUNT_BODY.length, ...SIMD_COUNT_BODY], // code
]);

interface SimdCount {
	count: (start: number, length: number) => number;
	memory: Uint8Array;
}

/** The instance, made at the first large count; null where it cannot run (no WebAssembly or SIMD, `--jitless`). */
let simd: SimdCount | null | undefined;
/** The module compiled ahead (`compileNewlineCountAhead`), once that compile has finished. */
let compiledAhead: object | undefined;
let compilingAhead: Promise<void> | undefined;

/** The part of the WebAssembly API used here (the project's types name no DOM, where it is declared). */
interface WebAssemblyApi {
	Module: new (bytes: Uint8Array) => object;
	Instance: new (module: object) => { exports: { count: SimdCount["count"]; memory: { buffer: ArrayBuffer } } };
	compile: (bytes: Uint8Array) => Promise<object>;
}

const webAssembly = (): WebAssemblyApi | undefined => (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;

/**
 * Starts compiling the count's module on V8's background threads, for a tool that will count
 * large text (the shell tool, whose calls count their output): a process's first module compiled
 * on the main thread cost about 1 ms inside the first call that counted. Nothing when a count
 * has run or a compile was started; a compile that fails leaves it to the first count. The
 * promise settles (never rejects) once the compile is over.
 */
export function compileNewlineCountAhead(): Promise<void> {
	if (simd !== undefined || compilingAhead) return compilingAhead ?? Promise.resolve();
	compilingAhead = Promise.resolve()
		.then(() => webAssembly()?.compile(SIMD_COUNT_MODULE))
		.then(
			(module) => {
				compiledAhead = module;
			},
			() => {},
		);
	return compilingAhead;
}

function simdCount(): SimdCount | null {
	if (simd !== undefined) return simd;
	try {
		const api = webAssembly();
		if (!api) throw new Error("no WebAssembly");
		const { exports } = new api.Instance(compiledAhead ?? new api.Module(SIMD_COUNT_MODULE));
		simd = { count: exports.count, memory: new Uint8Array(exports.memory.buffer) };
	} catch {
		simd = null;
	}
	return simd;
}

/**
 * The number of `\n` bytes in `bytes[start, end)`.
 *
 * A long range is counted sixteen bytes per step by WebAssembly's vector instructions, copied into
 * its memory 64 KiB at a time: ~25 ms of CPU for 220 MB, against ~90 ms for the word count below
 * and ~160 ms for one `Buffer.indexOf` per line of 70 bytes (Node 24). The cost is per byte, not
 * per line. Where WebAssembly cannot run, and for short ranges, the word count does it.
 */
export function countNewlines(bytes: Uint8Array, start = 0, end = bytes.length): number {
	const vector = end - start >= SIMD_FROM_BYTES ? simdCount() : null;
	if (!vector) return countNewlinesByWords(bytes, start, end);
	let count = 0;
	let index = start;
	const whole = start + ((end - start) & ~15);
	while (index < whole) {
		const length = Math.min(SIMD_PIECE_BYTES, whole - index);
		vector.memory.set(bytes.subarray(index, index + length));
		count += vector.count(0, length);
		index += length;
	}
	while (index < end) if (bytes[index++] === NEWLINE) count++;
	return count;
}

/** One in the low bit of each byte of `word` that is `\n`, zero elsewhere. */
function newlineBits(word: number): number {
	const differs = word ^ NEWLINES;
	// A byte of `differs` is zero exactly where `word` held a newline; adding 0x7f to its low seven
	// bits and or-ing the byte sets its top bit unless it was zero, and no carry crosses a byte.
	return (~(((differs & LOW_SEVEN) + LOW_SEVEN) | differs) >>> 7) & ONES;
}

/**
 * `countNewlines` in plain JavaScript: sixteen bytes per step, as four 32-bit words whose newline
 * bytes become ones in their byte lanes (`newlineBits`), summed per lane and folded into the count
 * every 248 words.
 */
export function countNewlinesByWords(bytes: Uint8Array, start = 0, end = bytes.length): number {
	let count = 0;
	let index = start;
	// Bytes up to a word boundary of the underlying memory (a view of a pooled buffer starts anywhere).
	while (index < end && (bytes.byteOffset + index) % 4 !== 0) if (bytes[index++] === NEWLINE) count++;
	const wordCount = ((end - index) >>> 2) & ~3;
	if (wordCount > 0) {
		const words = new Int32Array(bytes.buffer, bytes.byteOffset + index, wordCount);
		let word = 0;
		while (word < wordCount) {
			const stop = Math.min(wordCount, word + WORDS_PER_FOLD);
			let lanes = 0;
			for (; word < stop; word += 4) {
				lanes =
					(lanes +
						newlineBits(words[word] as number) +
						newlineBits(words[word + 1] as number) +
						newlineBits(words[word + 2] as number) +
						newlineBits(words[word + 3] as number)) |
					0;
			}
			count += (lanes & 0xff) + ((lanes >>> 8) & 0xff) + ((lanes >>> 16) & 0xff) + (lanes >>> 24);
		}
		index += wordCount << 2;
	}
	while (index < end) if (bytes[index++] === NEWLINE) count++;
	return count;
}
