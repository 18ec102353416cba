import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Stand-ins for systemctl and launchctl, first on PATH: they log each call
// (one line, arguments joined by spaces) and keep the one bit of state the
// service commands read back (enabled, loaded). A call whose arguments
// contain $FAKE_FAIL fails with exit 1, as a real manager refusing would.
// The units and the plist they are given are checked with real tools
// (systemd-analyze, plistlib) by the tests themselves.

const SYSTEMCTL = `#!/bin/sh
echo "systemctl $*" >> "$FAKE_DIR/calls.log"
case " $* " in *" $FAKE_FAIL "*) [ -n "$FAKE_FAIL" ] && { echo "Failed to $FAKE_FAIL: refused by the test" >&2; exit 1; } ;; esac
case "$2" in
  enable) touch "$FAKE_DIR/enabled" ;;
  disable) rm -f "$FAKE_DIR/enabled" ;;
  is-enabled) if [ -e "$FAKE_DIR/enabled" ]; then echo enabled; exit 0; else echo disabled; exit 1; fi ;;
  is-active) [ "$3" = --quiet ] || echo inactive; exit 3 ;;
esac
exit 0
`;

const LAUNCHCTL = `#!/bin/sh
echo "launchctl $*" >> "$FAKE_DIR/calls.log"
case " $* " in *" $FAKE_FAIL "*) [ -n "$FAKE_FAIL" ] && { echo "$FAKE_FAIL: refused by the test" >&2; exit 1; } ;; esac
case "$1" in
  bootstrap) touch "$FAKE_DIR/loaded" ;;
  bootout) if [ -e "$FAKE_DIR/loaded" ]; then rm -f "$FAKE_DIR/loaded"; else echo "Boot-out failed: 3: No such process" >&2; exit 3; fi ;;
  print) if [ -e "$FAKE_DIR/loaded" ]; then printf '%s = {\\n\\tstate = not running\\n}\\n' "$2"; else echo "Could not find service" >&2; exit 113; fi ;;
esac
exit 0
`;

/** A folder holding fake systemctl and launchctl, and what they were asked. */
export interface FakeManagers {
  /** Put first on PATH. */
  bin: string;
  /** Environment for the command under test: PATH and FAKE_DIR. */
  env: Record<string, string>;
  /** The calls so far, one string each. */
  calls(): string[];
}

export function fakeManagers(dir: string): FakeManagers {
  for (const [name, text] of [
    ['systemctl', SYSTEMCTL],
    ['launchctl', LAUNCHCTL],
  ] as const) {
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), 0o755);
  }
  const log = join(dir, 'calls.log');
  return {
    bin: dir,
    env: { PATH: `${dir}:${process.env['PATH'] ?? '/usr/bin:/bin'}`, FAKE_DIR: dir },
    calls: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((l) => l !== '') : []),
  };
}
