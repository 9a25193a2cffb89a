/**
 * The staff page on the local gateway at /app/, as CloudFront serves it for a stage. The files,
 * the security headers (staff-app/security-headers.ts) and the origin-relative layout are the
 * same, so that the page tried locally is the one deployed. Only config.json differs: it points
 * at this rig's gateway and cognito-local. The page is built once, on first use.
 */
import { STAFF_APP_PATH, buildStaffApp, type StaticFile } from '../../staff-app/files.ts';
import { CONFIG_FILE, type StaffAppConfig } from '../../staff-app/config.ts';
import { securityHeaders } from '../../staff-app/security-headers.ts';
import type { LocalPage } from './pages.ts';

export interface LocalStaffAppOptions {
  readonly cognitoEndpoint: string;
  readonly userPoolClientId: string;
  readonly region: string;
  /** Where the local S3 serves presigned URLs (the page shows signatures and ID photos). */
  readonly filesOrigin: string;
  readonly issuer: string;
  /**
   * The local rig's display zone and the business's currency and name, as a stage's page is
   * told them.
   */
  readonly displayTimeZone: string;
  readonly currency: string;
  readonly businessName: string;
}

/** The pages by path; `selfUrl` is the gateway's own URL, known once it listens. */
export function staffAppPages(options: LocalStaffAppOptions, selfUrl: () => string) {
  let files: Record<string, StaticFile> | undefined;
  const headers = () =>
    securityHeaders({
      api: selfUrl(),
      cognito: new URL(options.cognitoEndpoint).origin,
      files: options.filesOrigin,
    });
  return (path: string): LocalPage | undefined => {
    if (!path.startsWith(STAFF_APP_PATH)) return undefined;
    const name = path.slice(STAFF_APP_PATH.length) || 'index.html';
    if (name === CONFIG_FILE) {
      const config: StaffAppConfig = {
        apiUrl: selfUrl(),
        region: options.region,
        userPoolClientId: options.userPoolClientId,
        cognitoEndpoint: options.cognitoEndpoint,
        issuer: options.issuer,
        displayTimeZone: options.displayTimeZone,
        currency: options.currency,
        businessName: options.businessName,
      };
      return {
        contentType: 'application/json; charset=utf-8',
        headers: headers(),
        body: async () => JSON.stringify(config),
      };
    }
    files ??= buildStaffApp();
    const file = Object.hasOwn(files, name) ? files[name] : undefined;
    return (
      file && { contentType: file.contentType, headers: headers(), body: async () => file.body }
    );
  };
}
