// A tiny assembler for classic BPF as seccomp reads it (`struct sock_filter`), so the sandbox's
// filter needs no native dependency: instructions with named jump targets, resolved to offsets.

/** Opcodes of <linux/filter.h> the filter uses. */
export const opcode = {
	/** `ld [k]`: load the 32-bit word at offset k of `struct seccomp_data`. */
	loadWordAbsolute: 0x20,
	/** `jeq #k`: jump if the accumulator equals k. */
	jumpIfEqual: 0x15,
	/** `jge #k`: jump if the accumulator is at least k (unsigned). */
	jumpIfGreaterOrEqual: 0x35,
	/** `jset #k`: jump if the accumulator has any bit of k set. */
	jumpIfAnyBitSet: 0x45,
	/** `and #k`. */
	andConstant: 0x54,
	/** `ret #k`. */
	returnConstant: 0x06,
} as const;

/** Return values of <linux/seccomp.h>. */
export const seccompReturn = {
	killProcess: 0x80000000,
	allow: 0x7fff0000,
	/** Or'ed with the errno the call fails with. */
	errno: 0x00050000,
} as const;

/** Offsets in `struct seccomp_data`: nr, arch, then the arguments (low word first on little-endian CPUs). */
export const seccompDataOffset = {
	number: 0,
	arch: 4,
	firstArgument: 16,
	secondArgument: 24,
} as const;

/** One instruction, with jumps by label (forward only, as in classic BPF), or a label. */
export type Instruction = { code: number; k: number; ifTrue?: string; ifFalse?: string } | { label: string };

/**
 * Resolves labels to jump offsets and encodes the program as `struct sock_filter` entries (8 bytes
 * each, little-endian). Throws on a jump backwards, to an unknown label, or beyond 255 instructions.
 */
export function assemble(program: readonly Instruction[]): Buffer {
	const positions = new Map<string, number>();
	const instructions: Exclude<Instruction, { label: string }>[] = [];
	for (const item of program) {
		if ("label" in item) positions.set(item.label, instructions.length);
		else instructions.push(item);
	}
	const buffer = Buffer.alloc(instructions.length * 8);
	instructions.forEach((instruction, index) => {
		// A jump offset counts instructions after the next one; 0 means "fall through".
		const offset = (label: string | undefined) => {
			if (label === undefined) return 0;
			const target = positions.get(label);
			if (target === undefined || target <= index || target - index - 1 > 255) throw new Error(`bad jump ${label}`);
			return target - index - 1;
		};
		buffer.writeUInt16LE(instruction.code, index * 8);
		buffer.writeUInt8(offset(instruction.ifTrue), index * 8 + 2);
		buffer.writeUInt8(offset(instruction.ifFalse), index * 8 + 3);
		buffer.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
	});
	return buffer;
}
