import type { Socket } from 'node:net';
import { ErrorCodes, LineSplitter, Limits } from '@memoryd/protocol';
import { createJSONRPCErrorResponse } from 'json-rpc-2.0';
import type { Logger } from '../logger.js';
import type { RpcDispatcher } from './rpc-dispatcher.js';
import type { LineBudget } from './line-budget.js';
import { Semaphore } from './semaphore.js';

/** How long a connection closed for a bad line still reads (and drops) what its peer sends. */
const DISCARD_MS = 1_000;

/**
 * One client connection. Lines are answered as their requests finish, in
 * any order. Two things stop reading from the socket, so that one client
 * never holds memory or time that others need: all of its request slots
 * (64) being busy, and responses piling up because it does not read them.
 */
export class Connection {
  // The protocol's NDJSON framing; lines decode as UTF-8 without a copy.
  private readonly splitter = new LineSplitter((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8'));
  private readonly slots = new Semaphore(Limits.maxInFlightPerConnection);
  /** Lines read but not yet started. */
  private readonly queue: string[] = [];
  /** Lines started whose responses are not yet written. */
  private active = 0;
  private writeBlocked = false;
  private inputEnded = false;
  private draining = false;
  private closed = false;
  private readonly idle: Array<() => void> = [];

  constructor(
    readonly socket: Socket,
    readonly id: number,
    private readonly dispatcher: RpcDispatcher,
    private readonly log: Logger,
    private readonly budget: LineBudget,
  ) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.onEnd());
    socket.on('drain', () => {
      this.writeBlocked = false;
      this.pump();
    });
    socket.on('error', (err) => this.log.debug('connection error', { conn: id, err }));
    socket.on('close', () => {
      this.closed = true;
      this.queue.length = 0;
      this.budget.set(this, 0);
      this.settle();
    });
  }

  /** Stops taking new lines; resolves when every started request has answered. */
  drain(): Promise<void> {
    this.draining = true;
    this.queue.length = 0;
    this.socket.pause();
    return new Promise((resolve) => {
      this.idle.push(resolve);
      this.settle();
    });
  }

  private onData(chunk: Buffer): void {
    if (this.draining) return;
    const lines = this.splitter.push(chunk);
    if (lines === 'overflow') {
      this.rejectOverlongLine();
      return;
    }
    for (const line of lines) this.queue.push(line);
    this.budget.set(this, this.splitter.pending);
    if (this.draining) return;
    this.pump();
  }

  /** The shared budget of unfinished lines ran out, and this connection held the most. */
  evict(heldBytes: number): void {
    this.log.warn('unfinished lines over the budget; closing the connection holding the largest', {
      conn: this.id,
      held: heldBytes,
      budget: Limits.maxUnfinishedLineBytes,
    });
    this.fail(`Invalid Request: all connections together may hold ${Limits.maxUnfinishedLineBytes} bytes of unfinished lines; this one held the largest (${heldBytes} bytes)`);
  }

  private onEnd(): void {
    this.inputEnded = true;
    const last = this.splitter.end();
    if (last !== undefined && !this.draining) this.queue.push(last);
    this.pump();
  }

  private rejectOverlongLine(): void {
    this.log.warn('line over the limit; closing connection', { conn: this.id, limit: Limits.maxLineBytes });
    this.budget.set(this, 0);
    this.fail(`Invalid Request: line longer than ${Limits.maxLineBytes} bytes`);
  }

  /** Answers one -32600 with id null, then closes: the rest of the input is never read. */
  private fail(message: string): void {
    const error = createJSONRPCErrorResponse(null, ErrorCodes.InvalidRequest, message);
    this.splitter.discard();
    this.queue.length = 0;
    this.draining = true;
    this.socket.end(JSON.stringify(error) + '\n');
    // What the peer still sends is read and dropped for a moment (onData ignores it while
    // draining): closing on unread input resets the connection, and the peer could lose
    // the error before reading it. Then the connection goes, whatever the peer does.
    this.socket.resume();
    setTimeout(() => this.socket.destroy(), DISCARD_MS).unref();
  }

  /** Starts queued lines while slots are free, then decides whether to read on. */
  private pump(): void {
    while (!this.draining && this.queue.length > 0 && this.slots.available > 0) {
      this.start(this.queue.shift()!);
    }
    if (this.closed || this.draining) {
      this.settle();
      return;
    }
    if (this.writeBlocked || this.queue.length > 0 || this.slots.available === 0) this.socket.pause();
    else this.socket.resume();
    this.settle();
  }

  private start(line: string): void {
    if (line.trim() === '') return;
    this.active++;
    this.dispatcher
      .handleLine(line, (task) => this.inSlot(task))
      .then(
        (response) => this.write(response),
        (err: unknown) => this.log.error('unexpected dispatch failure', { conn: this.id, err }),
      )
      .finally(() => {
        this.active--;
        this.pump();
      });
  }

  private async inSlot<T>(task: () => Promise<T>): Promise<T> {
    await this.slots.acquire();
    try {
      return await task();
    } finally {
      this.slots.release();
    }
  }

  private write(response: string | undefined): void {
    if (response === undefined || this.closed || this.socket.destroyed || !this.socket.writable) return;
    if (!this.socket.write(response + '\n')) this.writeBlocked = true;
  }

  /** Ends our side once the peer has ended and everything is answered; wakes drain(). */
  private settle(): void {
    if (this.active > 0 || (this.queue.length > 0 && !this.closed)) return;
    if (this.inputEnded && !this.closed && !this.socket.writableEnded) this.socket.end();
    for (const resolve of this.idle.splice(0)) resolve();
  }
}
