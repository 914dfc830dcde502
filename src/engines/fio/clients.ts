/**
 * What a fio server is sent: fio's client gives each server the job file named after its --client (and
 * ignores --section), so each host gets a file of its own holding [global] and just the sections of the step,
 * its files named with the host's prefix (fio's servers share no directory of ours to keep hosts apart in,
 * and cannot make one). The compiled workload jobfile is the source: the same sections a local run picks.
 */

/** A server as the spec names it (host, host:port, [v6]:port) and as fio's --client takes it. */
export interface FioServer {
  /** As the spec writes it, and as rows name the host. */
  name: string;
  host: string;
  port: number;
}

export const FIO_DEFAULT_PORT = 8765;

export function fioServer(name: string): FioServer {
  const match = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(name);
  if (!match) throw new Error(`not a fio server address: ${name}`);
  return { name, host: match[1] ?? match[2]!, port: match[3] ? Number(match[3]) : FIO_DEFAULT_PORT };
}

/** fio's own spelling: a comma before the port, `ip6:` before an IPv6 address. */
export const clientArg = ({ host, port }: FioServer) =>
  `--client=${host.includes(":") ? `ip6:${host}` : host},${port}`;

interface Section {
  name: string;
  lines: string[];
}

/** The jobfile's sections in order; comments and blank lines dropped. */
function sectionsOf(jobfile: string): Section[] {
  const sections: Section[] = [];
  for (const raw of jobfile.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith(";") || line.startsWith("#")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) sections.push({ name: header[1]!, lines: [] });
    else sections.at(-1)?.lines.push(line);
  }
  return sections;
}

/** Files named `<prefix>.<what the section names>`: hosts sharing a file system keep to their own files. */
const prefixed = (line: string, prefix: string) =>
  line.replace(/^filename_format=/, `filename_format=${prefix}.`);

/** [global] and the named sections of the jobfile, in its order, for one host. */
export function hostJobfile(jobfile: string, names: readonly string[], prefix: string): string {
  const wanted = new Set(["global", ...names]);
  const found = sectionsOf(jobfile).filter((section) => wanted.has(section.name));
  const missing = names.filter((name) => !found.some((section) => section.name === name));
  if (missing.length > 0) throw new Error(`the jobfile has no section ${missing.join(", ")}`);
  return render(found.map(({ name, lines }) => ({ name, lines: lines.map((l) => prefixed(l, prefix)) })));
}

/**
 * A job that removes the files the section's jobs made on a host: fio opens them without I/O (create_only;
 * a file at least 4 KiB long is not laid out again) and unlinks them when it ends.
 */
export function cleanupJobfile(jobfile: string, name: string, prefix: string): string {
  const section = sectionsOf(jobfile).find((s) => s.name === name);
  if (!section) throw new Error(`the jobfile has no section ${name}`);
  const kept = section.lines.filter((line) => /^(directory|filename_format|numjobs)=/.test(line));
  return render([
    {
      name: `${name}.cleanup`,
      lines: [...kept.map((line) => prefixed(line, prefix)), "size=4096", "create_only=1", "unlink=1"],
    },
  ]);
}

const render = (sections: readonly Section[]) =>
  sections.map(({ name, lines }) => [`[${name}]`, ...lines].join("\n")).join("\n\n") + "\n";
