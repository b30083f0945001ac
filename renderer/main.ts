// Placeholder review UI: shows whether the local server answers. The review desk comes with its own issue.
interface Bridge {
  server(): Promise<{ url: string; key: string }>;
}
const bridge = (window as unknown as { lectern?: Bridge }).lectern;
const status = document.getElementById('status')!;

async function show(): Promise<void> {
  if (!bridge) {
    status.textContent = 'Open this page from the Lectern app.';
    return;
  }
  const { url, key } = await bridge.server();
  const res = await fetch(`${url}/health`, { headers: { 'x-api-key': key } });
  const health = (await res.json()) as { version: string };
  status.textContent = `Server ${url} is up (version ${health.version}).`;
}
show().catch((err: unknown) => {
  status.textContent = `The server did not answer: ${String(err)}`;
});
