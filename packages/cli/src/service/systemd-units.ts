// The systemd user units of `memoryctl service install` (Linux): a socket
// unit that listens where clients look, and the service it starts on the
// first connection (socket activation: the daemon serves the inherited
// socket, LISTEN_FDS). Pure text; service-definition.ts says where they go.


/** The unit files' names, in ~/.config/systemd/user. */
export const SOCKET_UNIT = 'memoryd.socket';
export const SERVICE_UNIT = 'memoryd.service';

/** The default listening path (docs/protocol.md, "Framing"): the user's runtime dir (`%t`, XDG_RUNTIME_DIR). */
export const DEFAULT_LISTEN_STREAM = '%t/memoryd/memoryd.sock';

/**
 * One word of an ExecStart= line. systemd splits the line itself (no
 * shell): a word with nothing special is written as it is; any other is
 * double-quoted with C-style escapes. `%` starts a specifier in every word
 * and `$` a variable, so both are doubled.
 */
export function execWord(word: string): string {
  const literal = word.replace(/%/g, '%%').replace(/\$/g, '$$$$');
  if (/^[A-Za-z0-9_@+=:,./-]+$/.test(word)) return literal;
  return `"${literal.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`;
}

/** A path in a setting other than ExecStart=: only specifiers need escaping. */
function settingPath(path: string): string {
  return path.replace(/%/g, '%%');
}

/** memoryd.socket: `listen` is the default `%t/...` path (docs/api-stability.md, "Command lines") unless the user chose another. */
export function socketUnit(listen: { specifier: string } | { path: string }): string {
  const stream = 'specifier' in listen ? listen.specifier : settingPath(listen.path);
  return `# Written by memoryctl service install; memoryctl service uninstall removes it.
[Unit]
Description=memoryd socket: clients connect here, and the first connection starts memoryd

[Socket]
ListenStream=${stream}
SocketMode=0600
DirectoryMode=0700
RemoveOnStop=yes

[Install]
WantedBy=sockets.target
`;
}

/**
 * memoryd.service: `argv` is the absolute node, the absolute memoryd, and
 * its flags, with no runtime flags or tunables (ADR 0029).
 */
export function serviceUnit(argv: readonly string[]): string {
  return `# Written by memoryctl service install; memoryctl service uninstall removes it.
[Unit]
Description=memoryd, the memory service for AI agents
Requires=${SOCKET_UNIT}
After=${SOCKET_UNIT}

[Service]
Type=simple
ExecStart=${argv.map(execWord).join(' ')}
Restart=on-failure
# SIGTERM: finish in-flight requests, close the store, exit 0 within 5 s.
TimeoutStopSec=10
# stderr (the daemon's log) goes to the journal: journalctl --user -u memoryd
StandardError=journal
`;
}
