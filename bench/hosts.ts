/**
 * Cases from several client hosts: the namespaced test hosts of scripts/hosts/hosts.sh (through
 * test/support/hosts.ts, which claims a free slot and tears it down again; needs root), reached over ssh by
 * `benchspec run` itself, rounds interleaved.
 *   (a) Coordination overhead per case: (wall time of `benchspec run` − the rows' measured seconds) ÷ cases,
 *       for the same short dd cases (one repetition each) on 1 host and on 3 hosts over ssh and on the same 3
 *       hosts as the nodes of a Slurm cluster (one `srun` places the workers), beside the same cases on this
 *       machine. What a group adds (ssh or srun, the workers' start, arming, clock readings, the start instant
 *       a few round trips ahead, merging) is the difference.
 *   (b) Aggregate throughput of one dd writer per host, 3 hosts against 1 (bytes of all hosts over the common
 *       window, the merged row's figure). INFO: the hosts are namespaces sharing this machine's two cores, so
 *       this shows the coordination scales, not what three real clients would deliver.
 */
import { stringify } from "yaml";
import { shQuote } from "../src/emit/writer.js";
import { startHosts, type Hosts } from "../test/support/hosts.js";
import { runBenchspec, type BenchspecRun } from "./benchspec.js";
import { config, MiB } from "./config.js";
import { failedLine, type BenchLine } from "./lines.js";
import { benchspecCommand, ROOT } from "./paths.js";
import { MB, medianOf } from "./stats.js";
import { maxOf, minOf } from "../src/rows/stats.js";

const SECTION = "multi-host";
const HOST_COUNTS = [1, 3] as const;
/** Every host's own tmpfs holds the throughput case's file and its source (2 × 256 MiB). */
const HOST_TMPFS = "1g";
const BS = 1 * MiB;
/** The short cases: dd write and read of 8 MiB per process, 1, 2 and 4 processes; one repetition each. */
const SHORT = { count: 8, parallel: [1, 2, 4] };
export const SHORT_CASES = 2 * SHORT.parallel.length;
/** The short cases' workload, on the spec's one target. */
export const SHORT_WORKLOAD = {
  name: "short",
  engine: "dd",
  op: ["write", "read"],
  bs: `${BS}B`,
  count: SHORT.count,
  parallel: SHORT.parallel,
  repeat: 1,
};
/** The throughput case: one dd writer per host. */
const SCALE = { count: config.quick ? 64 : 256, repeat: config.quick ? 1 : 3 };

/** Where a run's cases go: this machine, the first n test hosts over ssh, or every host as a Slurm node. */
type Placement = "local" | (typeof HOST_COUNTS)[number] | "slurm";
/** The Slurm placement's nodes: every test host. */
const SLURM_NODES = maxOf(HOST_COUNTS);

interface Round {
  placement: Placement;
  /** The short cases' run: its wall and measured seconds, and where the rest went. */
  wall: number;
  measured: number;
  beforeFirst: number;
  afterLast: number;
  /** On hosts, the throughput case's merged rows and each host's own figures, bytes per second. */
  throughput: number[];
  perHost: Record<string, number[]>;
}

export async function benchHosts(scratch: string, log: (line: string) => void): Promise<BenchLine[]> {
  if (process.getuid?.() !== 0)
    return [failedLine(SECTION, "hosts", new Error("needs root: its hosts are made of namespaces"))];
  const hosts = await startHosts({ count: SLURM_NODES, size: HOST_TMPFS, slurm: true });
  try {
    log(`hosts ${hosts.hosts.map((host) => host.name).join(", ")} up in ${hosts.dir}`);
    const rounds: Round[] = [];
    for (let r = 1; r <= config.rounds; r++) {
      // Rotated per round, so no placement always runs on a warmer (or busier) machine.
      const order: Placement[] = ["local", ...HOST_COUNTS, "slurm"];
      for (let i = 1; i < r; i++) order.push(order.shift()!);
      for (const placement of order) {
        rounds.push(await measure(scratch, hosts, placement));
        const last = rounds.at(-1)!;
        log(
          `hosts round ${r}, ${placed(placement)}: ${SHORT_CASES} cases in ${last.wall.toFixed(1)} s, measured ${last.measured.toFixed(1)} s`,
        );
      }
    }
    return [...overheadLines(rounds), throughputLine(rounds)];
  } finally {
    await hosts.stop();
  }
}

const placed = (placement: Placement) =>
  placement === "local"
    ? "this machine"
    : placement === "slurm"
      ? `${SLURM_NODES} Slurm nodes`
      : `${placement} host${placement > 1 ? "s" : ""}`;

async function measure(scratch: string, hosts: Hosts, placement: Placement): Promise<Round> {
  const bs = `${BS}B`;
  const short = SHORT_WORKLOAD;
  const scale = { name: "scale", engine: "dd", op: "write", bs, count: SCALE.count, repeat: SCALE.repeat };
  if (placement === "local") {
    // The scratch directory is on tmpfs, as each host's storage is.
    const run = await runBenchspec(scratch, "hosts-local", specOf([short]), { BENCH_HOSTS_DIR: scratch });
    return { placement, ...overheadOf(run), throughput: [], perHost: {} };
  }
  if (placement === "slurm") {
    const env = { ...hosts.env, BENCH_HOSTS_DIR: hosts.privatePath };
    const run = await runBenchspec(scratch, "hosts-slurm", specOf([short], hosts), env);
    return { placement, ...overheadOf(run), throughput: [], perHost: {} };
  }
  const names = hosts.hosts.slice(0, placement).map((host) => host.name);
  const env = { ...hosts.env, BENCH_HOSTS_DIR: hosts.privatePath };
  const run = await runBenchspec(scratch, `hosts-${placement}`, specOf([short], hosts, names), env);
  const scaled = await runBenchspec(scratch, `hosts-${placement}-scale`, specOf([scale], hosts, names), env);
  const perHost: Record<string, number[]> = {};
  for (const part of scaled.rows.flatMap((row) => row.hosts ?? []))
    (perHost[part.host] ??= []).push(part.throughput);
  return { placement, ...overheadOf(run), throughput: scaled.rows.map((row) => row.throughput), perHost };
}

