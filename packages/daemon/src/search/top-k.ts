/** A hit by ordinal. */
export interface OrdinalHit {
  ord: number;
  score: number;
}

/** What the search needs of the facts. */
export interface FactView {
  lengths: Uint32Array;
  /** Whether ordinals follow id order (a lower ordinal is an older fact). */
  ordered: boolean;
  /** Whether fact `a` is older (has the lower id) than fact `b`. */
  older(a: number, b: number): boolean;
}

/**
 * The k best facts of one search so far, in a min-heap (the worst held at
 * the root), typed arrays kept between searches so that offering a fact
 * allocates nothing. Ranked by score, ties newest (highest id) first.
 */
export class TopK {
  #ords = new Uint32Array(0);
  #scores = new Float64Array(0);
  #k = 0;
  #facts: FactView = { lengths: new Uint32Array(0), ordered: true, older: () => false };
  /** Facts held. */
  held = 0;
  /** The k-th score once k facts are held (-Infinity until then): what a fact must beat to enter. */
  threshold = -Infinity;

  /** Empties the heap for a search of the `k` best of `facts`. */
  begin(k: number, facts: FactView): void {
    if (this.#ords.length < k) {
      this.#ords = new Uint32Array(k);
      this.#scores = new Float64Array(k);
    }
    this.#k = k;
    this.#facts = facts;
    this.held = 0;
    this.threshold = -Infinity;
  }

  /** Whether k facts are held (the threshold is set). */
  get full(): boolean {
    return this.held >= this.#k;
  }

  /**
   * Whether a fact whose score is at most `bound` cannot enter: k facts are
   * held and it is below the threshold, or equal to it where ordinals
   * follow ids (facts are met newest first, so a later one loses a tie).
   */
  prunable(bound: number): boolean {
    return this.held >= this.#k && (bound < this.threshold || (bound === this.threshold && this.#facts.ordered));
  }

  /** Whether fact `a` scoring `sa` ranks below fact `b` scoring `sb`. */
  #worse(a: number, sa: number, b: number, sb: number): boolean {
    return sa !== sb ? sa < sb : this.#facts.older(a, b);
  }

  /** Offers a fact: it enters when fewer than k are held, or when it ranks above the worst held. */
  offer(ord: number, score: number): void {
    const ords = this.#ords;
    const scores = this.#scores;
    if (this.held < this.#k) {
      ords[this.held] = ord;
      scores[this.held] = score;
      for (let at = this.held++; at > 0; ) {
        const up = (at - 1) >> 1;
        if (!this.#worse(ords[at]!, scores[at]!, ords[up]!, scores[up]!)) break;
        this.#swap(up, at);
        at = up;
      }
    } else if (this.#worse(ords[0]!, scores[0]!, ord, score)) {
      ords[0] = ord;
      scores[0] = score;
      this.#siftDown();
    } else return;
    if (this.held >= this.#k) this.threshold = scores[0]!;
  }

  #siftDown(): void {
    const ords = this.#ords;
    const scores = this.#scores;
    for (let at = 0; ; ) {
      const l = 2 * at + 1;
      if (l >= this.held) return;
      const r = l + 1;
      const c = r < this.held && this.#worse(ords[r]!, scores[r]!, ords[l]!, scores[l]!) ? r : l;
      if (!this.#worse(ords[c]!, scores[c]!, ords[at]!, scores[at]!)) return;
      this.#swap(c, at);
      at = c;
    }
  }

  #swap(i: number, j: number): void {
    const ord = this.#ords[i]!;
    this.#ords[i] = this.#ords[j]!;
    this.#ords[j] = ord;
    const score = this.#scores[i]!;
    this.#scores[i] = this.#scores[j]!;
    this.#scores[j] = score;
  }

  /** The facts held, best first. */
  ranked(): OrdinalHit[] {
    const hits: OrdinalHit[] = [];
    for (let i = 0; i < this.held; i++) hits.push({ ord: this.#ords[i]!, score: this.#scores[i]! });
    const worse = (a: OrdinalHit, b: OrdinalHit) => this.#worse(a.ord, a.score, b.ord, b.score);
    return hits.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
  }
}
