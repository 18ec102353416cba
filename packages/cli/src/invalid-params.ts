import { AgentId, Limits, Ulid } from '@memoryd/protocol';

/** The command-line argument each param comes from, as the commands' usage lines name them. */
const ARGUMENTS: Record<string, string> = {
  agentId: 'AGENT',
  content: 'CONTENT',
  query: 'QUERY',
  limit: '--limit',
  tags: '--tag',
  factId: 'FACT_ID',
  checkpointId: '--checkpoint',
  messageCount: '--message-count',
  state: 'the state',
  after: '--after',
};

/** What a schema pattern asks for, in words. */
const PATTERNS: ReadonlyMap<string, string> = new Map([
  [AgentId.pattern!, `must be 1 to ${Limits.agentIdMaxLength} letters, digits or . _ : @ - (no spaces)`],
  [Ulid.pattern!, 'must be an id as memoryd prints them: 26 letters and digits, like 01J5Z8X3K9QW4E2R7T6Y1U0P3M'],
]);

/** The daemon's reason, as a sentence a person reads without knowing regular expressions. */
function inWords(reason: string): string {
  const pattern = /^expected string to match '(.*)'$/.exec(reason);
  if (pattern !== null) return PATTERNS.get(pattern[1]!) ?? 'is not in the form memoryd accepts';
  const most = /^expected (?:integer|number) to be less or equal to (\S+)$/.exec(reason);
  if (most !== null) return `must be at most ${most[1]}`;
  const least = /^expected (?:integer|number) to be greater or equal to (\S+)$/.exec(reason);
  if (least !== null) return `must be at least ${least[1]}`;
  return reason;
}

/**
 * The sentence for params the daemon refused (-32602): the argument the
 * user typed, named as the command's usage names it, and what it must be
 * (exit 2, a usage error: docs/protocol.md, memoryctl). `field` is the
 * daemon's `data.field` (`tags[1]`, `agentId`), `reason` its `data.reason`.
 */
export function invalidParamsSentence(field: string, reason: string): string {
  const at = /^([A-Za-z]+)(?:\[(\d+)\])?/.exec(field);
  const name = at === null ? undefined : ARGUMENTS[at[1]!];
  const argument = name === undefined ? (field === '' ? 'an argument' : field) : at?.[2] !== undefined ? `${name} (the ${ordinal(Number(at[2]) + 1)})` : name;
  return `${argument} ${inWords(reason)}`;
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}
