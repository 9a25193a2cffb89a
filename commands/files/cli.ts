/**
 * `npm run files -- put <dir>`: puts the files records name (signatures, attachments, ID photos)
 * into the running local rig's files bucket, each under the key of its path below `<dir>`
 * (`<dir>/signatures/t-1.png` → `signatures/t-1.png`), so that imported records' links open and
 * the import warns of none. Every path is checked first: one outside the three prefixes, and
 * nothing is put. A stage's bucket takes the same folder with `aws s3 cp` (docs/import.md).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { FILE_PREFIXES } from '../../core/file-keys.ts';
import { plural } from '../../core/plural.ts';
import { s3Client } from '../../local/s3/s3-client.ts';
import { incompleteState, readLocalState, runningDataDir } from '../../local/rig/state.ts';
import { CommandFailure } from '../command-failure.ts';

const USAGE = 'Usage: npm run files -- put <dir>';

/** What a browser shows inline; anything else is bytes. */
const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

/**
 * The command's exit status. Any error is one line, `files: ` and why: 2 for what the command
 * line must change, 1 for the rest.
 */
export async function filesCommand(argv: readonly string[]): Promise<number> {
  try {
    await put(argv);
    return 0;
  } catch (error) {
    const status = error instanceof CommandFailure ? error.status : 1;
    process.stderr.write(`files: ${error instanceof Error ? error.message : String(error)}\n`);
    return status;
  }
}

async function put(argv: readonly string[]): Promise<void> {
  const [verb, dir, ...rest] = argv;
  if (verb !== 'put' || dir === undefined || rest.length > 0) throw new CommandFailure(USAGE, 2);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new CommandFailure(
      `${dir} is not a directory: give the folder that holds signatures/, attachments/ or id-photos/`,
      2,
    );
  const files = filesUnder(dir).map((path) => ({
    path,
    key: relative(dir, path).split(sep).join('/'),
  }));
  const outside = files.filter(({ key }) => !FILE_PREFIXES.some((p) => key.startsWith(p)));
  if (outside.length > 0)
    throw new CommandFailure(
      `${outside.map(({ key }) => key).join(', ')}: not under ${FILE_PREFIXES.join(', ')}, ` +
        'where records name their files; nothing was put',
      2,
    );

  // Not running, or a state without the local S3: the state's own errors say what to do.
  const dataDir = runningDataDir();
  const state = readLocalState(dataDir);
  if (!state.s3Endpoint || !state.bucketName) throw incompleteState(dataDir);
  const s3 = s3Client(state.s3Endpoint);
  try {
    for (const { path, key } of files)
      await s3.send(
        new PutObjectCommand({
          Bucket: state.bucketName,
          Key: key,
          Body: readFileSync(path),
          ContentType: CONTENT_TYPES[extname(key).toLowerCase()] ?? 'application/octet-stream',
        }),
      );
  } finally {
    s3.destroy();
  }
  console.log(
    `Put ${plural(files.length, 'file')} into the local rig's files bucket (${state.bucketName})`,
  );
}
