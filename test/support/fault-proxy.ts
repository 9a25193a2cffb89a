/**
 * A TCP proxy in front of DynamoDB (Local) that misbehaves on demand, one behaviour per
 * connection: forward, reset, accept and never answer, answer slowly, or answer with a canned
 * HTTP response (throttling, a 500, an access denial, garbage, a body cut short). Canned answers
 * close the connection, so each SDK attempt opens a new one and `connections` counts attempts.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type FaultMode =
  | 'forward'
  | 'reset'
  | 'hang'
  | { slowMs: number }
  | 'throttle'
  | 'http500'
  | 'accessDenied'
  | 'garbage'
  | 'truncated';

const AMZ_JSON = 'application/x-amz-json-1.0';

function canned(status: string, contentType: string, body: string, declaredLength?: number) {
  return (
    `HTTP/1.1 ${status}\r\ncontent-type: ${contentType}\r\n` +
    `content-length: ${declaredLength ?? Buffer.byteLength(body)}\r\n` +
    `x-amzn-requestid: FAULTPROXY\r\nconnection: close\r\n\r\n${body}`
  );
}

const CANNED: Record<string, string> = {
  throttle: canned(
    '400 Bad Request',
    AMZ_JSON,
    '{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate of requests exceeds the allowed throughput."}',
  ),
  http500: canned(
    '500 Internal Server Error',
    AMZ_JSON,
    '{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"Internal server error"}',
  ),
  accessDenied: canned(
    '400 Bad Request',
    AMZ_JSON,
    '{"__type":"com.amazon.coral.service#AccessDeniedException","message":"User is not authorized to perform: dynamodb:GetItem"}',
  ),
  garbage: canned('200 OK', AMZ_JSON, '<html>not DynamoDB</html>'),
  truncated: canned('200 OK', AMZ_JSON, '{"Item":{"pk":', 4096),
};

export interface FaultProxy {
  readonly endpoint: string;
  /** Connections since the last setMode. */
  readonly connections: number;
  /** One mode for every connection, or one per connection (0-based) since this call. */
  /** Closes every open connection first, so that the next request opens a new one. */
  setMode(mode: FaultMode | ((connection: number) => FaultMode)): Promise<void>;
  setUpstream(endpoint: string): void;
  stop(): Promise<void>;
}

export async function startFaultProxy(upstreamEndpoint?: string): Promise<FaultProxy> {
  let upstream = upstreamEndpoint ? new URL(upstreamEndpoint) : undefined;
  let choose: (connection: number) => FaultMode = () => 'forward';
  let connections = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const forward = (socket: Socket) => {
    if (!upstream) return socket.destroy();
    const out = connect(Number(upstream.port), upstream.hostname);
    out.on('error', () => socket.destroy());
    socket.on('close', () => out.destroy());
    socket.pipe(out).pipe(socket);
  };

  const server: Server = createServer((socket) => {
    const mode = choose(connections);
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (mode === 'forward') forward(socket);
    else if (mode === 'reset') socket.resetAndDestroy();
    else if (mode === 'hang') socket.resume();
    else if (typeof mode === 'object') {
      // Paused, the request waits in the socket's buffer; pipe() resumes it when forwarding.
      socket.pause();
      const timer = setTimeout(() => {
        timers.delete(timer);
        forward(socket);
      }, mode.slowMs);
      timers.add(timer);
    } else {
      // Answer once the request has arrived, then close.
      socket.once('data', () => socket.end(CANNED[mode]!));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  return {
    endpoint: `http://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    async setMode(mode) {
      choose = typeof mode === 'function' ? mode : () => mode;
      connections = 0;
      for (const socket of sockets) socket.destroy();
      // Let the client see the closes before it picks a pooled connection.
      await new Promise((resolve) => setTimeout(resolve, 20));
    },
    setUpstream(endpoint) {
      upstream = new URL(endpoint);
    },
    stop: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
