/**
 * The environment of real git in the security tests: a fixed author and committer, and no
 * system config, so git on the host behaves the same on every machine and only what a test
 * planted can run.
 */
export const gitIdentity = {
	GIT_AUTHOR_NAME: "t",
	GIT_AUTHOR_EMAIL: "t@example.invalid",
	GIT_COMMITTER_NAME: "t",
	GIT_COMMITTER_EMAIL: "t@example.invalid",
	GIT_CONFIG_NOSYSTEM: "1",
} as const;
