;; The payload generator's inner loop (payload.ts says what the bytes are; payload-kernel.ts loads this).
;; Built with `npm run build:wasm` (wabt's wat2wasm) into payload-kernel.wasm, which is committed; a test
;; rebuilds it and fails on any difference.
(module
  ;; Each slab of chunk buffers is its own memory: growing one would detach the buffers the sockets hold.
  (import "env" "memory" (memory 1))

  ;; MurmurHash3's 64-bit finalizer: a bijection that spreads every input bit over all output bits.
  (func $mix (param $x i64) (result i64)
    (local.set $x (i64.xor (local.get $x) (i64.shr_u (local.get $x) (i64.const 33))))
    (local.set $x (i64.mul (local.get $x) (i64.const 0xff51afd7ed558ccd)))
    (local.set $x (i64.xor (local.get $x) (i64.shr_u (local.get $x) (i64.const 33))))
    (local.set $x (i64.mul (local.get $x) (i64.const 0xc4ceb9fe1a85ec53)))
    (i64.xor (local.get $x) (i64.shr_u (local.get $x) (i64.const 33))))

  (func $u64 (param $low i32) (param $high i32) (result i64)
    (i64.or
      (i64.shl (i64.extend_i32_u (local.get $high)) (i64.const 32))
      (i64.extend_i32_u (local.get $low))))

  ;; Writes the object's 4 KiB blocks first … first + count - 1 at dst: block b is the table's block
  ;; (b + id1) mod 16 (the table: 64 KiB at address 0) XOR the block's key, 16 bytes repeated:
  ;; k0 = mix(id0 XOR b * 0x9e3779b97f4a7c15), k1 = mix(k0 XOR id1), k0 then k1 little-endian.
  (func (export "blocks")
    (param $dst i32) (param $count i32)
    (param $firstLow i32) (param $firstHigh i32)
    (param $id0Low i32) (param $id0High i32) (param $id1Low i32) (param $id1High i32)
    (local $block i64) (local $end i64) (local $id0 i64) (local $id1 i64) (local $k0 i64)
    (local $key v128) (local $src i32) (local $stop i32)
    (if (i32.eqz (local.get $count)) (then (return)))
    (local.set $block (call $u64 (local.get $firstLow) (local.get $firstHigh)))
    (local.set $end (i64.add (local.get $block) (i64.extend_i32_u (local.get $count))))
    (local.set $id0 (call $u64 (local.get $id0Low) (local.get $id0High)))
    (local.set $id1 (call $u64 (local.get $id1Low) (local.get $id1High)))
    (loop $blocks
      (local.set $k0
        (call $mix (i64.xor (local.get $id0) (i64.mul (local.get $block) (i64.const 0x9e3779b97f4a7c15)))))
      (local.set $key
        (i64x2.replace_lane 1
          (i64x2.splat (local.get $k0))
          (call $mix (i64.xor (local.get $k0) (local.get $id1)))))
      (local.set $src
        (i32.shl
          (i32.and (i32.add (i32.wrap_i64 (local.get $block)) (local.get $id1Low)) (i32.const 15))
          (i32.const 12)))
      (local.set $stop (i32.add (local.get $dst) (i32.const 4096)))
      (loop $lines
        (v128.store offset=0 (local.get $dst)
          (v128.xor (v128.load offset=0 (local.get $src)) (local.get $key)))
        (v128.store offset=16 (local.get $dst)
          (v128.xor (v128.load offset=16 (local.get $src)) (local.get $key)))
        (v128.store offset=32 (local.get $dst)
          (v128.xor (v128.load offset=32 (local.get $src)) (local.get $key)))
        (v128.store offset=48 (local.get $dst)
          (v128.xor (v128.load offset=48 (local.get $src)) (local.get $key)))
        (local.set $src (i32.add (local.get $src) (i32.const 64)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 64)))
        (br_if $lines (i32.lt_u (local.get $dst) (local.get $stop))))
      (local.set $block (i64.add (local.get $block) (i64.const 1)))
      (br_if $blocks (i64.lt_u (local.get $block) (local.get $end))))))
