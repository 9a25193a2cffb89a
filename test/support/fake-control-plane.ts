/**
 * CloudFormation's DescribeStacks and Step Functions' ListExecutions and DescribeExecution on a
 * local port, for `npm run import` run as a child process (where aws-sdk-client-mock cannot
 * reach): the child is pointed here with AWS_ENDPOINT_URL_CLOUDFORMATION and AWS_ENDPOINT_URL_SFN.
 * Answers in each service's own protocol (awsQuery XML, awsJson1_0), from what the test sets.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { LOCALHOST } from '../../local/net.ts';

export interface FakeExecution {
  executionArn: string;
  stateMachineArn: string;
  input: string;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';
  startDate: Date;
  error?: string;
  cause?: string;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

async function bodyOf(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body;
}

export async function startFakeControlPlane() {
  const stacks = new Map<string, Record<string, string>>();
  const executions: FakeExecution[] = [];
  /** The StackName of each DescribeStacks, in order. */
  const stacksAsked: string[] = [];

  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const target = req.headers['x-amz-target'];
      if (typeof target === 'string' && target.startsWith('AWSStepFunctions.')) {
        const input = JSON.parse(body || '{}') as { executionArn?: string };
        const seconds = (d: Date) => d.getTime() / 1000;
        let answer: unknown;
        if (target === 'AWSStepFunctions.ListExecutions') {
          // Newest first, as Step Functions lists them.
          answer = {
            executions: [...executions]
              .reverse()
              .map(({ executionArn, stateMachineArn, status, startDate }) => ({
                executionArn,
                stateMachineArn,
                name: executionArn.split(':').at(-1),
                status,
                startDate: seconds(startDate),
              })),
          };
        } else {
          const found = executions.find((e) => e.executionArn === input.executionArn);
          if (!found) {
            res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
            res.end(
              JSON.stringify({ __type: 'ExecutionDoesNotExist', message: 'no such execution' }),
            );
            return;
          }
          answer = { ...found, startDate: seconds(found.startDate) };
        }
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(answer));
        return;
      }
      const form = new URLSearchParams(body);
      const name = form.get('StackName') ?? '';
      stacksAsked.push(name);
      const outputs = stacks.get(name);
      if (form.get('Action') !== 'DescribeStacks' || !outputs) {
        res.writeHead(400, { 'content-type': 'text/xml' });
        res.end(
          `<ErrorResponse><Error><Type>Sender</Type><Code>ValidationError</Code><Message>Stack with id ${xml(name)} does not exist</Message></Error><RequestId>fake</RequestId></ErrorResponse>`,
        );
        return;
      }
      const members = Object.entries(outputs)
        .map(
          ([k, v]) =>
            `<member><OutputKey>${xml(k)}</OutputKey><OutputValue>${xml(v)}</OutputValue></member>`,
        )
        .join('');
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(
        `<DescribeStacksResponse><DescribeStacksResult><Stacks><member><StackName>${xml(name)}</StackName>` +
          `<StackId>arn:aws:cloudformation:us-east-1:123456789012:stack/${xml(name)}/1</StackId>` +
          `<CreationTime>2026-01-01T00:00:00Z</CreationTime><StackStatus>UPDATE_COMPLETE</StackStatus>` +
          `<Outputs>${members}</Outputs></member></Stacks></DescribeStacksResult>` +
          `<ResponseMetadata><RequestId>fake</RequestId></ResponseMetadata></DescribeStacksResponse>`,
      );
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, LOCALHOST, resolve));
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('no address');
  return {
    endpoint: `http://${LOCALHOST}:${address.port}`,
    stacks,
    executions,
    stacksAsked,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
