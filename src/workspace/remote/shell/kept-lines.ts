import { LINE_BYTES, PREFILTER_NEEDLES } from "../../output/candidate-lines.js";
import { SCAN_EDGE_BYTES, skippedStretch } from "../../output/scan-output-file.js";
import { EXAMINED_FIRST, EXAMINED_LAST, ImportantLines } from "../../output/semantic-tail.js";
import { shellQuote } from "../transport/shell-quote.js";

/** Largest output whose needle check reads the file straight (grep's memory is then at most about this). */
const DIRECT_CHECK_BYTES = 16 * 2 ** 20;

/** The `-e` arguments of the needles, one home with the local scanner's. */
const needleArguments = PREFILTER_NEEDLES.map((needle) => `-e ${shellQuote(needle)}`).join(" ");

/**
 * `toolbeltKeptLines` picks, on the remote side, the candidate lines of a cut output that the
 * local scanner would take (see `semantic-tail.ts`), and sends them after the final frame, so the
 * same classifier keeps the same lines here: `+LINE` each (its first LINE_BYTES bytes), `~` where
 * candidates between the first EXAMINED_FIRST and the last EXAMINED_LAST were left out, `.` at the
 * end. `$out` is the file, `$size` the bytes of the output, `$alive` `yes` while something may
 * still append. A file without any needle costs one `grep -q` (no pipeline; run after the frame:
 * in the background beside its `tail -c` it cost more), a huge one is read at its two ends only,
 * as locally, and lines reach `grep` clipped by `cut` (grep holds a whole line in memory). GNU grep
 * is told that NUL bytes are text (`-a`); a grep without `-a` (BusyBox) takes the lines as they are.
 */
export const keptLinesScript = String.raw`
toolbeltPick() {
	LC_ALL=C cut -b 1-${LINE_BYTES} | { LC_ALL=C grep -a -F ${needleArguments} 2>/dev/null; [ $? = 2 ] && LC_ALL=C grep -F ${needleArguments}; }
}
toolbeltKeptLines() {
	edge=${SCAN_EDGE_BYTES}
	if [ "$size" -gt $((2 * edge)) ]; then
		{ LC_ALL=C head -c "$edge" "$out" | toolbeltPick
		LC_ALL=C tail -c "+$((size - edge + 1))" "$out" | LC_ALL=C head -c "$edge" | toolbeltPick; } | toolbeltExamined
	elif [ "$alive" = yes ]; then LC_ALL=C head -c "$size" "$out" | toolbeltPick | toolbeltExamined
	elif toolbeltHasNeedle; then toolbeltPick <"$out" | toolbeltExamined
	fi
	printf '.\n'
}
toolbeltHasNeedle() {
	# One process for a file holding no needle. Past ${DIRECT_CHECK_BYTES / 2 ** 20} MB (one line may be all of it, and grep
	# holds a whole line) only the lines' starts reach grep.
	if [ "$size" -le ${DIRECT_CHECK_BYTES} ]; then LC_ALL=C grep -q -F ${needleArguments} "$out" 2>/dev/null
	else LC_ALL=C cut -b 1-${LINE_BYTES} "$out" | LC_ALL=C grep -q -F ${needleArguments} 2>/dev/null; fi
}
toolbeltExamined() {
	LC_ALL=C awk -v first=${EXAMINED_FIRST} -v last=${EXAMINED_LAST} '
		NR <= first { print "+" $0; next }
		{ held[NR % last] = $0 }
		END {
			count = NR - first
			if (count > last) { print "~"; count = last }
			for (line = NR - count + 1; line <= NR; line++) print "+" held[line % last]
		}'
}
`;

/** Longest line of the section kept: a `+` and LINE_BYTES bytes, with a little room. */
const MAX_SECTION_LINE = LINE_BYTES + 16;

/**
 * Reads the section `toolbeltKeptLines` sends, feeding its candidates to the local classifier
 * as they come: memory stays at one line however many there are.
 */
export class KeptLinesReader {
	/** The classifier fed with the remote candidates. */
	readonly important = new ImportantLines();
	/** True once the section's end came. */
	done = false;
	private partial: Buffer[] = [];
	private partialBytes = 0;

	/** `size`: the bytes of the output, whose middle the remote side skips as the local scan does. */
	constructor(size: number) {
		const { from, to } = skippedStretch(size);
		if (to > from) this.important.skip(to - from);
	}

	/** Takes a chunk of the remote stdout; returns what follows the section's end (empty while it goes on). */
	write(chunk: Buffer): Buffer {
		let rest = chunk;
		while (rest.length > 0 && !this.done) {
			const newline = rest.indexOf(10);
			if (newline === -1) {
				this.keepPartial(rest);
				return Buffer.alloc(0);
			}
			this.keepPartial(rest.subarray(0, newline));
			rest = rest.subarray(newline + 1);
			const line = Buffer.concat(this.partial);
			this.partial = [];
			this.partialBytes = 0;
			this.take(line);
		}
		return this.done ? rest : Buffer.alloc(0);
	}

	private keepPartial(bytes: Buffer): void {
		const room = MAX_SECTION_LINE - this.partialBytes;
		if (room <= 0) return;
		const taken = bytes.subarray(0, room);
		this.partial.push(Buffer.from(taken));
		this.partialBytes += taken.length;
	}

	private take(line: Buffer): void {
		const kind = line[0];
		if (kind === 0x2b /* + */) this.important.takeCandidate(line.toString("utf8", 1, 1 + LINE_BYTES));
		else if (kind === 0x7e /* ~ */) this.important.markUnexamined();
		else if (kind === 0x2e /* . */) {
			this.done = true;
			this.important.end();
		}
	}
}
