// The launchd LaunchAgent of `memoryctl service install` (macOS): memoryd
// started at login and kept running, its log under ~/Library/Logs/memoryd.
// launchd's own socket passing needs launch_activate_socket(3), which Node
// cannot call, so the daemon binds its socket itself. Pure text;
// service-definition.ts says where it goes.

/** The agent's label, and its file name in ~/Library/LaunchAgents. */
export const LAUNCHD_LABEL = 'dev.memoryd';

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The property list: `argv` is the absolute node, the absolute memoryd and
 * its flags; `log` the file its stdout and stderr go to.
 */
export function launchdPlist(argv: readonly string[], log: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by memoryctl service install; memoryctl service uninstall removes it. -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${argv.map((a) => `    <string>${xml(a)}</string>`).join('\n')}
  </array>
  <key>RunAtLoad</key>
  <true/>
  <!-- Restarted when it fails; \`memoryctl stop\` (exit 0) leaves it stopped. -->
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ProcessType</key>
  <string>Background</string>
  <key>StandardOutPath</key>
  <string>${xml(log)}</string>
  <key>StandardErrorPath</key>
  <string>${xml(log)}</string>
</dict>
</plist>
`;
}
