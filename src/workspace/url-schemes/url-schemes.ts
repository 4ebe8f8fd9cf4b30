/**
 * The URL schemes that name a workspace on another machine, each with the form of its URL. The one
 * list: the URL parser, its messages, the CLI's help and the settings' `trustedProjects` pattern
 * all derive from it, so a new backend's scheme is added here once.
 */
export const workspaceUrlForms = {
	ssh: "ssh://[user@]host[:port]/absolute/path",
	docker: "docker://container/path",
	podman: "podman://container/path",
	kubectl: "kubectl://[namespace/]pod[/container]/path",
} as const;

/** A scheme that names a remote workspace: `ssh`, `docker`, `podman` or `kubectl`. */
export type WorkspaceUrlScheme = keyof typeof workspaceUrlForms;

/** The schemes, in the table's order. */
export const workspaceUrlSchemes = Object.keys(workspaceUrlForms) as readonly WorkspaceUrlScheme[];

/** The schemes as a regular-expression alternative (`ssh|docker|podman|kubectl`), for patterns. */
export const workspaceUrlSchemeAlternatives = workspaceUrlSchemes.join("|");

/** Every form as one phrase, for messages and help: "ssh://…, docker://…, podman://… or kubectl://…". */
export const workspaceUrlFormsText = (() => {
	const forms: string[] = Object.values(workspaceUrlForms);
	return `${forms.slice(0, -1).join(", ")} or ${forms.at(-1)}`;
})();
