/**
 * The staff page's security headers, one list for both places that serve it: the local gateway
 * (local/gateway/pages.ts) and CloudFront's response headers policy (lib/staff-app.ts).
 * The page runs only its own script, keeps tokens in memory, and talks to three origins: the
 * API, Cognito, and the files bucket (the presigned signature and ID photo images).
 */
export interface PageOrigins {
  /** Where the API answers, e.g. https://abc123.execute-api.eu-west-1.amazonaws.com. */
  readonly api: string;
  /** Cognito's endpoint for sign-in calls, e.g. https://cognito-idp.eu-west-1.amazonaws.com. */
  readonly cognito: string;
  /** Where presigned file URLs point, e.g. https://bucket.s3.eu-west-1.amazonaws.com. */
  readonly files: string;
}

/** HSTS lifetime: two years, the preload list's recommended value. */
export const HSTS_SECONDS = 63_072_000;

/**
 * Content-Security-Policy: nothing inline (no script, no style attribute), nothing from any other
 * origin but the three the page needs, no frames around it, no form posting anywhere (the forms
 * are handled by the script), no <base> tag to redirect relative URLs.
 */
export function contentSecurityPolicy(origins: PageOrigins): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' ${origins.files}`,
    connectSrc(origins),
    "frame-ancestors 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** Where the page's script may send requests: the API and Cognito. */
export function connectSrc(origins: Pick<PageOrigins, 'api' | 'cognito'>): string {
  return `connect-src 'self' ${origins.api} ${origins.cognito}`;
}

/**
 * Every header the page is served with besides its content type. No referrer leaves the page
 * (a presigned URL fetched for an image would otherwise learn the page's address), no caching
 * of the page by shared caches, no camera, microphone or location.
 */
export function securityHeaders(origins: PageOrigins): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(origins),
    'strict-transport-security': `max-age=${HSTS_SECONDS}; includeSubDomains`,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'permissions-policy': 'camera=(), microphone=(), geolocation=()',
    'cross-origin-opener-policy': 'same-origin',
  };
}
