/**
 * Where `bin/memoryd.js` leaves the read it starts of the newest index
 * image, before the daemon's bundle loads: `{ path, bytes }`, bytes on the
 * way (undefined if they could not be read). A process-wide symbol,
 * because the bin is plain CommonJS that runs before any of the daemon's
 * modules exist. See {@link takeImageReadAhead}.
 */
export const IMAGE_READ_AHEAD = Symbol.for('memoryd.imageReadAhead');

/** A read of an image file begun before the store opened. */
export interface ImageReadAhead {
  path: string;
  bytes: Promise<Buffer | undefined>;
}

/**
 * The read the bin began, if any; taken once. The bin reads while the
 * bundle loads and the store opens (some 250 ms here before the store's
 * own read ahead would start), so a restart's first search finds the
 * image's bytes there. Whatever it read is checked as any image is.
 */
export function takeImageReadAhead(): ImageReadAhead | undefined {
  const holder = process as unknown as Record<symbol, ImageReadAhead | undefined>;
  const ahead = holder[IMAGE_READ_AHEAD];
  delete holder[IMAGE_READ_AHEAD];
  return ahead !== undefined && typeof ahead.path === 'string' && ahead.bytes instanceof Promise ? ahead : undefined;
}
