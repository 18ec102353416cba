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
  ;; Copies the bytes of settle's part `p` (a block) into memory, returning
  ;; where they are: settle asks when a probe first needs the block.
  (import "host" "stage" (func $stage (param i32) (result i32)))
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

  ;; part(table, weight, f, length): weight × saturation(f, length, avg),
  ;; looked up in (and filled into) the table at `table` (-1: none) when
  ;; the pair fits it, as part-table.ts's part and read's inline copy do.
  (func $part (param $table i32) (param $weight f64) (param $f i32) (param $len i32) (param $avg f64) (result f64)
    (local $at i32)
    (local $v f64)
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
            (f64.store (local.get $at) (local.get $v))))
        (return (local.get $v))))
    (f64.mul (local.get $weight)
      (call $saturation (f64.convert_i32_u (local.get $f)) (f64.convert_i32_u (local.get $len)) (local.get $avg))))

  ;; Decodes the `count` postings of the block whose bytes are at `src`,
  ;; its first ordinal `o` past the window's base: offsets (i32, oldest
  ;; first) at `docs`, frequencies at `docs` + 512.
  (func $decode (export "decode") (param $src i32) (param $count i32) (param $o i32) (param $docs i32)
    (local $x i32)
    (local $byte i32)
    (local $shift i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $count)))
        (local.set $count (i32.sub (local.get $count) (i32.const 1)))
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
        (i32.store (local.get $docs) (local.get $o))
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
        (i32.store offset=512 (local.get $docs) (local.get $x))
        (local.set $docs (i32.add (local.get $docs) (i32.const 4)))
        (br $next))))

  ;; The frequency of list `list`'s posting at window offset `at` (0:
  ;; none), where `at` falls from one call to the next within a window.
  ;; A list (32 bytes): its first part (an index into the parts at
  ;; `parts`), its count of parts, the part it is at, the part decoded
  ;; into its buffer (-1: none) and the buffer (offsets, then frequencies
  ;; at + 512). A part (20 bytes), newest first: its first and last
  ;; offsets, its count of postings, where its bytes are (-1: not copied
  ;; in yet; the host's stage copies them), and whether they are decoded
  ;; already (a tail: offsets there, frequencies at + 512).
  (func $probe (param $list i32) (param $at i32) (param $parts i32) (result i32)
    (local $n i32)
    (local $c i32)
    (local $part i32)
    (local $docs i32)
    (local $lo i32)
    (local $hi i32)
    (local $mid i32)
    (local $v i32)
    (local.set $n (i32.load offset=4 (local.get $list)))
    (local.set $c (i32.load offset=8 (local.get $list)))
    ;; Past the parts wholly above `at`: the first whose first offset is `at` or below.
    (block $found
      (loop $walk
        (br_if $found (i32.ge_s (local.get $c) (local.get $n)))
        (local.set $part
          (i32.add (local.get $parts) (i32.mul (i32.add (i32.load (local.get $list)) (local.get $c)) (i32.const 20))))
        (br_if $found (i32.le_s (i32.load (local.get $part)) (local.get $at)))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $walk)))
    (i32.store offset=8 (local.get $list) (local.get $c))
    (if (i32.ge_s (local.get $c) (local.get $n)) (then (return (i32.const 0))))
    (if (i32.lt_s (i32.load offset=4 (local.get $part)) (local.get $at)) (then (return (i32.const 0))))
    (if (i32.load offset=16 (local.get $part))
      (then (local.set $docs (i32.load offset=12 (local.get $part))))
      (else
        (local.set $docs (i32.load offset=24 (local.get $list)))
        (if (i32.ne (i32.load offset=12 (local.get $list)) (local.get $c))
          (then
            ;; Its bytes, copied in at its first probe.
            (if (i32.lt_s (i32.load offset=12 (local.get $part)) (i32.const 0))
              (then
                (i32.store offset=12 (local.get $part)
                  (call $stage (i32.add (i32.load (local.get $list)) (local.get $c))))))
            (call $decode
              (i32.load offset=12 (local.get $part))
              (i32.load offset=8 (local.get $part))
              (i32.load (local.get $part))
              (local.get $docs))
            (i32.store offset=12 (local.get $list) (local.get $c))))))
    ;; Offsets ascending: a binary search.
    (local.set $lo (i32.const 0))
    (local.set $hi (i32.sub (i32.load offset=8 (local.get $part)) (i32.const 1)))
    (block $none
      (loop $search
        (br_if $none (i32.gt_s (local.get $lo) (local.get $hi)))
        (local.set $mid (i32.shr_u (i32.add (local.get $lo) (local.get $hi)) (i32.const 1)))
        (local.set $v (i32.load (i32.add (local.get $docs) (i32.shl (local.get $mid) (i32.const 2)))))
        (if (i32.eq (local.get $v) (local.get $at))
          (then (return (i32.load offset=512 (i32.add (local.get $docs) (i32.shl (local.get $mid) (i32.const 2)))))))
        (if (i32.lt_s (local.get $v) (local.get $at))
          (then (local.set $lo (i32.add (local.get $mid) (i32.const 1))))
          (else (local.set $hi (i32.sub (local.get $mid) (i32.const 1)))))
        (br $search)))
    (i32.const 0))

  ;; What a fact can still score at most, in slot order (max-score.ts's
  ;; boundNow): its part where known (nothing where known absent), the
  ;; slot's window bound where not. Slots (32 bytes): window bound (f64),
  ;; weight (f64), table (-1: none), kind, first list, lists. State:
  ;; known (i32 per slot), present (i32 per slot, at + 64), part (f64
  ;; per slot, at + 128).
  (func $bound (param $n i32) (param $slots i32) (param $state i32) (result f64)
    (local $b f64)
    (local $s i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $s) (local.get $n)))
        (if (i32.load (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 2))))
          (then
            (if (i32.load offset=64 (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 2))))
              (then
                (local.set $b
                  (f64.add (local.get $b) (f64.load offset=128 (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 3)))))))))
          (else
            (local.set $b (f64.add (local.get $b) (f64.load (i32.add (local.get $slots) (i32.shl (local.get $s) (i32.const 5))))))))
        (local.set $s (i32.add (local.get $s) (i32.const 1)))
        (br $next)))
    (local.get $b))

  ;; Settles the survivors `from` to `ns` - 1 of a window read for its one
  ;; essential slot `lone` (-1: none; else the survivors' parts in it at
  ;; `survivorParts`), or its candidates (max-score.ts's settle, for each
  ;; in turn): the
  ;; other slots probed, strongest first (`order`, i32 per slot, weakest
  ;; first), while the fact can still enter; `full` says k facts are held,
  ;; `threshold` is the k-th score, and with `ordered` a bound equal to
  ;; it prunes too. Kinds of slot: 0, known absent (or the lone slot);
  ;; 1, probed in its lists; 2, the prefix's best parts read whole into
  ;; `best` by offset; 3, read whole, its frequencies by offset (u32) at
  ;; the address in the slot's first-list field, known from the start. Returns the first survivor to offer (its score,
  ;; scoreDoc's sum, at `result`), or `ns` when none is left.
  (func (export "settle")
    (param $from i32) (param $ns i32) (param $n i32) (param $lone i32) (param $own i32) (param $prefix i32)
    (param $full i32) (param $threshold f64) (param $ordered i32) (param $avg f64)
    (param $survivors i32) (param $survivorParts i32) (param $best i32) (param $lengths i32)
    (param $slots i32) (param $order i32) (param $lists i32) (param $parts i32) (param $state i32) (param $result i32)
    (result i32)
    (local $i i32)
    (local $at i32)
    (local $len i32)
    (local $j i32)
    (local $s i32)
    (local $slot i32)
    (local $kind i32)
    (local $f i32)
    (local $g i32)
    (local $l i32)
    (local $end i32)
    (local $v f64)
    (local $b f64)
    (local $score f64)
    (local.set $i (local.get $from))
    (block $all
      (loop $survivor
        (br_if $all (i32.ge_s (local.get $i) (local.get $ns)))
        (block $pruned
          (local.set $at (i32.load (i32.add (local.get $survivors) (i32.shl (local.get $i) (i32.const 2)))))
          (local.set $len (i32.load (i32.add (local.get $lengths) (i32.shl (local.get $at) (i32.const 2)))))
          ;; Unknown, but for the slots read whole (kind 3: their
          ;; frequencies by offset) and the lone slot (its part given).
          (local.set $s (i32.const 0))
          (block $cleared
            (loop $clear
              (br_if $cleared (i32.ge_u (local.get $s) (local.get $n)))
              (local.set $slot (i32.add (local.get $slots) (i32.shl (local.get $s) (i32.const 5))))
              (if (i32.eq (i32.load offset=20 (local.get $slot)) (i32.const 3))
                (then
                  (local.set $f (i32.load (i32.add (i32.load offset=24 (local.get $slot)) (i32.shl (local.get $at) (i32.const 2)))))
                  (i32.store (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 2))) (i32.const 1))
                  (i32.store offset=64 (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 2))) (i32.ne (local.get $f) (i32.const 0)))
                  (if (local.get $f)
                    (then
                      (f64.store offset=128 (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 3)))
                        (call $part
                          (i32.load offset=16 (local.get $slot))
                          (f64.load offset=8 (local.get $slot))
                          (local.get $f)
                          (local.get $len)
                          (local.get $avg))))))
                (else (i32.store (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 2))) (i32.const 0))))
              (local.set $s (i32.add (local.get $s) (i32.const 1)))
              (br $clear)))
          (if (i32.ge_s (local.get $lone) (i32.const 0))
            (then
              (i32.store (i32.add (local.get $state) (i32.shl (local.get $lone) (i32.const 2))) (i32.const 1))
              (i32.store offset=64 (i32.add (local.get $state) (i32.shl (local.get $lone) (i32.const 2))) (i32.const 1))
              (f64.store offset=128 (i32.add (local.get $state) (i32.shl (local.get $lone) (i32.const 3)))
                (f64.load (i32.add (local.get $survivorParts) (i32.shl (local.get $i) (i32.const 3)))))))
          (local.set $j (local.get $n))
          (block $probed
            (loop $slotLoop
              (br_if $probed (i32.eqz (local.get $j)))
              (local.set $j (i32.sub (local.get $j) (i32.const 1)))
              (local.set $s (i32.load (i32.add (local.get $order) (i32.shl (local.get $j) (i32.const 2)))))
              (br_if $slotLoop (i32.load (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 2)))))
              ;; prunable(boundNow())
              (local.set $b (call $bound (local.get $n) (local.get $slots) (local.get $state)))
              (br_if $pruned
                (i32.and (local.get $full)
                  (i32.or (f64.lt (local.get $b) (local.get $threshold))
                    (i32.and (f64.eq (local.get $b) (local.get $threshold)) (local.get $ordered)))))
              (i32.store (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 2))) (i32.const 1))
              (local.set $slot (i32.add (local.get $slots) (i32.shl (local.get $s) (i32.const 5))))
              (local.set $kind (i32.load offset=20 (local.get $slot)))
              (if (i32.eq (local.get $kind) (i32.const 2))
                (then
                  (local.set $v (f64.load (i32.add (local.get $best) (i32.shl (local.get $at) (i32.const 3)))))
                  (i32.store offset=64 (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 2))) (f64.gt (local.get $v) (f64.const 0)))
                  (f64.store offset=128 (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 3))) (local.get $v))
                  (br $slotLoop)))
              (local.set $f (i32.const 0))
              (if (i32.eq (local.get $kind) (i32.const 1))
                (then
                  (local.set $l (i32.load offset=24 (local.get $slot)))
                  (local.set $end (i32.add (local.get $l) (i32.load offset=28 (local.get $slot))))
                  (block $listsDone
                    (loop $listLoop
                      (br_if $listsDone (i32.ge_u (local.get $l) (local.get $end)))
                      (local.set $g
                        (call $probe (i32.add (local.get $lists) (i32.shl (local.get $l) (i32.const 5))) (local.get $at) (local.get $parts)))
                      (if (i32.gt_u (local.get $g) (local.get $f)) (then (local.set $f (local.get $g))))
                      (local.set $l (i32.add (local.get $l) (i32.const 1)))
                      (br $listLoop)))))
              (i32.store offset=64 (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 2))) (i32.ne (local.get $f) (i32.const 0)))
              (if (local.get $f)
                (then
                  (f64.store offset=128 (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 3)))
                    (call $part
                      (i32.load offset=16 (local.get $slot))
                      (f64.load offset=8 (local.get $slot))
                      (local.get $f)
                      (local.get $len)
                      (local.get $avg)))))
              (br $slotLoop)))
          (local.set $b (call $bound (local.get $n) (local.get $slots) (local.get $state)))
          (br_if $pruned
            (i32.and (local.get $full)
              (i32.or (f64.lt (local.get $b) (local.get $threshold))
                (i32.and (f64.eq (local.get $b) (local.get $threshold)) (local.get $ordered)))))
          ;; scoreDoc's sum: the terms in slot order, then the prefix unless the fact holds its own word.
          (local.set $score (f64.const 0))
          (local.set $s (i32.const 0))
          (block $summed
            (loop $sum
              (br_if $summed (i32.ge_u (local.get $s) (local.get $n)))
              (if (i32.and
                    (i32.ne (local.get $s) (local.get $prefix))
                    (i32.load offset=64 (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 2)))))
                (then
                  (local.set $score
                    (f64.add (local.get $score) (f64.load offset=128 (i32.add (local.get $state) (i32.shl (local.get $s) (i32.const 3))))))))
              (local.set $s (i32.add (local.get $s) (i32.const 1)))
              (br $sum)))
          (if (i32.ge_s (local.get $prefix) (i32.const 0))
            (then
              (if (i32.load offset=64 (i32.add (local.get $state) (i32.shl (local.get $prefix) (i32.const 2))))
                (then
                  (if (i32.eqz
                        (i32.and (i32.ge_s (local.get $own) (i32.const 0))
                          (i32.ne (i32.load offset=64 (i32.add (local.get $state) (i32.shl (local.get $own) (i32.const 2)))) (i32.const 0))))
                    (then
                      (local.set $score
                        (f64.add (local.get $score) (f64.load offset=128 (i32.add (local.get $state) (i32.shl (local.get $prefix) (i32.const 3))))))))))))
          (if (f64.gt (local.get $score) (f64.const 0))
            (then
              (f64.store (local.get $result) (local.get $score))
              (return (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $survivor)))
    (local.get $ns))

  ;; Adds the prefix's best parts (read's mode 3) to the sums, the prefix
  ;; being the last slot: for each of the `count` offsets at `offsets`,
  ;; the part at `best` + 8 × offset is added to the sum at `scores` + 8 ×
  ;; offset, unless the fact holds the prefix's own word (a nonzero
  ;; frequency at `own` + 4 × offset; `own` -1: no such word), and set back
  ;; to 0; the offset is listed at `candidates` + 4 × n (its byte at
  ;; `listed` set) when not listed yet and its sum is `bar` or more.
  ;; Returns the new n.
  (func (export "addBest")
    (param $offsets i32) (param $count i32) (param $best i32) (param $scores i32) (param $own i32)
    (param $listed i32) (param $candidates i32) (param $n i32) (param $bar f64)
    (result i32)
    (local $o i32)
    (local $at i32)
    (local $sum f64)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $count)))
        (local.set $count (i32.sub (local.get $count) (i32.const 1)))
        (local.set $o (i32.load (local.get $offsets)))
        (local.set $offsets (i32.add (local.get $offsets) (i32.const 4)))
        (local.set $at (i32.add (local.get $scores) (i32.shl (local.get $o) (i32.const 3))))
        (local.set $sum (f64.load (local.get $at)))
        (if (if (result i32) (i32.eq (local.get $own) (i32.const -1))
              (then (i32.const 1))
              (else (i32.eqz (i32.load (i32.add (local.get $own) (i32.shl (local.get $o) (i32.const 2)))))))
          (then
            (local.set $sum (f64.add (local.get $sum) (f64.load (i32.add (local.get $best) (i32.shl (local.get $o) (i32.const 3))))))
            (f64.store (local.get $at) (local.get $sum))))
        (f64.store (i32.add (local.get $best) (i32.shl (local.get $o) (i32.const 3))) (f64.const 0))
        (if (i32.and
              (i32.eqz (i32.load8_u (i32.add (local.get $listed) (local.get $o))))
              (f64.ge (local.get $sum) (local.get $bar)))
          (then
            (i32.store8 (i32.add (local.get $listed) (local.get $o)) (i32.const 1))
            (i32.store (i32.add (local.get $candidates) (i32.shl (local.get $n) (i32.const 2))) (local.get $o))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))))
        (br $next)))
    (local.get $n))

  ;; What read does with one posting's part `v` at offset `o`, in its
  ;; modes (0 to 3, see read); returns the new n.
  (func $take
    (param $mode i32) (param $o i32) (param $v f64) (param $n i32) (param $floor f64)
    (param $scores i32) (param $listed i32) (param $offsets i32) (param $parts i32)
    (result i32)
    (local $at i32)
    (local $was f64)
    (if (i32.eq (local.get $mode) (i32.const 2))
      (then
        (if (f64.gt (local.get $v) (local.get $floor))
          (then
            (i32.store (i32.add (local.get $offsets) (i32.shl (local.get $n) (i32.const 2))) (local.get $o))
            (f64.store (i32.add (local.get $parts) (i32.shl (local.get $n) (i32.const 3))) (local.get $v))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))))
        (return (local.get $n))))
    (local.set $at (i32.add (local.get $scores) (i32.shl (local.get $o) (i32.const 3))))
    (local.set $was (f64.load (local.get $at)))
    (if (i32.eq (local.get $mode) (i32.const 3))
      (then
        (if (f64.eq (local.get $was) (f64.const 0))
          (then
            (i32.store (i32.add (local.get $offsets) (i32.shl (local.get $n) (i32.const 2))) (local.get $o))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))))
        (if (f64.gt (local.get $v) (local.get $was))
          (then (f64.store (local.get $at) (local.get $v))))
        (return (local.get $n))))
    (local.set $v (f64.add (local.get $was) (local.get $v)))
    (f64.store (local.get $at) (local.get $v))
    (if (i32.and (i32.eq (local.get $mode) (i32.const 1)) (f64.ge (local.get $v) (local.get $floor)))
      (then
        (if (i32.eqz (i32.load8_u (i32.add (local.get $listed) (local.get $o))))
          (then
            (i32.store8 (i32.add (local.get $listed) (local.get $o)) (i32.const 1))
            (i32.store (i32.add (local.get $offsets) (i32.shl (local.get $n) (i32.const 2))) (local.get $o))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))))))
    (local.get $n))

  ;; Reads the decoded postings at `docs` (`count` ordinals, ascending;
  ;; frequencies at `docs` + 512) that lie in the window [base, hi] and
  ;; are alive, newest first, each scored and taken as read takes a
  ;; block's (its modes; `alive` and `lengths` by window offset): a block
  ;; wider than the window, decoded once for all the windows it spans, or
  ;; a list's tail. Returns the new n.
  (func (export "scan")
    (param $docs i32) (param $count i32) (param $base i32) (param $hi i32)
    (param $table i32) (param $weight f64) (param $avg f64)
    (param $mode i32) (param $n i32) (param $floor f64)
    (param $scores i32) (param $listed i32) (param $offsets i32) (param $parts i32)
    (param $alive i32) (param $lengths i32)
    (result i32)
    (local $i i32)
    (local $ord i32)
    (local $o i32)
    (local.set $i (local.get $count))
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $i)))
        (local.set $i (i32.sub (local.get $i) (i32.const 1)))
        (local.set $ord (i32.load (i32.add (local.get $docs) (i32.shl (local.get $i) (i32.const 2)))))
        (br_if $next (i32.gt_u (local.get $ord) (local.get $hi)))
        (br_if $done (i32.lt_u (local.get $ord) (local.get $base)))
        (local.set $o (i32.sub (local.get $ord) (local.get $base)))
        (br_if $next (i32.eqz (i32.load8_u (i32.add (local.get $alive) (local.get $o)))))
        (local.set $n
          (call $take
            (local.get $mode)
            (local.get $o)
            (call $part
              (local.get $table)
              (local.get $weight)
              (i32.load offset=512 (i32.add (local.get $docs) (i32.shl (local.get $i) (i32.const 2))))
              (i32.load (i32.add (local.get $lengths) (i32.shl (local.get $o) (i32.const 2))))
              (local.get $avg))
            (local.get $n)
            (local.get $floor)
            (local.get $scores)
            (local.get $listed)
            (local.get $offsets)
            (local.get $parts)))
        (br $next)))
    (local.get $n))
)
