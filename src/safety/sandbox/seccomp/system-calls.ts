// The system calls the sandbox's seccomp filter refuses or inspects, and their numbers on the two
// architectures it is written for (from the kernel's unistd tables: x86_64's own, arm64's generic).

/** The CPU architectures the filter is written for (Node's `process.arch` names). */
export type SeccompArchitecture = "x64" | "arm64";

/** What the filter needs to know of an architecture besides call numbers. */
export interface ArchitectureFacts {
	/** `AUDIT_ARCH_*` value the kernel puts in `seccomp_data.arch`. */
	auditArch: number;
	/** Calls with this bit set use another ABI of the same architecture (x32 on x86_64). */
	foreignAbiBit?: number;
}

export const architectureFacts: Record<SeccompArchitecture, ArchitectureFacts> = {
	x64: { auditArch: 0xc000003e, foreignAbiBit: 0x40000000 },
	arm64: { auditArch: 0xc00000b7 },
};

const numbers = {
	// Namespaces: a new one (above all a user namespace, where the command would be root again
	// with every capability) or joining another. clone and clone3 are judged apart (their flags).
	unshare: { x64: 272, arm64: 97 },
	setns: { x64: 308, arm64: 268 },
	clone: { x64: 56, arm64: 220 },
	clone3: { x64: 435, arm64: 435 },
	// Mounts, old and new API: an unmount would uncover what the sandbox hides or keeps read-only.
	mount: { x64: 165, arm64: 40 },
	umount2: { x64: 166, arm64: 39 },
	pivot_root: { x64: 155, arm64: 41 },
	chroot: { x64: 161, arm64: 51 },
	open_tree: { x64: 428, arm64: 428 },
	move_mount: { x64: 429, arm64: 429 },
	fsopen: { x64: 430, arm64: 430 },
	fsconfig: { x64: 431, arm64: 431 },
	fsmount: { x64: 432, arm64: 432 },
	fspick: { x64: 433, arm64: 433 },
	mount_setattr: { x64: 442, arm64: 442 },
	// Kernel keyrings: the session keyring is inherited and needs no capability to read.
	keyctl: { x64: 250, arm64: 219 },
	add_key: { x64: 248, arm64: 217 },
	request_key: { x64: 249, arm64: 218 },
	// Other processes' memory and descriptors (without a PID namespace, the user's own processes).
	ptrace: { x64: 101, arm64: 117 },
	process_vm_readv: { x64: 310, arm64: 270 },
	process_vm_writev: { x64: 311, arm64: 271 },
	pidfd_getfd: { x64: 438, arm64: 438 },
	// The kernel itself: modules, a new kernel, BPF programs, and the usual exploit primitives.
	init_module: { x64: 175, arm64: 105 },
	finit_module: { x64: 313, arm64: 273 },
	delete_module: { x64: 176, arm64: 106 },
	kexec_load: { x64: 246, arm64: 104 },
	kexec_file_load: { x64: 320, arm64: 294 },
	bpf: { x64: 321, arm64: 280 },
	perf_event_open: { x64: 298, arm64: 241 },
	userfaultfd: { x64: 323, arm64: 282 },
	open_by_handle_at: { x64: 304, arm64: 265 },
	reboot: { x64: 169, arm64: 142 },
	swapon: { x64: 167, arm64: 224 },
	swapoff: { x64: 168, arm64: 225 },
	acct: { x64: 163, arm64: 89 },
	quotactl: { x64: 179, arm64: 60 },
	quotactl_fd: { x64: 443, arm64: 443 },
	// io_uring: its own socket, open and connect operations would pass by this filter.
	io_uring_setup: { x64: 425, arm64: 425 },
	io_uring_enter: { x64: 426, arm64: 426 },
	io_uring_register: { x64: 427, arm64: 427 },
	// openat2 passes its mode in a struct the filter cannot read (see `modeCalls`): it fails with
	// ENOSYS, as on kernels before 5.6, and callers fall back to openat.
	openat2: { x64: 437, arm64: 437 },
	// Sockets: inspected when host Unix sockets are to be kept out.
	socket: { x64: 41, arm64: 198 },
	socketpair: { x64: 53, arm64: 199 },
} as const;

