/**
 * A restart of the local Cognito (as `npm start` does) restores the demo users to what
 * DEMO_USERS says, whatever `npm run access` did to them, and leaves other users as they are.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AdminAddUserToGroupCommand,
  AdminDisableUserCommand,
  AdminGetUserCommand,
  AdminListGroupsForUserCommand,
  AdminRemoveUserFromGroupCommand,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import { CUSTOMER_READERS_GROUP } from '../../core/groups.ts';
import {
  cognitoClient,
  createUser,
  startCognito,
  type LocalCognito,
} from '../../local/cognito/user-pool.ts';

let dataDir: string;
let cognito: LocalCognito | undefined;
let client: CognitoIdentityProviderClient | undefined;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'demo-users-test-'));
});

afterAll(async () => {
  client?.destroy();
  await cognito?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function state(username: string): Promise<{ enabled?: boolean; groups: string[] }> {
  const UserPoolId = cognito!.userPoolId;
  const user = await client!.send(new AdminGetUserCommand({ UserPoolId, Username: username }));
  // By the pool's username: cognito-local lists no groups by the e-mail alias.
  const { Groups } = await client!.send(
    new AdminListGroupsForUserCommand({ UserPoolId, Username: user.Username }),
  );
  return { enabled: user.Enabled, groups: (Groups ?? []).map((g) => g.GroupName ?? '') };
}

test('a restart restores both demo users (enabled, their groups) and leaves other users alone', async () => {
  cognito = await startCognito({ port: 0, dataDir });
  client = cognitoClient(cognito.endpoint);
  const UserPoolId = cognito.userPoolId;
  const teller = 'teller@example.com';
  const compliance = 'compliance@example.com';
  const other = 'someone-else@example.com';
  await createUser(client, UserPoolId, other);
  // What offboard, remove-group and a hand-made change leave behind.
  for (const Username of [teller, compliance, other])
    await client.send(new AdminDisableUserCommand({ UserPoolId, Username }));
  await client.send(
    new AdminRemoveUserFromGroupCommand({
      UserPoolId,
      Username: compliance,
      GroupName: CUSTOMER_READERS_GROUP,
    }),
  );
  await client.send(
    new AdminAddUserToGroupCommand({
      UserPoolId,
      Username: teller,
      GroupName: CUSTOMER_READERS_GROUP,
    }),
  );
  client.destroy();
  await cognito.stop();

  cognito = await startCognito({ port: 0, dataDir });
  client = cognitoClient(cognito.endpoint);
  expect(cognito.userPoolId).toBe(UserPoolId);
  expect(await state(teller)).toEqual({ enabled: true, groups: [] });
  expect(await state(compliance)).toEqual({ enabled: true, groups: [CUSTOMER_READERS_GROUP] });
  expect(await state(other)).toEqual({ enabled: false, groups: [] });
  expect(await cognito.tokenFor(teller)).toEqual(expect.any(String));
}, 60_000);
