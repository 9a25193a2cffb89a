/**
 * An HTTP proxy in front of DynamoDB Local that counts the requests it forwards, by operation
 * (the X-Amz-Target header), and keeps the body of the last one of each: what a function really
 * sends, not what it means to send.
 */
import { Agent, createServer, request } from 'node:http';

export interface CountingProxy {
  readonly endpoint: string;
  /** Requests forwarded since the last reset, by operation, e.g. `{ Query: 1 }`. */
  counts(): Record<string, number>;
  /** The last request body of an operation, parsed. */
  lastBody(operation: string): Record<string, unknown> | undefined;
  reset(): void;
  stop(): Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const to = new URL(target);
  const agent = new Agent({ keepAlive: true });
  let counts: Record<string, number> = {};
  const last = new Map<string, Buffer>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const operation = String(req.headers['x-amz-target'] ?? '-').replace(/^.*\./, '');
      counts[operation] = (counts[operation] ?? 0) + 1;
      last.set(operation, body);
      const upstream = request(
        {
          agent,
          host: to.hostname,
          port: to.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: to.host },
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', () => {
        res.writeHead(502).end();
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    counts: () => ({ ...counts }),
    lastBody: (operation) => {
      const body = last.get(operation);
      return body ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : undefined;
    },
    reset: () => {
      counts = {};
      last.clear();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
