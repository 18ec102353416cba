import { execFileSync } from 'node:child_process';

/**
 * Pids of running processes whose command line contains every one of
 * `needles` (e.g. the daemon's bin and a test's unique data dir). A daemon
 * the shim autostarted is detached and not our child, so `ps` is how a
 * test sees how many there are.
 */
export function pidsMentioning(...needles: string[]): number[] {
  const out = execFileSync('ps', ['-ww', '-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  const pids: number[] = [];
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    // A zombie (Z) has exited; it only waits for init to reap it.
    if (m && !m[2]!.startsWith('Z') && needles.every((n) => m[3]!.includes(n)) && !m[3]!.startsWith('ps ')) pids.push(Number(m[1]));
  }
  return pids;
}
