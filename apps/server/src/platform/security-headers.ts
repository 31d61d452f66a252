import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * Browser hardening headers on every response (API, console files, raw logs, 404s).
 *
 * The CSP lets the console load only its own files: no inline or eval'd script, no plugins, no
 * framing. Styles allow 'unsafe-inline' on purpose: MUI (emotion) and CodeMirror write <style>
 * elements at run time and charts set style attributes; nonces would need index.html rendered per
 * request and threaded into both libraries, for little gain — injected CSS cannot run script,
 * which `script-src 'self'` alone decides. connect-src 'self' covers ws:/wss: to the same host
 * (CSP Level 3). Images: our own (the TOTP QR code comes from the API) and data: (the favicon).
 *
 * HSTS and upgrade-insecure-requests only when GANTRY_WEB_HOST is https: over plain http (a LAN
 * address, no TLS) they would make the browser refuse the console.
 */
export async function registerSecurityHeaders(app: FastifyInstance, webHost: string): Promise<void> {
  const https = webHost.startsWith('https://');
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    // Would make the browser refuse images and workers that do not opt in; nothing is gained here.
    crossOriginEmbedderPolicy: false,
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: https ? { maxAge: 180 * 24 * 3600, includeSubDomains: false } : false,
  });
}
