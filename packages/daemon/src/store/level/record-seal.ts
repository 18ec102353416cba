import { crc32 } from 'node:zlib';
import { DaemonError, DaemonErrorCodes } from '../../errors.js';
import { KEY_SEP } from './keys.js';

/*
 * Every value in the store is sealed: `~` + the CRC-32 (8 hex digits) of
 * its whole key and its payload + the payload. LevelDB checks its own
 * block checksums only when asked (ReadOptions.verify_checksums, which
 * classic-level does not expose), so without this a flipped byte on disk
 * is served as it is (ADR 0016). The key is in the checksum so that a
 * damaged key (another agent's, another id) fails too, and its length is,
 * so that no byte can move between key and payload unnoticed.
 *
 * No value of layout 1 (JSON, a count, a surface entry, the empty posting
 * value) begins with `~`, so the two layouts never look alike while a
 * store is being sealed (store/level/seal-store.ts).
 */

const MARK = '~';
const HEADER_LENGTH = 9;

function checksum(fullKey: string, payload: string): string {
  return crc32(payload, crc32(`${fullKey.length}\n${fullKey}`)).toString(16).padStart(8, '0');
}

/** The stored form of `payload` under `fullKey` (the key with its sublevel prefix). */
export function seal(fullKey: string, payload: string): string {
  return MARK + checksum(fullKey, payload) + payload;
}

/** The payload of a stored value, or undefined when it is not sealed or fails its checksum. */
export function unseal(fullKey: string, stored: string): string | undefined {
  if (stored.length < HEADER_LENGTH || stored[0] !== MARK) return undefined;
  const payload = stored.slice(HEADER_LENGTH);
  return stored.slice(1, HEADER_LENGTH) === checksum(fullKey, payload) ? payload : undefined;
}

/** What a record under `key` of sublevel `name` is, for people: its kind, agent and id. */
export function describeRecord(name: string, key: string): string {
  const at = key.indexOf(KEY_SEP);
  const agentId = at > 0 ? key.slice(0, at) : undefined;
  const rest = at > 0 ? key.slice(at + 1) : '';
  switch (name) {
    case 'fact':
      return agentId === undefined ? `fact record ${JSON.stringify(key)}` : `fact ${rest} of agent ${agentId}`;
    case 'hist':
      return agentId === undefined ? `fact record ${JSON.stringify(key)}` : `fact version ${rest} of agent ${agentId}`;
    case 'ckpt':
      return agentId === undefined ? `checkpoint record ${JSON.stringify(key)}` : `checkpoint ${rest} of agent ${agentId}`;
    case 'stats':
      return `counters of agent ${key}`;
    case 'meta':
      return `store metadata ${JSON.stringify(key)}`;
    case 'dedup':
      return agentId === undefined ? `dedup entry ${JSON.stringify(key)}` : `dedup entry of agent ${agentId}`;
    default:
      return agentId === undefined ? `search index entry ${JSON.stringify(key)}` : `search index entry of agent ${agentId}`;
  }
}

/** The error for a value that fails its checksum: -32010 naming the record, never served. */
export function damagedRecord(name: string, key: string): DaemonError {
  return new DaemonError(
    DaemonErrorCodes.Damaged,
    `${describeRecord(name, key)} is damaged on disk (checksum mismatch); memoryd --verify lists the damage and memoryd --repair removes it`,
  );
}
