/**
 * An HTTP proxy in front of DynamoDB Local that counts the requests it forwards, by operation
 * (the X-Amz-Target header), and keeps the body of the last one of each: what a function really
 * sends, not what it means to send. It also keeps when each request arrived and when its answer
 * was handed back, which tells whether a function's requests overlap in time: with `gather`,
 * each answer is held until `gather.count` requests have arrived (or `gather.timeoutMs` has
 * passed), so that requests sent together are seen together however busy the machine is, and a
 * request sent only after another's answer is seen after it.
 */
import {
  Agent,
  createServer,
  request,
  type IncomingHttpHeaders,
  type ServerResponse,
} from 'node:http';

/** One forwarded request: when it arrived, and when its answer was handed back (ms, this process). */
export interface Exchange {
  operation: string;
  arrivedAt: number;
  answeredAt: number;
}

export interface CountingProxy {
  readonly endpoint: string;
  /** Requests forwarded since the last reset, by operation, e.g. `{ Query: 1 }`. */
  counts(): Record<string, number>;
  /** The last request body of an operation, parsed. */
  lastBody(operation: string): Record<string, unknown> | undefined;
  /** The requests forwarded since the last reset, in the order they arrived, once answered. */
  exchanges(): Exchange[];
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
  handBack: (answer: () => void) => void = (answer) => answer(),
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
    (up) =>
      handBack(() => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      }),
  );
  upstream.on('error', () => {
    res.writeHead(502).end();
  });
  upstream.end(sent.body);
}

/** Requests that arrived together, and the answers held until they all have. */
interface Group {
  members: number;
  complete: boolean;
  held: (() => void)[];
  timer?: NodeJS.Timeout;
}

export async function startCountingProxy(
  target: string,
  gather?: { count: number; timeoutMs: number },
): Promise<CountingProxy> {
  const to = new URL(target);
  const agent = new Agent({ keepAlive: true });
  let counts: Record<string, number> = {};
  const last = new Map<string, Buffer>();
  let exchanges: Exchange[] = [];

  const newGroup = (): Group => ({ members: 0, complete: false, held: [] });
  let group = newGroup();
  /** Lets a group's answers go, and those of its members still to come. */
  const complete = (g: Group) => {
    g.complete = true;
    clearTimeout(g.timer);
    for (const answer of g.held.splice(0)) answer();
    if (g === group) group = newGroup();
  };
  /** Hands an answer back now, or once its group is complete (or the wait is over). */
  const handBack = (g: Group, answer: () => void) => {
    if (!gather || g.complete) return answer();
    g.held.push(answer);
    g.timer ??= setTimeout(() => complete(g), gather.timeoutMs);
  };

  const server = createServer((req, res) => {
    const arrivedAt = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const operation = String(req.headers['x-amz-target'] ?? '-').replace(/^.*\./, '');
      counts[operation] = (counts[operation] ?? 0) + 1;
      last.set(operation, body);
      const exchange: Exchange = { operation, arrivedAt, answeredAt: Number.NaN };
      exchanges.push(exchange);
      const mine = group;
      mine.members += 1;
      if (gather && mine.members >= gather.count) complete(mine);
      const sent = { method: req.method, path: req.url, headers: req.headers, body };
      forward(res, sent, to, agent, (answer) =>
        handBack(mine, () => {
          exchange.answeredAt = performance.now();
          answer();
        }),
      );
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
    exchanges: () => exchanges.map((e) => ({ ...e })),
    reset: () => {
      complete(group);
      counts = {};
      exchanges = [];
      last.clear();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        complete(group);
        agent.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
