// Latency and throughput figures of one bench cell, and the text table.

/**
 * The value at percentile `p` (0–100) of ascending `sorted`, by the
 * nearest-rank method: the smallest sample with at least p% of the samples
 * at or below it.
 * @param {Float64Array} sorted ascending
 * @param {number} p
 */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/**
 * Figures of a cell from its latency samples (nanoseconds) over a
 * measuring window of `windowMs`.
 * @param {number[]} samplesNs
 * @param {number} windowMs
 * @returns {{ops: number, throughput: number, p50Ms: number, p99Ms: number, maxMs: number}}
 */
export function summarize(samplesNs, windowMs) {
  const sorted = Float64Array.from(samplesNs).sort();
  return {
    ops: sorted.length,
    throughput: sorted.length / (windowMs / 1000),
    p50Ms: percentile(sorted, 50) / 1e6,
    p99Ms: percentile(sorted, 99) / 1e6,
    maxMs: sorted.length === 0 ? NaN : sorted[sorted.length - 1] / 1e6,
  };
}

/**
 * Renders rows as an aligned text table; numbers are right-aligned.
 * @param {string[]} header
 * @param {Array<Array<string|number>>} rows
 */
export function formatTable(header, rows) {
  const cells = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  const numeric = header.map((_, i) => rows.every((row) => typeof row[i] === 'number' || /^[\d.,x-]+$/.test(String(row[i]))));
  const line = (row) => row.map((cell, i) => (numeric[i] ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(cells[0]), rule, ...cells.slice(1).map(line)].join('\n');
}
