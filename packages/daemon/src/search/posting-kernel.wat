;; The posting kernel (posting-kernel.ts): decodes one sealed block of a
;; posting list (posting-blocks.ts: varint gaps and frequencies) and scores
;; each live posting, as WindowReader.read does in JavaScript, with the
;; very IEEE operations of bm25.ts's saturation in the same order, so its
;; doubles are the same bit for bit. Compiled by scripts/build-wasm.mjs
;; into posting-kernel-wasm.ts; a test checks the two agree.
(module
  ;; The BM25 model, set from bm25.ts and part-table.ts at instantiation.
  (import "model" "k1p1" (global $k1p1 f64))
  (import "model" "k1" (global $k1 f64))
  (import "model" "omb" (global $omb f64))
  (import "model" "b" (global $b f64))
  (import "model" "tableF" (global $tableF i32))
  (import "model" "tableLength" (global $tableLength i32))
  (memory (export "memory") 2)

  ;; saturation(f, length, avg) = (f × (K1 + 1)) / (f + K1 × ((1 - B) + (B × length) / avg))
  (func $saturation (param $f f64) (param $len f64) (param $avg f64) (result f64)
    (f64.div
      (f64.mul (local.get $f) (global.get $k1p1))
      (f64.add
        (local.get $f)
        (f64.mul
          (global.get $k1)
          (f64.add (global.get $omb) (f64.div (f64.mul (global.get $b) (local.get $len)) (local.get $avg)))))))

  ;; Reads the `count` postings of the block whose bytes are at `src`, its
  ;; first ordinal `o` past the window's base (negative when below it),
  ;; those in the window (offsets 0 to `last`) that are alive (a byte per
  ;; offset at `alive`), each scored with its fact's length (a u32 per
  ;; offset at `lengths`):
  ;; - mode 0: adds each part to the f64 sum at `scores` + 8 × offset;
  ;; - mode 1: the same, and lists each offset whose sum is now `floor` or
  ;;   more and whose byte at `listed` is 0 (setting it), as a u32 at
  ;;   `offsets` + 4 × n, n counting up;
  ;; - mode 2: lists each posting whose part is above `floor`, its offset
  ;;   at `offsets` + 4 × n and its part at `parts` + 8 × n;
  ;; - mode 3: keeps the best part of each offset in the f64 at `scores` +
  ;;   8 × offset (0: none yet), listing the offset as a u32 at `offsets` +
  ;;   4 × n the first time it gets one (a prefix's completions, each
  ;;   fact scored by its best).
  ;; Returns the new n. Oldest first, as the block is stored.
  (func (export "read")
    (param $src i32) (param $count i32) (param $o i32) (param $last i32)
    (param $table i32) (param $weight f64) (param $avg f64)
    (param $mode i32) (param $n i32) (param $floor f64)
    (param $scores i32) (param $listed i32) (param $offsets i32) (param $parts i32)
    (param $alive i32) (param $lengths i32)
    (result i32)
    (local $x i32)
    (local $f i32)
    (local $byte i32)
    (local $shift i32)
    (local $v f64)
    (local $was f64)
    (local $at i32)
    (local $len i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $count)))
        (local.set $count (i32.sub (local.get $count) (i32.const 1)))
        ;; The gap.
        (local.set $x (i32.load8_u (local.get $src)))
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (if (i32.ge_u (local.get $x) (i32.const 0x80))
          (then
            (local.set $x (i32.and (local.get $x) (i32.const 0x7f)))
            (local.set $shift (i32.const 7))
            (loop $more
              (local.set $byte (i32.load8_u (local.get $src)))
              (local.set $src (i32.add (local.get $src) (i32.const 1)))
              (local.set $x (i32.or (local.get $x) (i32.shl (i32.and (local.get $byte) (i32.const 0x7f)) (local.get $shift))))
              (local.set $shift (i32.add (local.get $shift) (i32.const 7)))
              (br_if $more (i32.ge_u (local.get $byte) (i32.const 0x80))))))
        (local.set $o (i32.add (local.get $o) (local.get $x)))
        ;; The frequency.
        (local.set $f (i32.load8_u (local.get $src)))
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (if (i32.ge_u (local.get $f) (i32.const 0x80))
          (then
            (local.set $f (i32.and (local.get $f) (i32.const 0x7f)))
            (local.set $shift (i32.const 7))
            (loop $more
              (local.set $byte (i32.load8_u (local.get $src)))
              (local.set $src (i32.add (local.get $src) (i32.const 1)))
              (local.set $f (i32.or (local.get $f) (i32.shl (i32.and (local.get $byte) (i32.const 0x7f)) (local.get $shift))))
              (local.set $shift (i32.add (local.get $shift) (i32.const 7)))
              (br_if $more (i32.ge_u (local.get $byte) (i32.const 0x80))))))
        ;; Past the window, so are the rest; below it, read on.
        (br_if $done (i32.gt_s (local.get $o) (local.get $last)))
        (br_if $next (i32.lt_s (local.get $o) (i32.const 0)))
        (br_if $next (i32.eqz (i32.load8_u (i32.add (local.get $alive) (local.get $o)))))
        ;; Its part: $part, written out here (V8 does not inline it).
        (local.set $len (i32.load (i32.add (local.get $lengths) (i32.shl (local.get $o) (i32.const 2)))))
        (if (i32.and
              (i32.ne (local.get $table) (i32.const -1))
              (i32.and (i32.lt_u (local.get $f) (global.get $tableF)) (i32.lt_u (local.get $len) (global.get $tableLength))))
          (then
            (local.set $at
              (i32.add (local.get $table)
                (i32.shl (i32.add (i32.mul (local.get $f) (global.get $tableLength)) (local.get $len)) (i32.const 3))))
            (local.set $v (f64.load (local.get $at)))
            (if (f64.ne (local.get $v) (local.get $v))
              (then
                (local.set $v
                  (f64.mul (local.get $weight)
                    (call $saturation (f64.convert_i32_u (local.get $f)) (f64.convert_i32_u (local.get $len)) (local.get $avg))))
                (f64.store (local.get $at) (local.get $v)))))
          (else
            (local.set $v
              (f64.mul (local.get $weight)
                (call $saturation (f64.convert_i32_u (local.get $f)) (f64.convert_i32_u (local.get $len)) (local.get $avg))))))
        (if (i32.eq (local.get $mode) (i32.const 2))
          (then
            (if (f64.gt (local.get $v) (local.get $floor))
              (then
                (i32.store (i32.add (local.get $offsets) (i32.shl (local.get $n) (i32.const 2))) (local.get $o))
                (f64.store (i32.add (local.get $parts) (i32.shl (local.get $n) (i32.const 3))) (local.get $v))
                (local.set $n (i32.add (local.get $n) (i32.const 1))))))
          (else
            (local.set $at (i32.add (local.get $scores) (i32.shl (local.get $o) (i32.const 3))))
            (if (i32.eq (local.get $mode) (i32.const 3))
              (then
                (local.set $was (f64.load (local.get $at)))
                (if (f64.eq (local.get $was) (f64.const 0))
                  (then
                    (i32.store (i32.add (local.get $offsets) (i32.shl (local.get $n) (i32.const 2))) (local.get $o))
                    (local.set $n (i32.add (local.get $n) (i32.const 1)))))
                (if (f64.gt (local.get $v) (local.get $was))
                  (then (f64.store (local.get $at) (local.get $v))))
                (br $next)))
            (local.set $v (f64.add (f64.load (local.get $at)) (local.get $v)))
            (f64.store (local.get $at) (local.get $v))
            (if (i32.and (i32.eq (local.get $mode) (i32.const 1)) (f64.ge (local.get $v) (local.get $floor)))
              (then
                (if (i32.eqz (i32.load8_u (i32.add (local.get $listed) (local.get $o))))
                  (then
                    (i32.store8 (i32.add (local.get $listed) (local.get $o)) (i32.const 1))
                    (i32.store (i32.add (local.get $offsets) (i32.shl (local.get $n) (i32.const 2))) (local.get $o))
                    (local.set $n (i32.add (local.get $n) (i32.const 1)))))))))
        (br $next)))
    (local.get $n))
)
