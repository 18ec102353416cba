import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SharedDaemon } from './fixture.js';
import { assertInvalidParams } from './rpc.js';

/**
 * One limit case: `params` for `method` must succeed (`field` undefined),
 * or fail with -32602 naming `field`.
 */
export interface LimitCase {
  name: string;
  method: string;
  params: unknown;
  field?: string;
}

/** A case just inside a limit. */
export function accept(name: string, method: string, params: unknown): LimitCase {
  return { name, method, params };
}

/** A case just outside a limit, rejected on `field`. */
export function reject(name: string, method: string, params: unknown, field: string): LimitCase {
  return { name, method, params, field };
}

/** Registers one `it` per case against the shared daemon. */
export function runLimitCases(shared: SharedDaemon, cases: LimitCase[]): void {
  for (const c of cases) {
    const title = c.field === undefined ? `accepts ${c.name} (${c.method})` : `rejects ${c.name} (${c.method}) on ${c.field}`;
    it(title, async () => {
      const r = await shared.client.call(c.method, c.params, 20_000);
      if (c.field === undefined) {
        assert.equal(r.error, undefined, `${c.name}: ${JSON.stringify(r.error)}`);
        assert.ok(r.result !== null && typeof r.result === 'object');
      } else {
        assert.equal(r.result, undefined, `${c.name} was accepted`);
        assert.ok(r.error, `${c.name}: no error`);
        assertInvalidParams(r.error, c.field);
      }
    });
  }
}
