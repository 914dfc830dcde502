/**
 * The sizes every section of `npm run bench` uses. `--quick` (or BENCH_QUICK=1) scales them down to check
 * that the harness works; its numbers are not the benchmark.
 */
export const MiB = 2 ** 20;
export const GiB = 2 ** 30;

const quick = process.argv.includes("--quick") || process.env.BENCH_QUICK === "1";

export const config = {
  quick,
  /** Rounds of every comparison (engine and reference interleaved); medians are reported. */
  rounds: quick ? 1 : 3,
  /**
   * Counts chosen so a repetition lasts about a second or more: 1000 × 4 KiB objects took 0.3 s, 32 × 1 MiB
   * IPFS cats 0.06 s — windows that short measured ramp-up and process exit more than the store (the
   * compiled script's figures then differed from run's by 23–33 % from one round to the next).
   */
  s3: {
    large: { size: 64 * MiB, objects: quick ? 8 : 16, concurrency: 8 },
    small: { size: 4096, objects: quick ? 400 : 5000, concurrency: 32 },
  },
  /**
   * The engine against warp (warp.ts): the same size, objects in flight and seconds per op on both sides.
   * 5 s: warp reports the seconds between its first and last full second, and wants three of them.
   */
  warp: {
    // 7: a client-CPU ratio moves by up to 20 % from one 5 s round to the next on this VM.
    rounds: quick ? 1 : 7,
    /**
     * The first rounds also run both sides against the null S3 server (null-s3.ts), for each client's
     * ceiling on this machine: fewer, as its figures only frame the others.
     */
    nullRounds: quick ? 1 : 3,
    seconds: 5,
    // More objects than the engine writes in the window here (~1 GB/s of 64 MiB, ~4,000 4 KiB PUTs a second
    // on this VM, with room above): warp's PUTs are all new keys, and a second pass over the same keys would
    // be overwrites, which cost MinIO more (the old version's data goes to its trash and is deleted). Not
    // many more: they sit on tmpfs, in RAM, and the get case uploads them all before its window.
    large: { size: 64 * MiB, objects: 112, concurrency: 8 },
    small: { size: 4096, objects: 32_000, concurrency: 16 },
    /**
     * Open loop: 4 KiB PUTs at a rate both sides keep on this VM (about a quarter of what they reach closed),
     * warp's --rps-limit against the engine's `rate`, 3 interleaved rounds.
     */
    openLoop: { rate: 1000, size: 4096, objects: 8000, concurrency: 16, rounds: quick ? 1 : 3 },
  },
  ipfs: {
    large: { size: 64 * MiB, objects: quick ? 2 : 4 },
    small: { size: 1 * MiB, objects: quick ? 8 : 256 },
  },
  fs: {
    /**
     * More rounds than the rest: a dd on tmpfs takes a fraction of a second, so other load shows more.
     * 256 MiB, not 1 GiB: on this VM, memory beyond a few GiB in use at once is first touched at ~200 MB/s
     * (host page faults), so with a 1 GiB source and target on tmpfs the side that holds more memory
     * measured the hypervisor (benchspec's dd 240 MB/s, the same dd by hand 1.6 GB/s; both 1.5 GB/s alone).
     */
    rounds: quick ? 1 : 5,
    dd: { bs: 1 * MiB, count: quick ? 64 : 256 },
    fio: { size: 64 * MiB, seconds: 1 },
  },
  memory: {
    /** The multipart upload whose peak RSS is measured: objects × size, parts of partSize, queue per object. */
    upload: { objects: quick ? 4 : 16, size: 256 * MiB, partSize: 8 * MiB, queue: 4, concurrency: 4 },
    /** Bytes the payload generator produces per measurement. */
    payloadBytes: quick ? 256 * MiB : 1 * GiB,
  },
  /** The compiled script against run on a mixed S3 load and a fio workload in rounds (script.ts). */
  script: {
    mixed: { size: 64 * 1024, objects: quick ? 400 : 4000, concurrency: 16 },
    rounds: { size: 64 * MiB, seconds: 1, max: quick ? 3 : 6 },
  },
  compile: { cases: 10_000 },
};
