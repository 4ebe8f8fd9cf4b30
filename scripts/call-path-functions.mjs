// Written by `npx tsx bench/first-call/compiled.ts --write-list` on a build made with
// TOOLBELT_LAZY_BUNDLE=1 (see scripts/eager-functions.mjs and scripts/bundle-library.mjs): the
// functions each first-call row compiled inside its call, by module, as functionKey names them.

/** Module path under dist/ → the keys of its functions compiled as the bundle loads. */
export const callPathFunctions = {
	"engine/abort.js": [
		"dispose", "onAbort", "raceAbort", "startDeadline", "stop", "stoppableSignal",
	],
	"engine/call-conflicts.js": [
		"add", "addTo", "ancestorsOf", "conflicts", "coveredBy", "gather", "remove", "removeFrom",
		"unknownConflicts",
	],
	"engine/call-outcome.js": [
		"isToolResult", "parseArguments",
	],
	"engine/clock.js": [
		"monotonicMs",
	],
	"engine/errors.js": [
		"constructor", "throwIfAborted",
	],
	"engine/execute-tool-calls.js": [
		"declare", "declareInTurn", "executeToolCalls", "finish", "forgetLookups", "nestedCallsOf", "run",
		"settle", "startTool",
	],
	"engine/file-mutation-queue.js": [
		"withFileMutationQueue",
	],
	"engine/hooks.js": [
		"declaredTarget",
	],
	"engine/truncate.js": [
		"countLines", "cutText", "cutWindow", "formatSize", "isLowSurrogate", "truncate", "truncateHead",
		"untouched",
	],
	"engine/validation/validate.js": [
		"flatCopy", "validateToolArguments", "validatorFor",
	],
	"syntax/languages.js": [
		"syntaxLanguageOf",
	],
	"syntax/tool-fields.js": [
		"isSyntaxChecked",
	],
	"tools/fs/argument-aliases.js": [
		"aliasArguments", "holdsNull", "namesAny",
	],
	"tools/fs/in-place-notice.js": [
		"inPlaceNotice",
	],
	"tools/grep.js": [
		"globInPath", "onBatch", "runGrep", "shownLine", "start",
	],
	"tools/notebook/notebook-json.js": [
		"isNotebookPath",
	],
	"tools/read.js": [
		"execute", "target",
	],
	"tools/read/chunk-reader.js": [
		"bufferOf", "constructor", "read", "readAhead", "readInto", "settle", "settled",
	],
	"tools/read/growing-file.js": [
		"grownSize",
	],
	"tools/read/line-collector.js": [
		"add", "completeLength", "constructor", "cutLine", "finish",
	],
	"tools/read/line-pager.js": [
		"countLinesFrom", "firstReadLength", "headLength", "pageLines", "readLinePage",
	],
	"tools/read/newline-count.js": [
		"compileNewlineCountAhead", "countNewlines", "countNewlinesByWords", "simdCount",
	],
	"tools/read/page-lines.js": [
		"add", "addBytes", "addLineRun", "constructor", "reserve", "start", "text",
	],
	"tools/read/pdf/read-pdf.js": [
		"isPdf",
	],
	"tools/read/read-file.js": [
		"maxBytesOf", "readFileContent", "readHead", "readText",
	],
	"tools/read/sniff.js": [
		"imageMimeType", "sniff", "startsWith", "withoutCutSequence",
	],
	"tools/read/unchanged-reads.js": [
		"check", "hashLater", "readKey",
	],
	"tools/read/virtual-file.js": [
		"isVirtualFile",
	],
	"tools/search/grep/collector.js": [
		"add", "constructor", "format", "formatBlocks", "formatWithin", "joinGrepBlocks", "keep",
		"noteUnshown",
	],
	"tools/search/grep/cut-line.js": [
		"cutAroundMatch",
	],
	"tools/search/grep/digest.js": [
		"atDepth", "cutFileLines", "digestGrepCut", "formatCount", "header", "marker", "mergeFolders",
		"nextSteps", "plural", "shapeOf", "shownByFile", "stopLine", "summarizeFolders", "takeListing",
		"unshownLine",
	],
	"tools/search/grep/early-stop.js": [
		"beyondBounds", "constructor", "take",
	],
	"tools/search/grep/fit.js": [
		"sizeOfBlocks",
	],
	"tools/search/grep/match-tally.js": [
		"add", "addToFolder", "constructor", "folderKey", "result",
	],
	"tools/search/grep/ordered-collector.js": [
		"add", "format", "lastKeptPath", "tidy",
	],
	"tools/search/grep/output-text.js": [
		"describeGrepOutput",
	],
	"tools/search/hidden-filter.js": [
		"withoutHidden",
	],
	"tools/search/path-glob.js": [
		"splitPathGlob",
	],
	"tools/search/pinned-search.js": [
		"runPinnedSearch", "start",
	],
	"tools/search/prepare-arguments.js": [
		"caseSensitiveFromAliases", "isRecord2", "prepareGrepArguments", "rename",
	],
	"tools/search/run-search.js": [
		"resolveSearchTarget", "runSearch", "untilStopped",
	],
	"tools/search/search-tool.js": [
		"execute", "searchRunDetails", "searchTarget", "target", "withNotices",
	],
	"tools/shell/file-output.js": [
		"close", "constructor", "countAndScanBefore", "create", "finish", "readTail", "size",
	],
	"tools/shell/line-count.js": [
		"countNewlines2",
	],
	"tools/shell/prepare-arguments.js": [
		"prepareShellArguments",
	],
	"tools/shell/resolve-shell.js": [
		"configuredShell", "firstFound", "resolveBashShell",
	],
	"tools/shell/run-shell-tool.js": [
		"composeText", "effectiveTimeout", "execIntoFile", "execKeepingOutput", "failureOf", "finish",
		"runShellTool", "shellToolExecute",
	],
	"tools/shell/shell-tool.js": [
		"target",
	],
	"tools/write.js": [
		"execute", "notesText", "target", "writeTarget",
	],
	"workspace/files/atomic-write.js": [
		"creatingFolders", "replace", "replaceByRename", "resolveWriteTarget", "tempPathFor",
		"writeFileAtomic",
	],
	"workspace/files/contract.js": [
		"infoIfExists",
	],
	"workspace/files/legacy-encoding.js": [
		"decodeText",
	],
	"workspace/files/temp-name.js": [
		"tempNameFor",
	],
	"workspace/local/files/operations.js": [
		"infoOf", "kindOf", "open", "realpath", "rename", "stat", "statIfExists", "writeFile",
		"writeNewFileSync",
	],
	"workspace/local/files/readable-file.js": [
		"close", "descriptorFile", "openReadable", "read",
	],
	"workspace/local/process/background-registry.js": [
		"enforceRetention", "holdRunningCommand", "registerOutputFile", "registerSessionCleanup",
		"releaseSmallOutputFile", "settleOutputFile", "sizeOf", "uninstallWhenIdle",
	],
	"workspace/local/process/cgroup-members.js": [
		"cgroupMembers", "removeEmptyCgroup", "removeOnceEmptied", "visit",
	],
	"workspace/local/process/cgroup.js": [
		"run", "settleBase", "settleCgroupProbe", "sweepLater", "sweepStale",
	],
	"workspace/local/process/containment.js": [
		"releaseContainment",
	],
	"workspace/local/process/proc-stat.js": [
		"readProcStat",
	],
	"workspace/local/process/process-tree.js": [
		"findTreeProcesses",
	],
	"workspace/local/process/signal.js": [
		"isOneProcess", "ownGroupId", "signalProcess",
	],
	"workspace/local/search/long-lines/grep-output-splitter.js": [
		"constructor", "flush", "push",
	],
	"workspace/local/search/long-lines/line-window.js": [
		"cutLineBytes", "offset", "parseHeader", "readDigits", "textWindowOf",
	],
	"workspace/local/search/long-lines/omitted-lines.js": [
		"constructor", "forFile", "mayBeMarker", "openPlainFile", "readLine", "restore",
		"startsWithByteOrderMark",
	],
	"workspace/local/search/operations.js": [
		"grep", "stat", "withFallback",
	],
	"workspace/local/search/path-order/held-grep.js": [
		"constructor", "end", "readUntil", "sorted", "stop",
	],
	"workspace/local/search/path-order/ordered-first-grep.js": [
		"orderedFirstGrep", "stopOrdered",
	],
	"workspace/local/search/path-order/path-ordered-grep.js": [
		"pathOrderedGrep", "startStoppable",
	],
	"workspace/local/search/read-calls.js": [
		"readCallsCountable", "readCallsOf",
	],
	"workspace/local/search/ripgrep-backend.js": [
		"commonArgs", "constructor", "globArgs", "grepArgs", "mapBatches", "parse", "parseGrepLine",
		"pathFilter", "posixPath", "ripgrepGrep", "ripgrepGrepStarter",
	],
	"workspace/local/search/ripgrep-launcher-script.js": [
		"folderForShell", "sameEnvironment",
	],
	"workspace/local/search/ripgrep-launcher.js": [
		"launchRipgrep", "launcherReady", "noteRipgrepStarted", "prepareRipgrepLauncher", "ripgrepRunEnded",
		"stillRunnable",
	],
	"workspace/local/search/ripgrep-pair.js": [
		"end", "gone", "holdControl2", "isFolder", "kill", "pairScript", "readControl2", "release2",
		"releaser", "restored", "spawnPairShell", "startEveryThread", "startRipgrepPair",
		"startWaitingRipgrep", "takeWaitingPair", "waitingPairStart", "watch",
	],
	"workspace/local/search/ripgrep-path.js": [
		"locateRipgrep", "platformBinary",
	],
	"workspace/local/search/ripgrep-process.js": [
		"directRun", "fatalMessage", "kill", "killedOnAbort", "piecesOf", "readCalls", "readLines",
		"startDirectly", "startRipgrep", "startRipgrepPair2", "startedAhead",
	],
	"workspace/local/search/scan-file-handle.js": [
		"yieldWhenSliceIsUsed",
	],
	"workspace/local/search/shell-started-ripgrep.js": [
		"closed", "endOf", "exited", "kill", "killed", "killerOf", "known", "pid", "readControlQuietly",
		"socketOf", "stderrText", "watchEnds",
	],
	"workspace/local/shell/left-running.js": [
		"collectLeftRunning", "escapeSearchStart", "idleFor", "keepOrRelease", "releasedWithRelay",
		"stillRunning",
	],
	"workspace/local/shell/local-operations.js": [
		"execToFile", "findExecutable", "isDirectory", "isExecutableFile",
	],
	"workspace/local/shell/local-run.js": [
		"armTimeoutAndAbort", "finish", "maybeFinish", "onChunk", "onExit", "runLocalCommand",
		"stopWatching", "wireChild",
	],
	"workspace/local/shell/output-relay.js": [
		"relayAheadTarget", "relayEnvironment",
	],
	"workspace/local/shell/read-descriptors.js": [
		"openDescriptorsScript",
	],
	"workspace/local/shell/relay-channel.js": [
		"createRelayChannel", "readRelayAnnouncement",
	],
	"workspace/local/shell/run-state.js": [
		"newRunState",
	],
	"workspace/local/shell/standby-answer.js": [
		"awaitJoinReport", "done", "settleLaunchedProbe", "shell.startAnswerClock",
	],
	"workspace/local/shell/standby-in-place.js": [
		"runsInPlace", "startupName",
	],
	"workspace/local/shell/standby-launch.js": [
		"cannotExport", "launchScript2", "shellLevel",
	],
	"workspace/local/shell/standby-shell.js": [
		"letJoin", "prepareCallShell", "prepareStandbyAfterResult", "prepareStandbyShell",
		"prepareToolShell", "releaseStandbyShell", "sameFolder", "spawnStandby", "startFromStandby",
	],
	"workspace/output/candidate-lines.js": [
		"firstCandidates", "merged", "needleLines",
	],
	"workspace/output/held-candidates.js": [
		"constructor", "drain",
	],
	"workspace/output/scan-output-file.js": [
		"withKeptLines",
	],
	"workspace/output/semantic-tail.js": [
		"carryFrom", "collapseRepeats", "collapseRuns", "end", "endLine", "keptBlock", "keptOutside",
		"scan", "scanWholeLines", "seenOutside", "shapeOf", "wordyLength", "wordyShapeOf",
	],
	"workspace/paths/near-miss.js": [
		"lookUpExistingPath", "mayHaveLookAlike", "pathVariants",
	],
	"workspace/paths/paths.js": [
		"displayPath", "isNormalAbsolute", "relativeInside",
	],
	"workspace/paths/real-path.js": [
		"below", "existingRealPath", "folderRealPath", "knownRealPath", "realPathOf",
	],
	"workspace/paths/scheduling-key.js": [
		"foldName", "foldPath", "schedulingKey",
	],
	"workspace/paths/special-file-messages.js": [
		"shellQuote",
	],
	"workspace/paths/visible-name.js": [
		"isEscaped", "nameFromVisible", "visibleName",
	],
	"workspace/search/parent-ignore-files.js": [
		"hasIgnoreSourcesAbove",
	],
	"workspace/search/sort-paths.js": [
		"add", "comparePaths", "sortPaths", "sortedPathsUntil", "visitFolder", "walk",
	],
	"workspace/shell/output-tail.js": [
		"completeUtf8Length", "describeOutput", "outputFilePath", "renderTail",
	],
	"workspace/shell/pid-in-use.js": [
		"pidInUse",
	],
	"workspace/shell/sanitize.js": [
		"sanitizeTerminalOutput",
	],
	"workspace/workspace.js": [
		"callTarget", "carriedTarget", "commandTarget", "filesFor", "isWorkspaceTarget", "lexicalLookup",
		"pinFolder", "release", "resolve", "resolveTarget", "touchesOf",
	],
};
