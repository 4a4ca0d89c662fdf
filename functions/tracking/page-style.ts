import { createHash } from 'node:crypto';

/**
 * The page's only style sheet, inline. The CSP names its hash, so nothing else can style the
 * page, and no request leaves for fonts or files (system fonts only).
 */
export const PAGE_CSS = [
  ':root{color-scheme:light;--ink:#18212c;--muted:#4f5b69;--line:#dce3eb;--bg:#f2f5f8;--accent:#0b5cad}',
  '*{box-sizing:border-box}',
  'body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",sans-serif;color:var(--ink);background:var(--bg)}',
  'main{max-width:34rem;margin:0 auto;padding:1rem 1rem 0}',
  '.top{padding:.25rem 0 1rem}',
  '.company{margin:0;font-weight:700;color:var(--muted);text-transform:uppercase;letter-spacing:.06em;font-size:.78rem}',
  'h1{margin:.15rem 0 0;font-size:1.45rem;line-height:1.2}',
  '.ref{margin:.2rem 0 0;color:var(--muted)}',
  '.card{background:#fff;border:1px solid var(--line);border-radius:14px;padding:1rem 1.1rem;margin:0 0 .9rem;box-shadow:0 1px 2px rgba(16,24,40,.06)}',
  '.s-pending{--accent:#4a5568}.s-on_the_way{--accent:#0b5cad}.s-arriving{--accent:#8a4b00}.s-delivered{--accent:#1b6e3a}.s-failed{--accent:#b3261e}',
  '.label{margin:0;font-size:.8rem;color:var(--muted)}',
  '.badge{display:inline-block;margin:.3rem 0 0;padding:.3rem .9rem;border-radius:999px;color:#fff;background:var(--accent);font-weight:700;font-size:1.15rem}',
  '.eta{margin:.9rem 0 0}.eta strong{display:block;font-size:2rem;line-height:1.15;color:var(--accent);font-variant-numeric:tabular-nums}',
  '.note{margin:.9rem 0 0}',
  '.steps{display:flex;list-style:none;margin:1rem 0 0;padding:0;gap:.3rem}',
  '.steps li{flex:1;font-size:.78rem;line-height:1.25;color:var(--muted);border-top:5px solid var(--line);padding-top:.4rem}',
  '.steps .done{border-color:var(--accent);color:var(--ink)}.steps [aria-current]{font-weight:700}',
  'dl{display:grid;grid-template-columns:1fr 1fr;gap:.75rem;margin:0}dl div{min-width:0}',
  'dt{font-size:.8rem;color:var(--muted)}dd{margin:0;font-size:1.35rem;font-weight:700;overflow-wrap:anywhere}',
  'h2{font-size:1rem;margin:0 0 .5rem}',
  'svg{display:block;width:100%;max-width:17rem;height:auto;margin:0 auto}',
  '.bg{fill:#eef3f8}.ring{fill:none;stroke:#c8d2de;stroke-width:1.5}.home{fill:var(--ink)}.cmp{fill:var(--muted);font:700 12px system-ui,sans-serif}',
  '.halo{fill:var(--accent);opacity:.2}.veh{fill:var(--accent);stroke:#fff;stroke-width:3}',
  '.card>p:first-child{margin-top:0}.card>p:last-child{margin-bottom:0}',
  '.small{font-size:.85rem;color:var(--muted);margin:.6rem 0 0}',
  'footer{font-size:.85rem;color:var(--muted);text-align:center;padding:.25rem 0 1.5rem}footer p{margin:.25rem 0}',
  'a{color:#0b5cad}',
  '@media (min-width:50rem){main{max-width:60rem;padding:2rem 2rem 0}.grid{display:grid;grid-template-columns:1.25fr 1fr;gap:1rem;align-items:start}.grid .card{margin:0 0 1rem}h1{font-size:1.8rem}}',
].join('');

export const PAGE_CSS_HASH = `sha256-${createHash('sha256').update(PAGE_CSS).digest('base64')}`;

/** No scripts, no frames, no forms, no other hosts: only the inline style and data: images. */
export const PAGE_CSP = `default-src 'none'; style-src '${PAGE_CSS_HASH}'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** Headers of every tracking answer: no referrer leaks the token, search engines keep out. */
export const PRIVACY_HEADERS = { 'referrer-policy': 'no-referrer', 'x-robots-tag': 'noindex', 'x-content-type-options': 'nosniff' } as const;

export const pageHeaders = (cacheControl: string): Record<string, string> => ({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': PAGE_CSP,
  'cache-control': cacheControl,
  vary: 'Accept-Language',
  ...PRIVACY_HEADERS,
});
