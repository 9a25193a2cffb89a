/**
 * Draws the enrolment QR code on a canvas (uqr makes the matrix): no markup from a string, no
 * data: URL, so the page's CSP needs neither.
 */
import { encode } from 'uqr';

/** The otpauth:// URI authenticator apps read (Google's key URI format, TOTP, SHA-1, 6 digits). */
export function otpauthUri(issuer: string, account: string, secret: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  return `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(issuer)}`;
}

export function drawQr(canvas: HTMLCanvasElement, text: string): void {
  const { data, size } = encode(text, { ecc: 'M', border: 4 });
  const scale = Math.floor(Math.min(canvas.width, canvas.height) / size);
  const context = canvas.getContext('2d');
  if (!context) return;
  context.fillStyle = '#fff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.fillStyle = '#000';
  data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) context.fillRect(x * scale, y * scale, scale, scale);
    }),
  );
}
