/**
 * The page's settings, written beside it at deploy time (locally: served by the gateway), so one
 * build of the page serves every stage.
 */
export const CONFIG_FILE = 'config.json';

/** What config.json holds: where to sign in and where the API is. */
export interface StaffAppConfig {
  /** The API's base URL, without a trailing slash. */
  readonly apiUrl: string;
  readonly region: string;
  readonly userPoolClientId: string;
  /** Only for the local rig: cognito-local's endpoint instead of Cognito's. */
  readonly cognitoEndpoint?: string;
  /** The name authenticator apps show beside the account (the stage's stack name). */
  readonly issuer: string;
  /** The stage's display zone (SPEC 3.5): the zone every time on the page is in, and says. */
  readonly displayTimeZone: string;
  /** The business's currency (ISO 4217): beside every amount reckoned at a rate. */
  readonly currency: string;
  /** The business's name: the page's title, and the head of a printed KYC record. */
  readonly businessName: string;
}
