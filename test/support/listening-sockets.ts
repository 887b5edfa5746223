import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ListeningSocket {
  pid: number;
  /** `127.0.0.1`, `0.0.0.0`, `::`, `::ffff:127.0.0.1`, … */
  address: string;
  port: number;
  /** Whether only this machine can connect: 127.0.0.0/8, ::1 or IPv4-mapped 127.0.0.0/8. */
  loopback: boolean;
}

/**
 * The TCP sockets listening in `rootPid` and all its descendants (Linux: reads /proc/net/tcp and
 * tcp6 for LISTEN sockets and maps their inodes to processes through /proc/<pid>/fd).
 */
export function listeningSockets(rootPid = process.pid): ListeningSocket[] {
  if (!existsSync('/proc/net/tcp')) {
    throw new Error('listing the listening sockets of a process reads /proc/net/tcp, which only Linux has');
  }
  const owners = new Map<string, number>();
  for (const pid of processTree(rootPid)) {
    for (const inode of socketInodes(pid)) owners.set(inode, pid);
  }
  return [...listenEntries('/proc/net/tcp', 4), ...listenEntries('/proc/net/tcp6', 6)].flatMap((entry) => {
    const pid = owners.get(entry.inode);
    return pid === undefined
      ? []
      : [{ pid, address: entry.address, port: entry.port, loopback: entry.loopback }];
  });
}

/** `rootPid` and all its descendants, as /proc lists them now. */
export function processTree(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const parent = parentOf(Number(name));
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const tree: number[] = [];
  const pending = [rootPid];
  while (pending.length > 0) {
    const pid = pending.pop() as number;
    tree.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return tree;
}

function parentOf(pid: number): number | undefined {
  try {
    // `pid (comm) state ppid …`; comm may hold spaces and parentheses, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined; // the process ended meanwhile
  }
}

function socketInodes(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        return match?.[1] ? [match[1]] : [];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

const LISTEN = '0A';

function listenEntries(file: string, family: 4 | 6) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[3] === LISTEN)
    .map((fields) => {
      const [hexAddress = '', hexPort = '0'] = (fields[1] ?? '').split(':');
      const bytes = hostOrderBytes(hexAddress);
      return { inode: fields[9] ?? '', port: Number.parseInt(hexPort, 16), ...describe(bytes, family) };
    });
}

/** /proc/net/tcp* print each 32-bit word of the address in host (little-endian) byte order. */
function hostOrderBytes(hex: string): number[] {
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const chunk = hex.slice(word, word + 8);
    for (let at = 6; at >= 0; at -= 2) bytes.push(Number.parseInt(chunk.slice(at, at + 2), 16));
  }
  return bytes;
}

function describe(bytes: number[], family: 4 | 6): { address: string; loopback: boolean } {
  if (family === 4) return { address: bytes.join('.'), loopback: bytes[0] === 127 };
  const mappedV4 = bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mappedV4) {
    const v4 = bytes.slice(12);
    return { address: `::ffff:${v4.join('.')}`, loopback: v4[0] === 127 };
  }
  const groups = Array.from({ length: 8 }, (_, index) =>
    (((bytes[2 * index] ?? 0) << 8) | (bytes[2 * index + 1] ?? 0)).toString(16),
  );
  const loopback = groups.slice(0, 7).every((group) => group === '0') && groups[7] === '1';
  return { address: groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::'), loopback };
}
