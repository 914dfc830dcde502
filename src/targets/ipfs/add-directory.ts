/**
 * The block Kubo's `add` leaves behind besides the file's DAG. The adder builds its result in an in-memory MFS
 * directory and stores that directory's node too: one dag-pb block per add,
 * `{ Links: [{ Hash: <root>, Name: "<root CID as returned>", Tsize: <the add's Size> }], Data: <UnixFS
 * Directory> }`. No pin and no `refs -r` of the root reaches it, and on an external node nothing but
 * `repo gc` (which benchspec never runs there) would remove it, so cleanup removes it by its CID, computed
 * here without asking the node. Kubo keys its blockstore by multihash, so the CIDv1 `raw` form of the
 * block's sha2-256 names the block whatever codec it was stored under.
 */
import { createHash } from "node:crypto";

/** The CID (CIDv1 raw, base32) of the directory block the add that returned `root` and `size` stored. */
export function addDirectoryBlock(root: string, size: number): string {
  const name = Buffer.from(root, "utf8");
  const link = Buffer.concat([field(1, cidBytes(root)), field(2, name), Buffer.from([0x18]), varint(size)]);
  // dag-pb's canonical order: Links (field 2) before Data (field 1); Data = UnixFS { Type: Directory }.
  const node = Buffer.concat([field(2, link), field(1, Buffer.from([0x08, 0x01]))]);
  const digest = createHash("sha256").update(node).digest();
  return `b${base32(Buffer.concat([Buffer.from([0x01, 0x55, 0x12, 0x20]), digest]))}`;
}

/** A length-delimited protobuf field. */
const field = (number: number, bytes: Buffer) =>
  Buffer.concat([Buffer.from([(number << 3) | 2]), varint(bytes.length), bytes]);

function varint(value: number): Buffer {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return Buffer.from(out);
}

/** A CID's binary form: CIDv0 ("Qm…", base58btc of the multihash) or CIDv1 in base32 ("b…"), as Kubo returns them. */
function cidBytes(cid: string): Buffer {
  if (/^Qm[1-9A-HJ-NP-Za-km-z]{44}$/.test(cid)) return base58Decode(cid);
  if (/^b[a-z2-7]+$/.test(cid)) return base32Decode(cid.slice(1));
  throw new Error(`unexpected CID form: ${cid}`);
}

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";
const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

function base32(bytes: Buffer): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function base32Decode(text: string): Buffer {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text) {
    value = (value << 5) | BASE32.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
    value &= (1 << bits) - 1;
  }
  return Buffer.from(out);
}

function base58Decode(text: string): Buffer {
  let value = 0n;
  for (const char of text) value = value * 58n + BigInt(BASE58.indexOf(char));
  const hex = value.toString(16);
  const body = Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex");
  const zeros = /^1*/.exec(text)![0].length;
  return Buffer.concat([Buffer.alloc(zeros), body]);
}
