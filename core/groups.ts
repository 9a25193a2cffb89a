/** The Cognito group whose members may read customers (SPEC 1): the pool, the functions, the local rig and the tools all name it from here. */
export const CUSTOMER_READERS_GROUP = 'customer-readers';
