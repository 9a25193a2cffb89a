/**
 * An HTTP proxy in front of DynamoDB Local that counts the requests it forwards, by operation
 * (the X-Amz-Target header), and keeps the body of the last one of each: what a function really
 * sends, not what it means to send.
 */
import {
  Agent,
  createServer,
  request,
  type IncomingHttpHeaders,
  type ServerResponse,
} from 'node:http';

export interface CountingProxy {
  readonly endpoint: string;
  /** Requests forwarded since the last reset, by operation, e.g. `{ Query: 1 }`. */
  counts(): Record<string, number>;
  /** The last request body of an operation, parsed. */
  lastBody(operation: string): Record<string, unknown> | undefined;
  reset(): void;
  stop(): Promise<void>;
}

/** Sends a request on to `to` over `agent` and pipes the answer back into `res`. */
export function forward(
  res: ServerResponse,
  sent: {
    method?: string | undefined;
    path?: string | undefined;
    headers: IncomingHttpHeaders;
    body: Buffer;
  },
  to: URL,
  agent: Agent,
): void {
  const upstream = request(
    {
      agent,
      host: to.hostname,
      port: to.port,
      method: sent.method,
      path: sent.path,
      headers: { ...sent.headers, host: to.host },
    },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on('error', () => {
    res.writeHead(502).end();
  });
  upstream.end(sent.body);
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
      forward(res, { method: req.method, path: req.url, headers: req.headers, body }, to, agent);
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
