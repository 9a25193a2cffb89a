/**
 * Generated records in the import format (SPEC 6), deterministic (a seeded generator), so that
 * every run of the benchmark imports the same bytes. Names and e-mails are invented.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

/** A small seeded generator (mulberry32): same seed, same records. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CURRENCIES = [
  ['US Dollar (USD)', 5612500n],
  ['Euro (EUR)', 6075000n],
  ['Japanese Yen (JPY)', 38120n],
  ['Singapore Dollar (SGD)', 4150000n],
  ['Hong Kong Dollar (HKD)', 717500n],
] as const;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
/** Cents or 1/100000ths as a decimal string with a fixed number of fraction digits. */
const fixed = (units: bigint, digits: number) => {
  const sign = units < 0n ? '-' : '';
  const s = (units < 0n ? -units : units).toString().padStart(digits + 1, '0');
  return `${sign}${s.slice(0, -digits)}.${s.slice(-digits)}`;
};

function wallTime(rnd: () => number): string {
  const day = 1 + Math.floor(rnd() * 28);
  const month = 1 + Math.floor(rnd() * 12);
  const [h, m, s] = [rnd() * 24, rnd() * 60, rnd() * 60].map(Math.floor) as [
    number,
    number,
    number,
  ];
  return `2023-${pad(month)}-${pad(day)} ${pad(h)}:${pad(m)}:${pad(s)}`;
}

/** One transaction with `lines` currency lines. */
export function transactionRecord(id: number, lines: number, rnd = random(id)): object {
  const currencies = Array.from({ length: lines }, (_, i) => {
    const [currency, rate] = CURRENCIES[i % CURRENCIES.length]!;
    const amount = BigInt(1 + Math.floor(rnd() * 5000)) * 100n;
    const receive = (amount * rate) / 100000n;
    return {
      id: id * 100 + i + 1,
      currency,
      edit_enabled: i % 2,
      delete_enabled: (i + 1) % 2,
      rate: fixed(rate, 5),
      exchange_amount: fixed(amount, 2),
      receive_amount: fixed(receive, 2),
      receive_profit_amount: fixed(receive / 200n, 4),
    };
  });
  const total = currencies.reduce((sum, c) => sum + BigInt(c.receive_amount.replace('.', '')), 0n);
  const customerId = 1 + Math.floor(rnd() * 100_000);
  return {
    id,
    receipt_no: 20230000000000 + id,
    branch: {
      id: 1 + (id % 7),
      name: `Branch ${1 + (id % 7)}`,
      address: `${id % 500} Bench Street`,
    },
    customer: { id: customerId, first_name: 'Benchfirst', email: `c${customerId}@example.test` },
    purpose: { value: 6, description: 'Shopping' },
    type: { value: id % 2, description: id % 2 ? 'Sell' : 'Buy' },
    total_amount: fixed(total, 2),
    total_profit_amount: fixed(total / 200n, 2),
    signature: `signatures/t-${id}.png`,
    attachment: id % 5 === 0 ? `attachments/t-${id}.pdf` : null,
    transaction_currencies: currencies,
    created_by: { name: 'Bench Teller' },
    created_at: wallTime(rnd),
  };
}

/** One customer with `assessments` risk assessments. */
export function customerRecord(id: number, assessments: number, rnd = random(id + 1e9)): object {
  return {
    id,
    first_name: 'Benchfirst',
    middle_name: 'Benchmiddle',
    last_name: `Benchlast${id}`,
    email: `c${id}@example.test`,
    current_address: `${id % 900} Bench Avenue, Bench City`,
    permanent_address: null,
    tin: `${pad(id % 1000, 3)}-000-000-000`,
    sss: null,
    document_type: 'Passport',
    id_no: `P${pad(id, 8)}`,
    place_of_birth: 'Benchville',
    nationality: 'Benchian',
    contact_number: '+63 917 000 0000',
    id_photo: `id-photos/c-${id}.png`,
    date_of_birth: `19${50 + Math.floor(rnd() * 50)}-0${1 + Math.floor(rnd() * 9)}-1${Math.floor(rnd() * 9)}T00:00:00.000000Z`,
    assessment_score: Math.floor(rnd() * 10),
    assessment_risk: { value: 0, description: 'Low Risk' },
    customer_risk_assessments: Array.from({ length: assessments }, (_, i) => ({
      id: id * 10 + i + 1,
      customer_id: id,
      type: { value: 1, description: 'Complete Name' },
      value: `Benchfirst Benchmiddle Benchlast${id}`,
      grade: 1 + (i % 3),
    })),
    last_transaction_datetime: wallTime(rnd),
  };
}

export const line = (entity: 'transaction' | 'customer', record: object): string =>
  JSON.stringify({ [entity]: record });

/**
 * `count` records: four transactions (1 to 3 currency lines) to one customer (1 or 2 risk
 * assessments), ids from 1. Written in blocks, so the generator itself stays small in memory.
 */
export function writeImportFile(path: string, count: number): { bytes: number } {
  const fd = openSync(path, 'w');
  let bytes = 0;
  try {
    let block: string[] = [];
    for (let i = 1; i <= count; i += 1) {
      block.push(
        i % 5 === 0
          ? line('customer', customerRecord(i, 1 + (i % 2)))
          : line('transaction', transactionRecord(i, 1 + (i % 3))),
      );
      if (block.length === 1000 || i === count) {
        const text = `${block.join('\n')}\n`;
        bytes += writeSync(fd, text);
        block = [];
      }
    }
  } finally {
    closeSync(fd);
  }
  return { bytes };
}
