import type { Command } from '../command.js';

/**
 * A command's word and its line in `memoryctl --help`; its module is
 * loaded only when it runs, so a command's start-up pays for its own
 * dependencies (tables, progress bars, readline) and no other's.
 */
export interface CommandEntry {
  name: string;
  /** One line for `memoryctl --help`. */
  summary: string;
  load(): Promise<Command>;
}

/** Every command, in the order `memoryctl --help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'status', summary: 'the daemon: version, pid, uptime, socket, data dir, connections, counts, health', load: async () => (await import('./status.js')).status },
  { name: 'agents', summary: 'agents with their fact and checkpoint counts', load: async () => (await import('./agents.js')).agents },
  { name: 'add', summary: 'store a fact: add AGENT CONTENT [--tag T]...', load: async () => (await import('./add.js')).add },
  {
    name: 'search',
    summary: "search an agent's facts: search AGENT QUERY [--limit N] [--tag T]... [--since W] [--until W]",
    load: async () => (await import('./search.js')).search,
  },
  {
    name: 'list',
    summary: "an agent's current facts, oldest first: list AGENT [--newest] [--limit N] [--tag T]... [--since W] [--until W]",
    load: async () => (await import('./list.js')).list,
  },
  { name: 'history', summary: "every version of a fact, oldest first: history AGENT FACT_ID", load: async () => (await import('./history.js')).history },
  { name: 'tags', summary: "an agent's tags with their counts of facts: tags AGENT", load: async () => (await import('./tags.js')).tags },
  { name: 'update', summary: "change a fact's text, tags or both: update AGENT FACT_ID [CONTENT] [--tag T]...", load: async () => (await import('./update.js')).update },
  { name: 'resume', summary: "an agent's latest checkpoint (or one by id): resume AGENT [--checkpoint ID]", load: async () => (await import('./resume.js')).resume },
  { name: 'save', summary: 'save a checkpoint of a JSON object: save AGENT [STATE_FILE|-] [--message-count N]', load: async () => (await import('./save.js')).save },
  { name: 'checkpoints', summary: "an agent's checkpoints, oldest first: checkpoints AGENT", load: async () => (await import('./checkpoints.js')).checkpoints },
  {
    name: 'embeddings',
    summary: "meaning search: embeddings status | rebuild [--wait] | fetch [--model NAME]",
    load: async () => (await import('./embeddings.js')).embeddings,
  },
  { name: 'reflect', summary: 'update or delete a fact: reflect AGENT update FACT_ID CONTENT | reflect AGENT delete FACT_ID', load: async () => (await import('./reflect.js')).reflect },
  { name: 'export', summary: "an export file of every record (or one agent's): export [--agent A] [-o FILE]", load: async () => (await import('./export.js')).exportCommand },
  { name: 'import', summary: 'import an export file (or stdin), 1,000 records a call: import [FILE]', load: async () => (await import('./import.js')).importCommand },
  { name: 'backup', summary: 'a consistent export into DIR/memoryd-<UTC time>.jsonl, while serving', load: async () => (await import('./backup.js')).backup },
  { name: 'ui', summary: 'a web page to see and correct what agents remember: ui [--port N] [--no-open]', load: async () => (await import('./ui.js')).ui },
  { name: 'stop', summary: 'stop the daemon gracefully', load: async () => (await import('./stop.js')).stop },
  {
    name: 'service',
    summary: 'memoryd as a per-user service (systemd, launchd): service install|uninstall|status [--dry-run]',
    load: async () => (await import('./service.js')).service,
  },
];
