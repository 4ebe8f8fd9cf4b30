/** The page's whole style sheet: inline, so the exported file needs nothing from a network. */
export const EXPORT_STYLE = `
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #656d76; --box: #f6f8fa; --line: #d0d7de;
  --add: #dafbe1; --add-fg: #116329; --del: #ffebe9; --del-fg: #82071e; --err: #cf222e; --block: #9a6700; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #8d96a0; --box: #161b22;
  --line: #30363d; --add: #12261e; --add-fg: #7ee787; --del: #25171c; --del-fg: #ffa198; --err: #ff7b72; --block: #d29922; } }
body { font: 14px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.3rem; margin-bottom: 0.2rem; }
.meta { color: var(--muted); margin-bottom: 1.5rem; }
.message { margin: 1rem 0; padding: 0.6rem 0.9rem; border-radius: 6px; border: 1px solid var(--line); }
.user { background: var(--box); }
.role { font-weight: 600; font-size: 0.8rem; text-transform: uppercase; color: var(--muted); }
.text { white-space: pre-wrap; word-break: break-word; }
.call { margin: 0.5rem 0 0.5rem 1rem; border-left: 3px solid var(--line); padding-left: 0.8rem; }
.call.error { border-left-color: var(--err); }
.call.blocked { border-left-color: var(--block); }
.call-head { font-family: ui-monospace, monospace; }
.tag { font-size: 0.75rem; padding: 0 0.4rem; border-radius: 4px; margin-left: 0.4rem; border: 1px solid currentColor; }
.tag.error { color: var(--err); } .tag.blocked { color: var(--block); } .time { color: var(--muted); margin-left: 0.4rem; }
pre { background: var(--box); padding: 0.5rem; border-radius: 4px; overflow-x: auto; margin: 0.3rem 0; font: 12.5px/1.45 ui-monospace, monospace; }
.diff span { display: block; } .diff .add { background: var(--add); color: var(--add-fg); } .diff .del { background: var(--del); color: var(--del-fg); }
.diff .hunk { color: var(--muted); }
details > summary { cursor: pointer; color: var(--muted); }
.files { color: var(--muted); font-size: 0.8rem; font-family: ui-monospace, monospace; }
`;
