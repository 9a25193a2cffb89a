/** Records in import form (SPEC 6). Names and e-mails are invented. */
export function transaction(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 1,
    receipt_no: 20230915000123,
    branch: { id: 3, name: 'Test Branch', address: '1 Test Street' },
    customer: { id: 7, first_name: 'Testfirst', email: 'person@example.test' },
    purpose: { value: 6, description: 'Shopping' },
    type: { value: 0, description: 'Buy' },
    total_amount: '1250.00',
    total_profit_amount: '-3.10',
    signature: 'signatures/t-1.png',
    attachment: null,
    transaction_currencies: [
      {
        id: 1,
        currency: 'US Dollar (USD)',
        edit_enabled: 0,
        delete_enabled: 1,
        rate: '56.12500',
        exchange_amount: '100.00',
        receive_amount: '5612.50',
        receive_profit_amount: '12.123456789',
      },
    ],
    created_by: { name: 'Test Teller' },
    created_at: '2023-09-15 10:01:02',
    ...overrides,
  };
}

export function customer(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const id = (overrides.id as number | undefined) ?? 7;
  return {
    id,
    first_name: 'Testfirst',
    middle_name: 'Testmiddle',
    last_name: 'Testlast',
    email: 'person@example.test',
    current_address: '1 Test Street',
    permanent_address: null,
    tin: '000-000-000-000',
    sss: null,
    document_type: 'Passport',
    id_no: 'X0000000',
    place_of_birth: 'Testville',
    nationality: 'Testish',
    contact_number: null,
    id_photo: null,
    date_of_birth: '1990-05-14T00:00:00.000000Z',
    assessment_score: 0,
    assessment_risk: { value: 0, description: 'Low Risk' },
    customer_risk_assessments: [
      {
        id: 1,
        customer_id: id,
        type: { value: 1, description: 'Complete Name' },
        value: 'Testfirst Testlast',
        grade: 1,
      },
    ],
    last_transaction_datetime: '2023-09-15 10:01:02',
    ...overrides,
  };
}

/** A customer with every optional field unset and no risk assessments. */
export function sparseCustomer(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return customer({
    current_address: null,
    tin: null,
    document_type: null,
    id_no: null,
    place_of_birth: null,
    nationality: null,
    customer_risk_assessments: [],
    last_transaction_datetime: null,
    ...overrides,
  });
}

export const line = (entity: 'transaction' | 'customer', record: Record<string, unknown>): string =>
  JSON.stringify({ [entity]: record });

/** A risk assessment of the given customer, with the given id. */
export function riskAssessment(
  customerId: number,
  id: number,
  value = `v${id}`,
): Record<string, unknown> {
  return {
    id,
    customer_id: customerId,
    type: { value: 1, description: 'Complete Name' },
    value,
    grade: 1,
  };
}

/** A currency line with the given id. */
export function currencyLine(id: number): Record<string, unknown> {
  return {
    id,
    currency: 'Euro (EUR)',
    edit_enabled: 1,
    delete_enabled: 0,
    rate: '60.75000',
    exchange_amount: `${id}.00`,
    receive_amount: '0.00',
    receive_profit_amount: '0',
  };
}
