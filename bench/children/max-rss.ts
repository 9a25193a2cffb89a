/**
 * Preloaded (`--import`) into the import command by the benchmark: on exit, writes the process's
 * peak resident set size and its CPU time to the file named by BENCH_MAX_RSS_FILE.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_MAX_RSS_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({
        maxRssKiB: usage.maxRSS,
        cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
      }),
    );
  });
}
