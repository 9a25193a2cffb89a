/** A count and its noun as a person writes them: `1 customer`, `2 customers`, `0 records`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
