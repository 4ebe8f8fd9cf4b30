// The sandbox's seccomp program. Always on: no new namespaces (a user namespace would make the
// command root again, with every capability, inside it), no mounts, no kernel keyrings, no tracing
// of other processes, no module, kexec, BPF or io_uring calls; a call from another architecture or
// ABI (i386, x32, which would pass by the numbers below) kills the process. `clone3` passes its
// flags in a struct the filter cannot read, so it fails with ENOSYS and the C library falls back to
// `clone`, whose flags the filter checks.
//
// With the network off, also `socket(AF_UNIX, …)` (a path-bound Unix socket is not behind the
// network namespace, so `--unshare-net` alone leaves docker.sock, D-Bus and ssh-agent reachable).
// `socketpair` stays allowed for stream and seqpacket sockets, which are anonymous; a datagram pair
// is refused, since `connect` or `sendto` on it reach any datagram socket by path (journald,
// systemd's notify socket).
//
// Always, too: a set-user-ID or set-group-ID bit on a file (chmod, or open/mknod with such a
// mode; an open's mode only when it creates a file, since otherwise the register holds
// leftovers). The bits are kept on disk, and the sandbox's no-new-privileges ends at its edge: a
// program the command leaves so marked runs as its owner for whoever starts it on the host — a
// root shell for every local user when toolbelt runs as root. openat2 hides its mode in a struct,
// so it fails with ENOSYS.
import { assemble, type Instruction, opcode, seccompDataOffset, seccompReturn } from "./assemble.js";
import {
	alwaysRefused,
	architectureFacts,
	creatingOpenFlags,
	type ModeCall,
	modeCalls,
	namespaceCloneFlags,
	type SeccompArchitecture,
	setIdModeBits,
	systemCallNumber,
} from "./system-calls.js";

export type { SeccompArchitecture } from "./system-calls.js";

/** What the filter refuses beyond what it always refuses. */
export interface SeccompFilterOptions {
	/** Refuse `socket(AF_UNIX, …)` and datagram `socketpair`s (the network is off). Default: true. */
	blockUnixSockets?: boolean;
}

const addressFamilyUnix = 1;
const socketTypeMask = 0xf;
const socketTypeStream = 1;
const socketTypeSequentialPacket = 5;
const errorNotPermitted = 1;
const errorNoSuchCall = 38;

/** The architecture of this process, when the filter supports it. */
export function seccompArchitecture(arch: string = process.arch): SeccompArchitecture | undefined {
	return arch === "x64" || arch === "arm64" ? arch : undefined;
}

/** The checks of `socket` and `socketpair`, entered at their labels; they end at `accept` or `refuse`. */
function unixSocketChecks(): Instruction[] {
	return [
		{ label: "socket" },
		{ code: opcode.loadWordAbsolute, k: seccompDataOffset.firstArgument },
		{ code: opcode.jumpIfEqual, k: addressFamilyUnix, ifTrue: "refuse", ifFalse: "accept" },
		{ label: "socketpair" },
		{ code: opcode.loadWordAbsolute, k: seccompDataOffset.firstArgument },
		{ code: opcode.jumpIfEqual, k: addressFamilyUnix, ifFalse: "accept" },
		{ code: opcode.loadWordAbsolute, k: seccompDataOffset.secondArgument },
		{ code: opcode.andConstant, k: socketTypeMask },
		{ code: opcode.jumpIfEqual, k: socketTypeStream, ifTrue: "accept" },
		{ code: opcode.jumpIfEqual, k: socketTypeSequentialPacket, ifTrue: "accept", ifFalse: "refuse" },
	];
}

/** Where a mode call's check begins: one check per place of its flags and mode. */
const modeCheckLabel = (call: ModeCall) => `mode-${call.flagsArgument ?? "none"}-${call.modeArgument}`;

/** Offset of an argument's low word (the mode or flags; low word first on little-endian CPUs). */
const argumentOffset = (argument: number) => seccompDataOffset.firstArgument + 8 * argument;

/**
 * The mode checks, one for each place a mode call keeps its flags and mode: an open that creates
 * nothing is accepted before its mode is looked at.
 */
