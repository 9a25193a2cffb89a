/**
 * An HTTP proxy in front of the local Cognito that answers chosen operations with a Cognito error
 * instead of forwarding them (e.g. AdminDisableUser throttled), so that a test can stop
 * `npm run access` half-way at a step of its choice. Everything else is forwarded as it is,
 * the Date header included.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface CognitoFault {
  /** e.g. `TooManyRequestsException` */
  readonly type: string;
  readonly message: string;
}

export interface CognitoFaultProxy {
  readonly endpoint: string;
  /** Operations (e.g. `AdminDisableUser`) answered with `fault`; none = forward everything. */
  refuse(operations: readonly string[], fault?: CognitoFault): void;
  stop(): Promise<void>;
}

const THROTTLED: CognitoFault = { type: 'TooManyRequestsException', message: 'Rate exceeded' };

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startCognitoFaultProxy(upstream: string): Promise<CognitoFaultProxy> {
  let refused = new Set<string>();
  let fault = THROTTLED;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const payload = await body(req);
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      if (refused.has(operation)) {
        res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify({ __type: fault.type, message: fault.message }));
        return;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && !['host', 'connection'].includes(name))
          headers[name] = value;
      }
      const answer = await fetch(`${upstream}${req.url}`, {
        method: req.method,
        headers,
        body: req.method === 'GET' ? undefined : payload,
      });
      const out = Buffer.from(await answer.arrayBuffer());
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
        date: answer.headers.get('date') ?? new Date().toUTCString(),
      });
      res.end(out);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    refuse(operations, f = THROTTLED) {
      refused = new Set(operations);
      fault = f;
    },
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
