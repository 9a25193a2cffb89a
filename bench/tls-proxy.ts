/**
 * HTTPS in front of DynamoDB Local, for the first-request measure: in AWS a function's first
 * request opens a TLS connection to DynamoDB, and an `http://` endpoint would not only skip that
 * but make the SDK load `node:http` on the first request (it loads `node:https` at init), which
 * a bundle with the SDK's default credential chain has already loaded at init for its
 * instance-metadata provider. A self-signed certificate for 127.0.0.1 (made with openssl) that
 * the child processes trust through NODE_EXTRA_CA_CERTS.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { forward } from './counting-proxy.ts';

export interface TlsProxy {
  /** https://127.0.0.1:<port> */
  readonly endpoint: string;
  /** The certificate file to trust (NODE_EXTRA_CA_CERTS). */
  readonly caFile: string;
  stop(): Promise<void>;
}

export async function startTlsProxy(target: string, dir: string): Promise<TlsProxy> {
  const key = join(dir, 'tls-key.pem');
  const cert = join(dir, 'tls-cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const to = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      forward(res, { method: req.method, path: req.url, headers: req.headers, body }, to, agent);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `https://127.0.0.1:${port}`,
    caFile: cert,
    stop: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