function setIdModeChecks(): Instruction[] {
	const kinds = new Map(modeCalls.map((call) => [modeCheckLabel(call), call]));
	return [...kinds].flatMap(([label, call]) => [
		{ label },
		...(call.flagsArgument === undefined
			? []
			: [
					{ code: opcode.loadWordAbsolute, k: argumentOffset(call.flagsArgument) },
					{ code: opcode.jumpIfAnyBitSet, k: creatingOpenFlags, ifFalse: "accept" },
				]),
		{ code: opcode.loadWordAbsolute, k: argumentOffset(call.modeArgument) },
		{ code: opcode.jumpIfAnyBitSet, k: setIdModeBits, ifTrue: "refuse", ifFalse: "accept" },
	]);
}

/**
 * The seccomp program (an array of `struct sock_filter`, as bwrap's `--seccomp FD` reads it) for
 * `arch`: the always-refused calls and `clone` with a namespace flag fail with EPERM, `clone3` with
 * ENOSYS (`openat2` too), a mode with a set-user-ID or set-group-ID bit (`chmod`, `open`, `mknod`
 * and their kin) fails with EPERM, a call from another architecture or ABI kills the process; with `blockUnixSockets`,
 * `socket(AF_UNIX, …)` and a datagram `socketpair(AF_UNIX, …)` fail with EPERM; everything else is allowed.
 */
export function buildSeccompFilter(arch: SeccompArchitecture, options: SeccompFilterOptions = {}): Buffer {
	const facts = architectureFacts[arch];
	const blockUnixSockets = options.blockUnixSockets !== false;
	const number = (name: Parameters<typeof systemCallNumber>[0]) => systemCallNumber(name, arch);
	const program: Instruction[] = [
		{ code: opcode.loadWordAbsolute, k: seccompDataOffset.arch },
		{ code: opcode.jumpIfEqual, k: facts.auditArch, ifFalse: "kill" },
		{ code: opcode.loadWordAbsolute, k: seccompDataOffset.number },
	];
	if (facts.foreignAbiBit !== undefined) {
		program.push({ code: opcode.jumpIfGreaterOrEqual, k: facts.foreignAbiBit, ifTrue: "kill" });
	}
	for (const name of alwaysRefused) program.push({ code: opcode.jumpIfEqual, k: number(name), ifTrue: "refuse" });
	program.push({ code: opcode.jumpIfEqual, k: number("clone3"), ifTrue: "no-such-call" });
	program.push({ code: opcode.jumpIfEqual, k: number("openat2"), ifTrue: "no-such-call" });
	for (const call of modeCalls) {
		const callNumber = call.numbers[arch];
		if (callNumber !== undefined)
			program.push({ code: opcode.jumpIfEqual, k: callNumber, ifTrue: modeCheckLabel(call) });
	}
	program.push({ code: opcode.jumpIfEqual, k: number("clone"), ifTrue: "clone" });
	if (blockUnixSockets) {
		program.push({ code: opcode.jumpIfEqual, k: number("socket"), ifTrue: "socket" });
		program.push({ code: opcode.jumpIfEqual, k: number("socketpair"), ifTrue: "socketpair" });
	}
	program.push(
		{ code: opcode.returnConstant, k: seccompReturn.allow },
		// The flags are clone's first argument on both architectures; namespace flags lie in its low word.
		{ label: "clone" },
		{ code: opcode.loadWordAbsolute, k: seccompDataOffset.firstArgument },
		{ code: opcode.jumpIfAnyBitSet, k: namespaceCloneFlags, ifTrue: "refuse", ifFalse: "accept" },
	);
	program.push(...setIdModeChecks());
	if (blockUnixSockets) program.push(...unixSocketChecks());
	// Classic BPF jumps only forward: the inspected calls' verdicts come last.
	program.push(
		{ label: "accept" },
		{ code: opcode.returnConstant, k: seccompReturn.allow },
		{ label: "refuse" },
		{ code: opcode.returnConstant, k: seccompReturn.errno | errorNotPermitted },
		{ label: "no-such-call" },
		{ code: opcode.returnConstant, k: seccompReturn.errno | errorNoSuchCall },
		{ label: "kill" },
		{ code: opcode.returnConstant, k: seccompReturn.killProcess },
	);
	return assemble(program);
}
