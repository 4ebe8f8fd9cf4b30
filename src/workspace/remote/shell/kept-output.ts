import { withKeptLines } from "../../output/scan-output-file.js";
import type { ImportantLines } from "../../output/semantic-tail.js";
import { describeOutput, renderTail, type ShellOutput, type TailBudget } from "../../shell/output-tail.js";
import { rawFits } from "../transport/frame-size.js";
import { KeptLinesReader } from "./kept-lines.js";

/**
 * Sends the tail of a kept output on stdout as one frame: `keptOutputFrame P|F` prints
 * `KIND SIZE LENGTH NEWLINES\n` then LENGTH bytes (the last bytes before SIZE; NEWLINES, counted
 * by `wc -l`, only in the final frame `F`). `$out` is the file, `$keep` the most tail bytes sent,
 * `$alive` `yes` while processes of the command may still append to it.
 */
export const keptOutputScript = String.raw`
keptOutputFrame() {
	# The final frame counts the lines too (one pass of wc for both); the size alone is a stat.
	# An empty file needs neither (test is built in).
	if [ ! -s "$out" ]; then set -- "$1" 0 0
	# LC_ALL=C: no locale to load for counting bytes.
	elif [ "$1" = F ]; then set -- F $(LC_ALL=C wc -lc <"$out"); else set -- P 0 $(LC_ALL=C wc -c <"$out"); fi
	lines=$2; size=$3
	length=$keep; [ "$size" -lt "$length" ] && length=$size
	printf '%s %s %s %s\n' "$1" "$size" "$length" "$lines"
	[ "$length" -gt 0 ] || return 0
	# Exactly the LENGTH bytes before SIZE while something may still append; once nothing does,
	# the last LENGTH bytes are those.
	if [ "$alive" = yes ]; then LC_ALL=C tail -c "+$((size - length + 1))" "$out" | LC_ALL=C head -c "$length"
	else LC_ALL=C tail -c "$length" "$out"; fi
}
`;

/**
 * `FILE PID KEEP EVERY`: sends a progress frame of FILE whenever it grew, every EVERY seconds,
 * while process PID runs. It runs as a process of its own, started only for a command still
 * running after the first interval, so a short command starts no ticker and no `sleep`.
 */
export const keptOutputWatchScript = `${keptOutputScript}
out=$1; pid=$2; keep=$3; every=$4; alive=yes; last=-1
while kill -0 "$pid" 2>/dev/null; do
	now=$(($(wc -c <"$out"))) || exit 0
	[ "$now" -ne "$last" ] && { last=$now; keptOutputFrame P; }
	# A sleep that takes no fractions fails at once: whole seconds from then on.
	sleep "$every" </dev/null 2>/dev/null || { every=1; sleep 1 </dev/null; }
done
`;

/** One tail frame as it arrived. */
interface Frame {
	kind: "P" | "F";
	/** Bytes of the whole output when the frame was cut. */
	size: number;
	/** `\n` bytes in the whole output (final frame only). */
	newlines: number;
	/** The tail bytes. */
	bytes: Buffer;
}

/**
 * Reads the frames of `keptOutputFrame` from the remote stdout, and after a final frame the
 * budget cuts (`keptLinesOf`, when given) the kept-lines section of `toolbeltKeptLines`. Memory
 * stays at one frame (at most `keep` bytes) and one line however long the command prints: the
 * full output never comes this way.
 */
export class KeptOutputReader {
	private header = "";
	private frame: (Frame & { filled: number }) | undefined;
	/** The kept-lines section being read, and the final frame it follows. */
	private section: { reader: KeptLinesReader; final: Frame } | undefined;
	/** The final frame, once it (and its kept-lines section) arrived. */
	final: Frame | undefined;
	/** The lines worth keeping from a cut output, picked remotely and classified here (once they came). */
	important: ImportantLines | undefined;

	/**
	 * `onProgress` gets the progress frames; `keptLinesOf` is the budget of a run whose final frame
	 * a kept-lines section follows when the raw output does not fit it (undefined: none follows).
	 */
	constructor(
		private readonly onProgress: ((frame: Frame) => void) | undefined,
		private readonly keptLinesOf?: TailBudget,
	) {}

	/** Takes a chunk of the remote stdout. */
	write(chunk: Buffer): void {
		let rest = chunk;
		while (rest.length > 0) {
			if (this.section) {
				const { reader, final } = this.section;
				rest = reader.write(rest);
				if (!reader.done) return;
				this.section = undefined;
				this.important = reader.important;
				this.final = final;
				continue;
			}
			if (!this.frame) {
				const newline = rest.indexOf(10);
				if (newline === -1) {
					this.header += rest.toString("latin1");
					return;
				}
				this.header += rest.subarray(0, newline).toString("latin1");
				rest = rest.subarray(newline + 1);
				const [kind, size, length, newlines] = this.header.split(" ");
				this.header = "";
				this.frame = {
					kind: kind === "F" ? "F" : "P",
					size: Number(size),
					newlines: Number(newlines),
					bytes: Buffer.allocUnsafe(Number(length) || 0),
					filled: 0,
				};
			}
			const frame = this.frame;
			const taken = Math.min(rest.length, frame.bytes.length - frame.filled);
			rest.copy(frame.bytes, frame.filled, 0, taken);
			frame.filled += taken;
			rest = rest.subarray(taken);
			if (frame.filled === frame.bytes.length) this.complete(frame);
		}
	}

	private complete(frame: Frame & { filled: number }): void {
		this.frame = undefined;
		const done: Frame = { kind: frame.kind, size: frame.size, newlines: frame.newlines, bytes: frame.bytes };
		if (done.kind !== "F") this.onProgress?.(done);
		else if (this.keptLinesOf && !rawFits(done, this.keptLinesOf))
			this.section = { reader: new KeptLinesReader(done.size), final: done };
		else this.final = done;
	}
}

/** The sanitized tail of a progress frame, within the budget. */
export function previewOf(frame: Frame, budget: TailBudget): string {
	return renderTail(frame.bytes, frame.size > frame.bytes.length, budget).content;
}

/**
 * What the model sees of a kept output: the final frame's tail, the remote totals, the remote path
 * when cut, and before the tail the lines worth keeping from the cut part (`important`), as locally.
 */
export function keptOutputOf(options: {
	final: Frame | undefined;
	budget: TailBudget;
	path: string | undefined;
	host: string;
	important?: ImportantLines | undefined;
}): ShellOutput {
	const final = options.final ?? { kind: "F", size: 0, newlines: 0, bytes: Buffer.alloc(0) };
	const startsMidStream = final.size > final.bytes.length;
	const tail = renderTail(final.bytes, startsMidStream, options.budget);
	const truncated = tail.truncated || tail.cut || startsMidStream;
	const removed = rawFits(final, options.budget);
	const output = describeOutput({
		tail,
		truncated,
		totalBytes: final.size,
		newlines: final.newlines,
		lastByte: final.bytes.length > 0 ? (final.bytes[final.bytes.length - 1] ?? -1) : -1,
		...(options.path && !removed ? { fullOutputPath: options.path } : {}),
		...(truncated && (removed || !options.path || !options.final)
			? { fullOutputError: "the remote output file was not kept" }
			: {}),
	});
	if (output.fullOutputPath) output.fullOutputHost = options.host;
	if (truncated && options.important) {
		output.text = withKeptLines(output.text, options.important, "the full-output file named below");
	}
	return output;
}
