// What names a workspace on another machine: the URL schemes and their forms. A part of its own, with
// no imports, so the CLI's option specs (loaded for --help and --version) and the settings schema
// name the schemes without loading a backend.
export {
	type WorkspaceUrlScheme,
	workspaceUrlForms,
	workspaceUrlFormsText,
	workspaceUrlSchemeAlternatives,
	workspaceUrlSchemes,
} from "./url-schemes.js";
