import { homedir, platform } from 'node:os';
import { resolve } from 'node:path';
import { DaemonClient, isClientError, ClientErrorCodes } from '@memoryd/client';
import { UsageError } from '@memoryd/client/args';
import { DaemonShutdown, DaemonStatus, defaultDataDir, defaultSocketPath, socketPathProblem } from '@memoryd/protocol';
import type { Command, CommandContext } from '../command.js';
import { commandArgs } from '../args.js';
import { Exit } from '../exit-codes.js';
import { json, pairs } from '../output.js';
import { serviceMemoryd } from '../service/service-memoryd.js';
import { SERVICE_TARGETS, type ServiceDefinition, serviceDefinition, type ServiceTarget, type Step, targetFor } from '../service/service-plan.js';
import { commandLine, performInstall, performUninstall, runCommand } from '../service/service-run.js';
import { connectingWouldStart, type ManagerState, serviceState } from '../service/service-status.js';
import { SOCKET_UNIT } from '../service/systemd-units.js';
import { CLI_VERSION } from '../version.js';
import { didYouMean } from '../suggest.js';

const ACTIONS = ['install', 'uninstall', 'status'] as const;
type Action = (typeof ACTIONS)[number];

/** Bound on the wait for a daemon outside the service to exit after daemon.shutdown (twice the 5 s of docs/operations.md, "Stopping"). */
const STOP_WAIT_MS = 10_000;

const uid = () => process.getuid?.() ?? 0;

/** The definition this command line and environment ask for. */
function definitionFor(ctx: CommandContext, target: ServiceTarget): ServiceDefinition {
  const env = ctx.connection.env ?? process.env;
  const home = env['HOME'] || homedir();
  const targetPlatform = target === 'launchd' ? 'darwin' : 'linux';
  const socket = ctx.connection.socket === undefined ? undefined : resolve(ctx.connection.socket);
  if (socket !== undefined) {
    const problem = socketPathProblem(socket, Buffer.byteLength(socket), targetPlatform);
    if (problem !== undefined) throw new UsageError(problem);
  }
  return serviceDefinition({
    target,
    home,
    configHome: env['XDG_CONFIG_HOME'] || undefined,
    runtimeDir: env['XDG_RUNTIME_DIR'] || undefined,
    uid: uid(),
    memoryd: serviceMemoryd(env),
    dataDir: resolve(ctx.connection.dataDir ?? defaultDataDir(env, targetPlatform, home)),
    socket,
    clientSocket: defaultSocketPath(env, uid()),
  });
}

/** A step as a line of the dry run. */
function describe(step: Step, target: ServiceTarget): string {
  switch (step.kind) {
    case 'mkdir':
      return `mkdir -p -m ${step.mode.toString(8).padStart(4, '0')} ${commandLine([step.path])}`;
    case 'write':
      return `write ${commandLine([step.path])}`;
    case 'remove':
      return `rm -f ${commandLine([step.path])}`;
    case 'stop-other-daemon':
      return `stop a daemon answering on ${step.socket} that ${target} did not start (memoryctl stop)`;
    case 'run':
      return `${commandLine(step.argv)}${step.tolerate ? '   (a failure is noted, not fatal)' : ''}`;
  }
}

/** Waits until `pid` is gone, bounded. */
async function exited(pid: number): Promise<boolean> {
  const deadline = Date.now() + STOP_WAIT_MS;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') return true;
    }
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A client that never starts a daemon, on `socket`. */
function quietClient(ctx: CommandContext, socket: string): DaemonClient {
  return new DaemonClient({ socket, autostart: false, env: ctx.connection.env ?? process.env, clientName: 'memoryctl', clientVersion: CLI_VERSION });
}

/**
 * Stops a daemon on `socket` that the service manager did not start, so
 * the service can take the socket; under systemd, an active socket unit
 * means whatever answers is the service's own.
 */
async function stopOtherDaemon(ctx: CommandContext, def: ServiceDefinition, socket: string): Promise<string | undefined> {
  const env = ctx.connection.env ?? process.env;
  if (def.target === 'systemd' && (await runCommand(['systemctl', '--user', 'is-active', '--quiet', SOCKET_UNIT], env)).code === 0) return undefined;
  const client = quietClient(ctx, socket);
  try {
    let pid: number;
    try {
      pid = (await client.connect()).pid;
    } catch (err) {
      if (isClientError(err, ClientErrorCodes.Unavailable)) return undefined;
      throw err;
    }
    await client.call(DaemonShutdown, {});
    if (!(await exited(pid))) throw new Error(`the daemon on ${socket} (pid ${pid}) did not exit within ${STOP_WAIT_MS / 1000} s of daemon.shutdown`);
    return `stopped the daemon running outside the service (pid ${pid}); the service takes over its socket`;
  } finally {
    await client.close();
  }
}

