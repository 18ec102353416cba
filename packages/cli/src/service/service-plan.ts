// What `memoryctl service install` and `uninstall` do, as a list of steps
// computed before anything is touched: `--dry-run` prints the list, the
// real run performs it (service-run.ts). Pure: paths, file contents and
// commands from the inputs, no I/O.
import { launchdPlist, LAUNCHD_LABEL } from './launchd-plist.js';
import { DEFAULT_LISTEN_STREAM, SERVICE_UNIT, serviceUnit, SOCKET_UNIT, socketUnit } from './systemd-units.js';

/** The service managers memoryctl writes definitions for. */
export const SERVICE_TARGETS = ['systemd', 'launchd'] as const;
export type ServiceTarget = (typeof SERVICE_TARGETS)[number];

/** The target this platform uses, or undefined where memoryctl has none. */
export function targetFor(platform: string): ServiceTarget | undefined {
  return platform === 'linux' ? 'systemd' : platform === 'darwin' ? 'launchd' : undefined;
}

/** One step of an install or uninstall. */
export type Step =
  | { kind: 'mkdir'; path: string; mode: number }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'remove'; path: string }
  /** Stop a daemon answering on the service's socket that the service manager did not start: the service takes over. */
  | { kind: 'stop-other-daemon'; socket: string }
  /** A service manager command; `tolerate`: its failure is reported and the rest goes on (uninstalling what is half there). */
  | { kind: 'run'; argv: string[]; tolerate?: boolean };

/** What the definition is made from; every path absolute. */
export interface ServiceInputs {
  target: ServiceTarget;
  home: string;
  /** XDG_CONFIG_HOME, if set (systemd reads user units from it). */
  configHome: string | undefined;
  /** XDG_RUNTIME_DIR, if set (systemd's `%t`). */
  runtimeDir: string | undefined;
  uid: number;
  /** How to run memoryd: absolute node and memoryd, or an absolute memoryd. */
  memoryd: string[];
  dataDir: string;
  /** A socket the user chose; else the target's default. */
  socket: string | undefined;
  /** The socket clients of this environment look for by default (docs/protocol.md, "Framing"). */
  clientSocket: string;
}

/** A service definition: its files, where it listens, and how to install and uninstall it. */
export interface ServiceDefinition {
  target: ServiceTarget;
  /** The files install writes, with their contents. */
  files: Array<{ path: string; content: string }>;
  /** The socket clients reach the service on. */
  socket: string;
  dataDir: string;
  /** The daemon's command line, as the service manager runs it. */
  argv: string[];
  /** Where its log goes, for people. */
  logs: string;
  install: Step[];
  uninstall: Step[];
}

const join = (...parts: string[]) => parts.join('/').replace(/\/{2,}/g, '/');

/** The definition for `inputs.target`. */
export function serviceDefinition(inputs: ServiceInputs): ServiceDefinition {
  return inputs.target === 'systemd' ? systemd(inputs) : launchd(inputs);
}

function systemd(inputs: ServiceInputs): ServiceDefinition {
  const dir = join(inputs.configHome ?? join(inputs.home, '.config'), 'systemd', 'user');
  const runtime = inputs.runtimeDir ?? `/run/user/${inputs.uid}`;
  const socket = inputs.socket ?? join(runtime, 'memoryd', 'memoryd.sock');
  // Under socket activation the daemon serves the inherited socket; --socket
  // then only names it in reports, so it is passed when the user chose one.
  const argv = [...inputs.memoryd, '--data-dir', inputs.dataDir, ...(inputs.socket !== undefined ? ['--socket', inputs.socket] : [])];
  const files = [
    { path: join(dir, SERVICE_UNIT), content: serviceUnit(argv) },
    { path: join(dir, SOCKET_UNIT), content: socketUnit(inputs.socket !== undefined ? { path: inputs.socket } : { specifier: DEFAULT_LISTEN_STREAM }) },
  ];
  const systemctl = (...args: string[]) => ['systemctl', '--user', ...args];
  return {
    target: 'systemd',
    files,
    socket,
    dataDir: inputs.dataDir,
    argv,
    logs: 'journalctl --user -u memoryd',
    install: [
      { kind: 'mkdir', path: dir, mode: 0o755 },
      ...files.map((f): Step => ({ kind: 'write', ...f })),
      { kind: 'run', argv: systemctl('daemon-reload') },
      { kind: 'stop-other-daemon', socket },
      { kind: 'run', argv: systemctl('enable', '--now', SOCKET_UNIT) },
      // A reinstall (an upgrade, another node): a running daemon restarts on the new ExecStart.
      { kind: 'run', argv: systemctl('try-restart', SERVICE_UNIT) },
    ],
    uninstall: [
      { kind: 'run', argv: systemctl('disable', '--now', SOCKET_UNIT), tolerate: true },
      { kind: 'run', argv: systemctl('stop', SERVICE_UNIT), tolerate: true },
      ...files.map((f): Step => ({ kind: 'remove', path: f.path })),
      { kind: 'run', argv: systemctl('daemon-reload'), tolerate: true },
    ],
  };
}

function launchd(inputs: ServiceInputs): ServiceDefinition {
  const agents = join(inputs.home, 'Library', 'LaunchAgents');
  const logDir = join(inputs.home, 'Library', 'Logs', 'memoryd');
  const log = join(logDir, 'memoryd.log');
  const plist = join(agents, `${LAUNCHD_LABEL}.plist`);
  // No socket activation under launchd: the daemon binds the socket clients
  // look for, named outright, since a LaunchAgent's TMPDIR need not be the shell's.
  const socket = inputs.socket ?? inputs.clientSocket;
  const argv = [...inputs.memoryd, '--socket', socket, '--data-dir', inputs.dataDir];
  const domain = `gui/${inputs.uid}`;
  return {
    target: 'launchd',
    files: [{ path: plist, content: launchdPlist(argv, log) }],
    socket,
    dataDir: inputs.dataDir,
    argv,
    logs: log,
    install: [
      { kind: 'mkdir', path: agents, mode: 0o755 },
      { kind: 'mkdir', path: logDir, mode: 0o700 },
      { kind: 'write', path: plist, content: launchdPlist(argv, log) },
      // A reinstall: the loaded agent goes first (fails harmlessly when none is loaded).
      { kind: 'run', argv: ['launchctl', 'bootout', `${domain}/${LAUNCHD_LABEL}`], tolerate: true },
      { kind: 'stop-other-daemon', socket },
      { kind: 'run', argv: ['launchctl', 'bootstrap', domain, plist] },
    ],
    uninstall: [
      { kind: 'run', argv: ['launchctl', 'bootout', `${domain}/${LAUNCHD_LABEL}`], tolerate: true },
      { kind: 'remove', path: plist },
    ],
  };
}
