import type { Logger } from 'pino';

/** Ctrl-C or a service manager's SIGTERM closes a long-running node once, then ends the process. */
export function stopOnSignals(node: { log: Logger; close(): Promise<void> }): void {
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    node.log.info({ signal }, 'shutting down');
    node.close().then(
      () => process.exit(0),
      (e: unknown) => {
        node.log.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