async function install(ctx: CommandContext, def: ServiceDefinition, dryRun: boolean): Promise<number> {
  if (dryRun) {
    if (ctx.json) ctx.out(json({ action: 'install', dryRun: true, ...summary(def), files: def.files, steps: def.install.map((s) => describe(s, def.target)) }));
    else {
      ctx.out(`# memoryctl service install --dry-run (${def.target}): prints what install would do; changes nothing.\n`);
      for (const f of def.files) ctx.out(`# ${f.path}\n${f.content}\n`);
      ctx.out(`# Steps, in order:\n${def.install.map((s) => describe(s, def.target)).join('\n')}`);
    }
    return Exit.ok;
  }
  await performInstall(def.install, {
    env: ctx.connection.env ?? process.env,
    stopOtherDaemon: (socket) => stopOtherDaemon(ctx, def, socket),
    note: (line) => ctx.err(line),
  });
  if (ctx.json) ctx.out(json({ action: 'install', dryRun: false, ...summary(def), files: def.files.map((f) => f.path) }));
  else {
    const starts = def.target === 'systemd' ? 'starts on the first connection' : 'starts at login and now';
    ctx.out(
      `memoryd is installed as a ${def.target} service (${starts}).\n` +
        pairs([
          ['socket', def.socket],
          ['data dir', def.dataDir],
          ['logs', def.logs],
          ['runs', commandLine(def.argv)],
        ]),
    );
  }
  return Exit.ok;
}

async function uninstall(ctx: CommandContext, def: ServiceDefinition, dryRun: boolean): Promise<number> {
  if (dryRun) {
    if (ctx.json) ctx.out(json({ action: 'uninstall', dryRun: true, ...summary(def), steps: def.uninstall.map((s) => describe(s, def.target)) }));
    else ctx.out(`# memoryctl service uninstall --dry-run (${def.target}): prints what uninstall would do; changes nothing.\n# Steps, in order:\n${def.uninstall.map((s) => describe(s, def.target)).join('\n')}`);
    return Exit.ok;
  }
  const failures = await performUninstall(def.uninstall, { env: ctx.connection.env ?? process.env, stopOtherDaemon: async () => undefined, note: (line) => ctx.err(line) });
  for (const f of failures) ctx.err(`memoryctl: ${f}`);
  if (ctx.json) ctx.out(json({ action: 'uninstall', dryRun: false, ...summary(def), removed: def.files.map((f) => f.path), failures }));
  else ctx.out(`memoryd's ${def.target} service is uninstalled; its data (${def.dataDir}) and logs stay.`);
  return failures.length === 0 ? Exit.ok : Exit.failed;
}

function summary(def: ServiceDefinition) {
  return { target: def.target, socket: def.socket, dataDir: def.dataDir, argv: def.argv, logs: def.logs };
}

function managerLine(m: ManagerState): string {
  if (m.error !== undefined) return `unknown (${m.error})`;
  if (m.target === 'systemd') return `${SOCKET_UNIT} ${m.socketEnabled}, ${m.socketActive}; memoryd.service ${m.serviceActive}`;
  return m.loaded ? `loaded, ${m.state}${m.pid !== null ? `, pid ${m.pid}` : ''}` : 'not loaded';
}

