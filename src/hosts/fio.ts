/**
 * fio's own client/server as a way to reach hosts, for fio workloads only: the user runs `fio --server` on
 * every host (fio's daemon, often already there where benchspec is not; it runs whatever job any client
 * that reaches its port sends, so it belongs on a trusted network), and each step runs here as one
 * `fio --client` for all of them (fio-servers.ts). benchspec does not start the servers itself: a host it
 * could start them on over ssh is better served by the ssh transport, whose workers check the target and
 * clean up with benchspec's own steps.
 */
import { FioServers } from "./fio-servers.js";
import type { HostTransport } from "./types.js";

export const fioTransport: HostTransport<"fio"> = {
  hostNames: (group) => group.hosts,
  namedByWorkers: false,
  start: (group, _command, events) => new FioServers(group, events),
};