/**
 * A spec of these workloads on BENCH_HOSTS_DIR, run from the named test hosts over ssh when given, or from
 * every test host as a Slurm node when only `hosts` is.
 */
function specOf(workloads: object[], hosts?: Hosts, names?: string[]): string {
  const { file, args } = benchspecCommand();
  const command = [file, ...args].map(shQuote).join(" ");
  const group = names
    ? {
        transport: "ssh",
        hosts: names,
        sshConfig: hosts!.sshConfig,
        // From the checkout, where tsx resolves when benchspec runs from source.
        command: `cd ${shQuote(ROOT)} && exec ${command}`,
        connectTimeout: "5s",
      }
    : // srun starts each task in the run's working directory (the checkout, under npm run bench).
      { transport: "slurm", nodes: SLURM_NODES, command };
  return stringify({
    benchspec: 1,
    name: "bench-hosts",
    // On hosts: each one's own tmpfs, at the same path on every host.
    targets: { scratch: { kind: "fs", path: "${env:BENCH_HOSTS_DIR}" } },
    ...(hosts && { hosts: { clients: group }, defaults: { hosts: "clients" } }),
    workloads,
  });
}

/** A short-case run's seconds: all of it, those its rows measured, before the first row and after the last. */
export function overheadOf(run: BenchspecRun) {
  if (run.rows.length !== SHORT_CASES)
    throw new Error(`${run.rows.length} short cases ran, not ${SHORT_CASES}`);
  const starts = run.rows.map((row) => Date.parse(row.start));
  const ends = run.rows.map((row) => Date.parse(row.end));
  return {
    wall: run.wall,
    measured: run.rows.reduce((sum, row) => sum + row.seconds, 0),
    beforeFirst: (minOf(starts) - run.startedAt) / 1000,
    afterLast: (run.endedAt - maxOf(ends)) / 1000,
  };
}

export const perCase = (round: Pick<Round, "wall" | "measured">) =>
  (round.wall - round.measured) / SHORT_CASES;

function overheadLines(rounds: Round[]): BenchLine[] {
  const of = (placement: Placement) => rounds.filter((round) => round.placement === placement);
  const local = medianOf(of("local"), perCase);
  const part = (placement: Placement, f: (round: Round) => number) => medianOf(of(placement), f).toFixed(2);
  return [...HOST_COUNTS, "slurm" as const].map((count) => {
    const engine = medianOf(of(count), perCase);
    return {
      section: SECTION,
      metric: `coordination overhead per case, ${placed(count)} (${SHORT_CASES} short dd cases)`,
      unit: "s",
      engine,
      reference: local,
      target: "< 1 s",
      verdict: engine < 1 ? "PASS" : "BELOW",
      note:
        `reference: the same cases on this machine (${part("local", (r) => r.wall)} s − measured ${part("local", (r) => r.measured)} s, ` +
        `start → first repetition ${part("local", (r) => r.beforeFirst)} s). ` +
        `benchspec run ${part(count, (r) => r.wall)} s − measured ${part(count, (r) => r.measured)} s; ` +
        `start → first repetition ${part(count, (r) => r.beforeFirst)} s (process start, validate, ${count === "slurm" ? "srun" : "ssh"}, the workers' start and compile, arming, clock readings, the start instant a few round trips ahead), ` +
        `after the last ${part(count, (r) => r.afterLast)} s`,
      detail: { rounds: of(count), local: of("local") },
    };
  });
}

function throughputLine(rounds: Round[]): BenchLine {
  const [one, many] = HOST_COUNTS.map((count) => rounds.filter((round) => round.placement === count)) as [
    Round[],
    Round[],
  ];
  const figure = (list: Round[]) =>
    medianOf(
      list.flatMap((round) => round.throughput),
      (t) => t / MB,
    );
  const engine = figure(many);
  const reference = figure(one);
  const perHost = Object.entries(many.at(-1)!.perHost)
    .map(([host, figures]) => `${host} ${medianOf(figures, (t) => t / MB).toFixed(0)}`)
    .join(", ");
  return {
    section: SECTION,
    metric: `aggregate dd write, one ${SCALE.count} MiB writer per host: ${HOST_COUNTS[1]} hosts vs ${HOST_COUNTS[0]}`,
    unit: "MB/s",
    engine,
    reference,
    ratio: engine / reference,
    target: "(3 hosts share 2 cores)",
    verdict: "INFO",
    note: `each of the ${HOST_COUNTS[1]} hosts' own MB/s (last round): ${perHost}; the hosts are namespaces on this machine's 2 cores and memory, so the ratio shows the merged figure adds up, not what ${HOST_COUNTS[1]} real clients deliver`,
    detail: { one, many },
  };
}
