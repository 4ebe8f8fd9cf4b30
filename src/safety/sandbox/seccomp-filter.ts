// A classic-BPF seccomp program, assembled by hand so no native dependency is needed: it refuses
// `socket(AF_UNIX, …)` (a path-bound Unix socket is not behind the network namespace, so
// `--unshare-net` alone leaves docker.sock, D-Bus and ssh-agent reachable) and io_uring (whose
// socket operation would bypass the check). `socketpair` stays allowed for stream and seqpacket
// sockets, which are anonymous; a datagram pair is refused, since `connect` or `sendto` on it reach
// any datagram socket by path (journald, systemd's notify socket).

/** The CPU architectures the filter is written for (Node's `process.arch` names). */
export type SeccompArchitecture = "x64" | "arm64";

interface ArchitectureTable {
	/** `AUDIT_ARCH_*` value the kernel puts in `seccomp_data.arch`. */
	auditArch: number;
	/** System call numbers refused or inspected. */
	socket: number;
	socketPair: number;
	ioUring: readonly number[];
	/** Calls with this bit set use another ABI of the same architecture (x32 on x86_64). */
	foreignAbiBit?: number;
}

const architectures: Record<SeccompArchitecture, ArchitectureTable> = {
	x64: { auditArch: 0xc000003e, socket: 41, socketPair: 53, ioUring: [425, 426, 427], foreignAbiBit: 0x40000000 },
	arm64: { auditArch: 0xc00000b7, socket: 198, socketPair: 199, ioUring: [425, 426, 427] },
};

const addressFamilyUnix = 1;
const socketTypeMask = 0xf;
const socketTypeStream = 1;
const socketTypeSequentialPacket = 5;
const errorNotPermitted = 1;

// Opcodes and return values of <linux/filter.h> and <linux/seccomp.h>.
const loadWordAbsolute = 0x20;
const jumpIfEqual = 0x15;
const jumpIfGreaterOrEqual = 0x35;
const andConstant = 0x54;
const returnConstant = 0x06;
const returnKillProcess = 0x80000000;
const returnAllow = 0x7fff0000;
const returnErrno = 0x00050000;

// Offsets in `struct seccomp_data`: nr, arch, then the arguments (low word first on these little-endian CPUs).
const offsetNumber = 0;
const offsetArch = 4;
const offsetFirstArgument = 16;
const offsetSecondArgument = 24;

type Instruction = { code: number; k: number; ifTrue?: string; ifFalse?: string } | { label: string };

/** The architecture of this process, when the filter supports it. */
export function seccompArchitecture(arch: string = process.arch): SeccompArchitecture | undefined {
	return arch === "x64" || arch === "arm64" ? arch : undefined;
}

function assemble(program: readonly Instruction[]): Buffer {
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

/**
 * The seccomp program (an array of `struct sock_filter`, as bwrap's `--seccomp FD` reads it) for
 * `arch`: a call from another architecture or ABI (i386, x32) kills the process; `socket(AF_UNIX, …)`,
 * a datagram `socketpair(AF_UNIX, …)` and the io_uring calls fail with EPERM; everything else is allowed.
 */
export function buildSeccompFilter(arch: SeccompArchitecture): Buffer {
	const table = architectures[arch];
	const program: Instruction[] = [
		{ code: loadWordAbsolute, k: offsetArch },
		{ code: jumpIfEqual, k: table.auditArch, ifFalse: "kill" },
		{ code: loadWordAbsolute, k: offsetNumber },
	];
	if (table.foreignAbiBit !== undefined) {
		program.push({ code: jumpIfGreaterOrEqual, k: table.foreignAbiBit, ifTrue: "kill" });
	}
	program.push({ code: jumpIfEqual, k: table.socket, ifTrue: "socket" });
	program.push({ code: jumpIfEqual, k: table.socketPair, ifTrue: "socketpair" });
	for (const number of table.ioUring) program.push({ code: jumpIfEqual, k: number, ifTrue: "refuse" });
	program.push(
		{ code: returnConstant, k: returnAllow },
		{ label: "socket" },
		{ code: loadWordAbsolute, k: offsetFirstArgument },
		{ code: jumpIfEqual, k: addressFamilyUnix, ifTrue: "refuse" },
		{ code: returnConstant, k: returnAllow },
		{ label: "socketpair" },
		{ code: loadWordAbsolute, k: offsetFirstArgument },
		{ code: jumpIfEqual, k: addressFamilyUnix, ifFalse: "allow" },
		{ code: loadWordAbsolute, k: offsetSecondArgument },
		{ code: andConstant, k: socketTypeMask },
		{ code: jumpIfEqual, k: socketTypeStream, ifTrue: "allow" },
		{ code: jumpIfEqual, k: socketTypeSequentialPacket, ifTrue: "allow", ifFalse: "refuse" },
		{ label: "allow" },
		{ code: returnConstant, k: returnAllow },
		{ label: "refuse" },
		{ code: returnConstant, k: returnErrno | errorNotPermitted },
		{ label: "kill" },
		{ code: returnConstant, k: returnKillProcess },
	);
	return assemble(program);
}
