import { describe, expect, it } from "vitest";
import { buildShellEnvironment } from "../../../src/tools/shell/environment.js";
import { isSecretVariableName, withoutCredentials } from "../../../src/tools/shell/secret-variables.js";

describe("isSecretVariableName", () => {
	it("marks the names that hold keys, tokens and passwords", () => {
		for (const name of [
			"OPENAI_API_KEY",
			"ANTHROPIC_API_KEY",
			"AZURE_OPENAI_API_KEY",
			"GOOGLE_APIKEY",
			"AWS_ACCESS_KEY_ID",
			"AWS_SECRET_ACCESS_KEY",
			"AWS_SESSION_TOKEN",
			"GITHUB_TOKEN",
			"GH_TOKEN",
			"NPM_TOKEN",
			"NODE_AUTH_TOKEN",
			"npm_config__authToken",
			"NPM_CONFIG__AUTH",
			"COMPOSER_AUTH",
			"HF_TOKEN",
			"CI_JOB_JWT_V2",
			"PGPASSWORD",
			"MYSQL_PWD",
			"DB_PASS",
			"GITHUB_PAT",
			"GCP_CREDS",
			"GOOGLE_APPLICATION_CREDENTIALS",
			"STRIPE_SECRET_KEY",
			"KAGGLE_KEY",
			"SLACK_WEBHOOK_URL",
			"AZURE_STORAGE_CONNECTION_STRING",
			"SSH_PASSPHRASE",
			"HTTP_AUTHORIZATION",
			"SESSION_COOKIE",
			"OP_SESSION_my",
			"BW_SESSION",
			"DOCKER_AUTH_CONFIG",
			"TF_TOKEN_app_terraform_io",
			"LDAP_BIND_PW",
		]) {
			expect(isSecretVariableName(name), name).toBe(true);
		}
	});

	it("leaves the everyday ones alone", () => {
		for (const name of [
			"PATH",
			"HOME",
			"PWD",
			"OLDPWD",
			"SSH_AUTH_SOCK",
			"GIT_ASKPASS",
			"SSH_ASKPASS",
			"TOKENIZERS_PARALLELISM",
			"KEYTIMEOUT",
			"GNOME_KEYRING_CONTROL",
			"XAUTHORITY",
			"DBUS_SESSION_BUS_ADDRESS",
			"KUBECONFIG",
			"OPENAI_BASE_URL",
			"NODE_OPTIONS",
			"LS_COLORS",
			"GITHUB_ACTIONS",
			"PASSIVE_MODE",
			"BYPASS_CACHE",
		]) {
			expect(isSecretVariableName(name), name).toBe(false);
		}
	});
});

describe("buildShellEnvironment", () => {
	it("keeps secret-named variables out unless named, and lets the tool's env option set one", () => {
		const saved = { ...process.env };
		try {
			process.env.TOOLBELT_TEST_API_KEY = "one";
			process.env.TOOLBELT_TEST_TOKEN = "two";
			process.env.TOOLBELT_TEST_PLAIN = "three";
			const env = buildShellEnvironment({ EXPLICIT_SECRET: "four" }, ["TOOLBELT_TEST_TOKEN"]);
			expect(env.TOOLBELT_TEST_API_KEY).toBeUndefined();
			expect(env.TOOLBELT_TEST_TOKEN).toBe("two");
			expect(env.TOOLBELT_TEST_PLAIN).toBe("three");
			expect(env.EXPLICIT_SECRET).toBe("four");
		} finally {
			process.env = saved;
		}
	});
});

describe("withoutCredentials", () => {
	it.each([
		["postgres://user:p@ss@db:5432/app?x=1", "postgres://db:5432/app?x=1"],
		["redis://:pw@cache:6379", "redis://cache:6379"],
		["https://KEY@o1.ingest.example.io/1", "https://o1.ingest.example.io/1"],
		["http://u:p@proxy:8080 https://u:p@b/x", "http://proxy:8080 https://b/x"],
		["ssh://git@github.com/o/r", "ssh://git@github.com/o/r"],
		["postgres://postgres@localhost/db", "postgres://postgres@localhost/db"],
		["/usr/bin:/bin", "/usr/bin:/bin"],
		["git@github.com:o/r", "git@github.com:o/r"],
	])("%s → %s", (value, kept) => {
		expect(withoutCredentials(value)).toBe(kept);
	});

	it("leaves out a value that sets a credential under a secret's name or holds an authorization", () => {
		for (const value of [
			"api-key=abc123,x-team=prod",
			"Authorization=Basic dXNlcjpwdw==",
			"AUTHORIZATION: basic dXNlcjpwdw==",
			"'http.extraheader'='AUTHORIZATION: bearer abc123def456'",
			"-Xmx1g -Djavax.net.ssl.trustStorePassword=changeit",
			"--registry https://r.example.org --token=abc123",
			"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
			"npm_abcdefghijklmnopqrstuvwxyz0123456789",
			"hf_abcdefghijklmnopqrstuvwxyz0123456789",
		]) {
			expect(withoutCredentials(value), value).toBeUndefined();
		}
		for (const value of [
			"--max-old-space-size=4096 --enable-source-maps",
			"rs=0:di=01;34:ln=01;36:*.tar=01;31",
			"token=",
			"KEY_TIMEOUT=5",
			"en_US.UTF-8",
			"xterm-256color",
		]) {
			expect(withoutCredentials(value), value).toBe(value);
		}
	});

	it("leaves out a value holding a known token format", () => {
		expect(withoutCredentials("ghp_abcdefghijklmnopqrstuvwxyz0123")).toBeUndefined();
		expect(withoutCredentials("key=AKIAABCDEFGHIJKLMNOP")).toBeUndefined();
	});
});
