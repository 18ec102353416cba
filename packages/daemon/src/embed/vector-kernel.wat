;; The vector scan's kernel (docs/embeddings.md, "Vector search"): the
;; dot products of one int8 query with every int8 row of an agent's
;; vectors, 16 dimensions an instruction through WebAssembly's 128-bit
;; SIMD. Compiled by scripts/build-vector-kernel.mjs into
;; vector-kernel-wasm.ts; a test checks the two agree.
(module
  (memory (export "memory") 1)
  ;; out[r] = dot(q, rows[r]) (i32) for r < n; every vector is `dims`
  ;; bytes, dims a multiple of 16, and the rows follow one another.
  (func (export "dotI8") (param $q i32) (param $rows i32) (param $n i32) (param $dims i32) (param $out i32)
    (local $r i32) (local $p i32) (local $i i32) (local $acc v128) (local $a v128) (local $b v128)
    (local.set $p (local.get $rows))
    (block $done (loop $row
      (br_if $done (i32.ge_u (local.get $r) (local.get $n)))
      (local.set $acc (v128.const i32x4 0 0 0 0))
      (local.set $i (i32.const 0))
      (block $end (loop $col
        (br_if $end (i32.ge_u (local.get $i) (local.get $dims)))
        (local.set $a (v128.load (i32.add (local.get $q) (local.get $i))))
        (local.set $b (v128.load (i32.add (local.get $p) (local.get $i))))
        (local.set $acc (i32x4.add (local.get $acc)
          (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (i16x8.extend_low_i8x16_s (local.get $b)))))
        (local.set $acc (i32x4.add (local.get $acc)
          (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (i16x8.extend_high_i8x16_s (local.get $b)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $col)))
      (i32.store (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
        (i32.add (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
                 (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
      (local.set $p (i32.add (local.get $p) (local.get $dims)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $row)))
  )
)
