/** Something that listens like Fastify: resolves with the address it bound. */
export interface Listener {
  listen(opts: { host: string; port: number }): Promise<string>;
}

export const LOOPBACK = '127.0.0.1';

const isAddressInUse = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === 'EADDRINUSE';

/**
 * Binds to 127.0.0.1 only, on `preferredPort` when it is free, else on a port the OS picks. The desktop app
 * never asks for a fixed port: a second copy of Lectern, `lectern serve` on 8000 or any other program may
 * hold one, and the window learns the address from the preload anyway.
 */
export async function listenOnLoopback(server: Listener, preferredPort = 0): Promise<{ url: string; port: number }> {
  let url: string;
  try {
    url = await server.listen({ host: LOOPBACK, port: preferredPort });
  } catch (err) {
    if (preferredPort === 0 || !isAddressInUse(err)) throw err;
    url = await server.listen({ host: LOOPBACK, port: 0 });
  }
  const parsed = new URL(url);
  if (parsed.hostname !== LOOPBACK) throw new Error(`the server bound ${url}, not the loopback address`);
  return { url: parsed.origin, port: Number(parsed.port) };
}
