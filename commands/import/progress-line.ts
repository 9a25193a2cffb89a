/**
 * `npm run import`'s progress line on stderr (SPEC 9): it moves at least every
 * QUIET_MAX_SECONDS, so that whoever watches an upload of gigabytes or a stage's workflow still
 * starting can tell it from a hung command.
 */
import type { Progress } from '../../import/progress.ts';

/** The longest a running import goes without a new line (or a redrawn one). */
export const QUIET_MAX_SECONDS = 10;
/** How often a terminal's line is redrawn: its elapsed seconds move. */
export const TTY_REDRAW_MS = 1000;
/** Non-terminal: a plain line this often unless IMPORT_PROGRESS_SECONDS says otherwise. */
export const DEFAULT_PROGRESS_SECONDS = 5;

const MiB = 1024 * 1024;
const sizeOf = (bytes: number) =>
  bytes < MiB ? `${bytes} bytes` : `${(bytes / MiB).toFixed(1)} MiB`;

/** Seconds as the line says them: `40 s`, `3 min`. */
const duration = (seconds: number) =>
  seconds < 90 ? `${Math.ceil(seconds)} s` : `${Math.round(seconds / 60)} min`;

/** Writing this long before the line estimates the time left: a first group's pace says little. */
export const ESTIMATE_AFTER_SECONDS = 10;

/**
 * The line's words for where the import is; `secondsLeft`, the writing's estimated time left,
 * once there is one.
 */
export function progressText(p: Progress, secondsLeft?: number): string {
  switch (p.phase) {
    case 'uploading':
      return p.bytes
        ? `Import uploading: ${sizeOf(p.bytes.sent)} of ${sizeOf(p.bytes.total)} sent`
        : 'Import uploading';
    case 'starting':
      return "Import starting: waiting for the stage's workflow to start";
    case 'checking':
      return `Import checking: ${p.partsDone} of ${p.parts} parts${p.records > 0 ? `, ${p.records} records` : ''}`;
    case 'writing': {
      const records = p.total === undefined ? `${p.records}` : `${p.records} of ${p.total}`;
      const left = secondsLeft === undefined ? '' : `, about ${duration(secondsLeft)} left`;
      return `Import writing: ${p.partsDone} of ${p.parts} parts, ${records} records${left}`;
    }
    default:
      return `Import ${p.phase}`;
  }
}

export interface ProgressLineOptions {
  /** A terminal gets one live line, redrawn; anything else (CI logs, nohup) plain lines. */
  tty: boolean;
  write: (text: string) => void;
  /**
   * Non-terminal: seconds between lines (IMPORT_PROGRESS_SECONDS), at most QUIET_MAX_SECONDS;
   * the first comes after as long, so a short import prints none.
   */
  everySeconds?: number;
  now?: () => number;
}

export function progressLine(options: ProgressLineOptions): {
  update: (p: Progress) => void;
  end: () => void;
} {
  const { tty, write, now = () => performance.now() } = options;
  const started = now();
  // Until the workflow says more, the file is going up (the local drop's upload says nothing).
  let current: Progress = { phase: 'uploading', parts: 0, partsDone: 0, records: 0 };
  let shown = false;
  let writingSince: number | undefined;
  /** At the pace since writing began, once it has gone on a while and written something. */
  const secondsLeft = (): number | undefined => {
    const { records, total } = current;
    if (writingSince === undefined || total === undefined || records === 0) return undefined;
    const seconds = (now() - writingSince) / 1000;
    if (seconds < ESTIMATE_AFTER_SECONDS) return undefined;
    return Math.max(0, total - records) * (seconds / records);
  };
  const line = () =>
    `${progressText(current, secondsLeft())} (${Math.floor((now() - started) / 1000)} s)`;
  const draw = () => {
    write(tty ? `\r\x1b[K${line()}` : `${line()}\n`);
    shown = true;
  };
  const seconds = Math.min(options.everySeconds ?? DEFAULT_PROGRESS_SECONDS, QUIET_MAX_SECONDS);
  const ticker = setInterval(draw, tty ? TTY_REDRAW_MS : seconds * 1000);
  ticker.unref();
  return {
    update: (p) => {
      const moved = p.phase !== current.phase;
      if (moved && p.phase === 'writing') writingSince = now();
      current = p;
      // A terminal shows a new phase at once; the rest waits for the ticker.
      if (tty && moved) draw();
    },
    end: () => {
      clearInterval(ticker);
      if (tty && shown) write('\n');
    },
  };
}
