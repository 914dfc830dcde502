import { describe, expect, it } from "vitest";
import {
  parseCpuTimes,
  parseDiskstats,
  parseNetDev,
  parseProcess,
  SECTOR_BYTES,
} from "../../src/telemetry/procfs.js";

describe("/proc parsers", () => {
  it("reads the cpu line of /proc/stat, interrupts counted as system and guest time not twice", () => {
    const times = parseCpuTimes("cpu  100 5 40 800 30 2 3 1 7 0\ncpu0 50 2 20 400 15 1 1 0 3 0\n");
    expect(times).toEqual({ user: 105, system: 45, iowait: 30, total: 100 + 5 + 40 + 800 + 30 + 2 + 3 + 1 });
  });

  it("reads every interface of /proc/net/dev, receive and transmit bytes", () => {
    const text = [
      "Inter-|   Receive                                                |  Transmit",
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed",
      "    lo: 5108 29    0    0    0     0          0         0 5109 29    0    0    0     0       0          0",
      "veth-h1:1000 10 0 0 0 0 0 0 2000 20 0 0 0 0 0 0",
    ].join("\n");
    expect(Object.fromEntries(parseNetDev(text))).toEqual({
      lo: { rxBytes: 5108, txBytes: 5109 },
      "veth-h1": { rxBytes: 1000, txBytes: 2000 },
    });
  });

  it("reads the devices of /proc/diskstats it is asked for, sectors as 512 bytes", () => {
    const text = [
      "   7       0 loop0 155 55 1818 120 294 67 1393 267 0 653 388 178 0 40 221 1900 4129",
      "   8       0 sda 10 0 80 5 20 0 160 7 1 30 12",
      "   8       1 sda1 10 0 80 5 20 0 160 7 1 30 12",
    ].join("\n");
    const disks = parseDiskstats(text, (name) => name !== "sda1");
    expect([...disks.keys()]).toEqual(["loop0", "sda"]);
    expect(disks.get("loop0")).toEqual({
      reads: 155,
      readBytes: 1818 * SECTOR_BYTES,
      writes: 294,
      writeBytes: 1393 * SECTOR_BYTES,
      busyMs: 653,
    });
  });

  it("reads a process's CPU ticks and RSS even when its name holds spaces and parentheses", () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    fields[0] = "S";
    const stat = `42 (a (b) c) ${fields.join(" ")}`;
    // utime is field 14 and stime field 15 of proc(5): here their values are 14 and 15.
    expect(parseProcess(stat, "Name:\tx\nVmRSS:\t  2048 kB\n")).toEqual({
      name: "a (b) c",
      cpuTicks: 14 + 15,
      rssBytes: 2048 * 1024,
    });
    expect(parseProcess(stat, "Name:\tkthread\n").rssBytes).toBe(0);
  });
});
