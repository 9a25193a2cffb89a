/**
 * Preloaded (`--import`) into the import command by the benchmark: on exit, writes the process's
 * peak resident set size to the file named by BENCH_MAX_RSS_FILE.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_MAX_RSS_FILE;
if (file) {
  process.on('exit', () => {
    writeFileSync(file, JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS }));
  });
}