async function status(ctx: CommandContext, def: ServiceDefinition): Promise<number> {
  const env = ctx.connection.env ?? process.env;
  const state = await serviceState(def, env, uid());
  let daemon: { answering: boolean; pid?: number; version?: string; dataDir?: string; note?: string };
  if (connectingWouldStart(state.manager)) daemon = { answering: false, note: 'not running: the first connection starts it' };
  else {
    const client = quietClient(ctx, def.socket);
    try {
      const s = await client.call(DaemonStatus, {});
      daemon = { answering: true, pid: s.pid, version: s.daemonVersion, dataDir: s.dataDir };
    } catch (err) {
      if (!isClientError(err, ClientErrorCodes.Unavailable)) throw err;
      daemon = { answering: false, note: 'no daemon answers' };
    } finally {
      await client.close();
    }
  }
  if (ctx.json) ctx.out(json({ ...summary(def), installed: state.installed, current: state.current, files: state.files, manager: state.manager, daemon }));
  else {
    const rows: Array<[string, string]> = state.files.map((f) => [
      'file',
      `${f.path}: ${!f.installed ? 'not installed' : f.current ? 'installed' : 'installed, out of date (run memoryctl service install again)'}`,
    ]);
    rows.push([def.target, managerLine(state.manager)]);
    rows.push(['socket', def.socket]);
    rows.push(['daemon', daemon.answering ? `running, pid ${daemon.pid}, memoryd ${daemon.version}, data dir ${daemon.dataDir}` : daemon.note!]);
    rows.push(['logs', def.logs]);
    ctx.out(pairs(rows));
  }
  return state.installed ? Exit.ok : Exit.notFound;
}

export const service: Command = {
  name: 'service',
  help: `Usage: memoryctl service install|uninstall|status [--dry-run] [--target systemd|launchd]

Runs memoryd as a per-user service, so every MCP client and script of this
user shares one daemon, started by the service manager.

  install    Linux (systemd user units): writes memoryd.socket and
             memoryd.service in ~/.config/systemd/user ($XDG_CONFIG_HOME),
             then runs
               systemctl --user daemon-reload
               systemctl --user enable --now memoryd.socket
               systemctl --user try-restart memoryd.service
             The socket listens on %t/memoryd/memoryd.sock ($XDG_RUNTIME_DIR;
             mode 0600, its directory 0700) and the first connection starts
             memoryd, which serves the socket it inherits; it is restarted
             on failure and logs to the journal (journalctl --user -u memoryd).
             macOS (launchd): writes ~/Library/LaunchAgents/dev.memoryd.plist
             (RunAtLoad; KeepAlive: restarted unless it exits 0), logging to
             ~/Library/Logs/memoryd/memoryd.log, then runs
               launchctl bootstrap gui/UID ~/Library/LaunchAgents/dev.memoryd.plist
             The service runs this node and the memoryd of this release by
             absolute path, with the data dir a daemon started from here
             would use (--data-dir or MEMORYD_DATA_DIR choose another, as
             --socket or MEMORYD_SOCKET choose the socket). A daemon running
             outside the service on that socket is stopped first, so the
             service takes over. Run install again after upgrading memoryd or
             node. A failed install puts back the files it wrote.
  uninstall  stops and disables the service and removes the files install
             wrote; the data, the logs and the directories stay.
  status     what is installed (and whether it is what install would write
             now), what the service manager says, and whether the daemon
             answers; never starts it. Exits 4 when nothing is installed.

Options:
  --dry-run    print the files and the steps; change nothing
  --target T   systemd or launchd (default: this platform's); with --dry-run,
               shows another platform's files
`,
  async run(ctx) {
    const args = commandArgs(ctx.argv, { 'dry-run': { type: 'boolean' }, target: { type: 'string' } }, ['ACTION']);
    if (args.help) {
      ctx.out(this.help);
      return Exit.ok;
    }
    const action = args.positionals[0] as Action;
    if (!ACTIONS.includes(action)) throw new UsageError(`ACTION must be one of ${ACTIONS.join(', ')}, got ${JSON.stringify(action)}${didYouMean(action, ACTIONS)}`);
    const chosen = args.values['target'] as string | undefined;
    if (chosen !== undefined && !(SERVICE_TARGETS as readonly string[]).includes(chosen)) {
      throw new UsageError(`--target must be one of ${SERVICE_TARGETS.join(', ')}, got ${JSON.stringify(chosen)}`);
    }
    const target = (chosen as ServiceTarget | undefined) ?? targetFor(platform());
    if (target === undefined) throw new UsageError(`memoryctl knows no service manager on ${platform()}; --target ${SERVICE_TARGETS.join('|')} --dry-run shows the files`);
    const dryRun = args.values['dry-run'] === true;
    if (dryRun && action === 'status') throw new UsageError('status changes nothing; --dry-run is for install and uninstall');
    const def = definitionFor(ctx, target);
    if (action === 'install') return install(ctx, def, dryRun);
    if (action === 'uninstall') return uninstall(ctx, def, dryRun);
    return status(ctx, def);
  },
};