/** A system call the filter knows by name. */
export type SystemCallName = keyof typeof numbers;

/** The number of `name` on `arch`. */
export function systemCallNumber(name: SystemCallName, arch: SeccompArchitecture): number {
	return numbers[name][arch];
}

/** Refused with EPERM always, whatever else the sandbox allows (`clone` with namespace flags too; `clone3` fails with ENOSYS). */
export const alwaysRefused: readonly SystemCallName[] = [
	"unshare",
	"setns",
	"mount",
	"umount2",
	"pivot_root",
	"chroot",
	"open_tree",
	"move_mount",
	"fsopen",
	"fsconfig",
	"fsmount",
	"fspick",
	"mount_setattr",
	"keyctl",
	"add_key",
	"request_key",
	"ptrace",
	"process_vm_readv",
	"process_vm_writev",
	"pidfd_getfd",
	"init_module",
	"finit_module",
	"delete_module",
	"kexec_load",
	"kexec_file_load",
	"bpf",
	"perf_event_open",
	"userfaultfd",
	"open_by_handle_at",
	"reboot",
	"swapon",
	"swapoff",
	"acct",
	"quotactl",
	"quotactl_fd",
	"io_uring_setup",
	"io_uring_enter",
	"io_uring_register",
];

/** The `clone` flags that make or enter namespaces: NEWTIME, NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET. */
export const namespaceCloneFlags =
	0x00000080 | 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

/** A call that gives a file its mode bits, and the argument (counted from 0) that holds them. */
export interface ModeCall {
	/** The call's name in the kernel's tables. */
	name: string;
	/** Its number per architecture; arm64 has only the `*at` forms. */
	numbers: Partial<Record<SeccompArchitecture, number>>;
	/** Which argument is the mode. */
	modeArgument: 1 | 2 | 3;
	/**
	 * Which argument holds an open's flags: its mode is read only when they create a file
	 * (`O_CREAT`, `O_TMPFILE`); otherwise the register holds whatever the caller left there.
	 */
	flagsArgument?: 1 | 2;
}

/**
 * Every call that sets or creates a file with mode bits (fchmodat2 is 452 everywhere, from Linux
 * 6.6). A set-user-ID or set-group-ID bit there would outlive the sandbox: the program then runs
 * as its owner (root, when toolbelt runs as root) for anyone on the host who starts it.
 */
export const modeCalls: readonly ModeCall[] = [
	{ name: "chmod", numbers: { x64: 90 }, modeArgument: 1 },
	{ name: "fchmod", numbers: { x64: 91, arm64: 52 }, modeArgument: 1 },
	{ name: "fchmodat", numbers: { x64: 268, arm64: 53 }, modeArgument: 2 },
	{ name: "fchmodat2", numbers: { x64: 452, arm64: 452 }, modeArgument: 2 },
	{ name: "open", numbers: { x64: 2 }, modeArgument: 2, flagsArgument: 1 },
	{ name: "creat", numbers: { x64: 85 }, modeArgument: 1 },
	{ name: "openat", numbers: { x64: 257, arm64: 56 }, modeArgument: 3, flagsArgument: 2 },
	{ name: "mknod", numbers: { x64: 133 }, modeArgument: 1 },
	{ name: "mknodat", numbers: { x64: 259, arm64: 33 }, modeArgument: 2 },
];

/** The set-user-ID and set-group-ID bits (`S_ISUID | S_ISGID`). */
export const setIdModeBits = 0o6000;

/** `O_CREAT | __O_TMPFILE` (the same on x64 and arm64): the open flags with which its mode is used. */
export const creatingOpenFlags = 0o100 | 0o20000000;
