/**
 * The one quantiser of vectors (ADR 0034): each component as an int8 of
 * one scale, the largest magnitude ±127. Search scans int8s
 * (embed/vector-index.ts); LevelDB keeps them so (store/level/vectors.ts).
 * Writes the int8s into `into` and answers the scale (each component is
 * about int8 × scale), 0 for a zero vector.
 */
export function quantizeInt8(vector: ArrayLike<number>, into: Int8Array): number {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!));
  into.fill(0);
  if (max === 0) return 0;
  const scale = max / 127;
  for (let i = 0; i < vector.length; i++) into[i] = Math.round(vector[i]! / scale);
  return scale;
}
