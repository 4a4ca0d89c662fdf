import { createHash } from 'node:crypto';
import type { CompanyAccount } from './company.ts';
import { isObject, json, type Answer } from './http.ts';

export interface OAuthSettings { appId: string; userToken: string; redirectUri: string; codeTtlMs: number; now: () => number }
interface IssuedCode { clientCode: string; appId: string; expiresAt: number; used: boolean }

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (status: number, title: string, body: string): Answer => ({
  status,
  html: `<!doctype html><html lang="es"><head><meta charset="utf-8"><title>${escape(title)}</title></head>` +
    `<body><main><h1>${escape(title)}</h1>${body}</main></body></html>`,
});

/**
 * The provider's OAuth variant: a login/consent page that redirects with `code`, and the
 * exchange `POST /gateway/oauth_response.json` that turns a code into the company's token.
 * Codes are single-use and expire.
 */
export class OAuthProvider {
  private readonly codes = new Map<string, IssuedCode>();
  private issued = 0;

  constructor(private readonly settings: OAuthSettings, private readonly company: (clientCode: string) => CompanyAccount | undefined) {}

  /** What the user's approval produces: a fresh code bound to the company and the app. */
  approve(clientCode: string): string {
    if (!this.company(clientCode)) throw new Error(`no company ${clientCode} at the provider fake`);
    this.issued += 1;
    const code = createHash('sha256').update(`code:${this.issued}:${clientCode}`).digest('hex').slice(0, 32);
    this.codes.set(code, { clientCode, appId: this.settings.appId, expiresAt: this.settings.now() + this.settings.codeTtlMs, used: false });
    return code;
  }

  expireCodes(): void {
    for (const code of this.codes.values()) code.expiresAt = Math.min(code.expiresAt, this.settings.now() - 1);
  }

  /** `GET /login?app_id&redirect_uri&client_code`: the consent page, a form posting back here. */
  loginPage(url: URL, action: string): Answer {
    const problem = this.checkLogin(url.searchParams.get('app_id'), url.searchParams.get('redirect_uri'), url.searchParams.get('client_code'));
    if (problem) return problem;
    const account = this.company(url.searchParams.get('client_code')!)!;
    const hidden = ['app_id', 'redirect_uri', 'client_code']
      .map((name) => `<input type="hidden" name="${name}" value="${escape(url.searchParams.get(name)!)}">`).join('');
    return page(200, 'Autorizar aplicación',
      `<p>La aplicación <strong>${escape(this.settings.appId)}</strong> pide acceso a la empresa ` +
      `<strong>${escape(account.company.clientName)}</strong> (${escape(account.company.clientCode)}).</p>` +
      `<form method="post" action="${escape(action)}">${hidden}` +
      `<button type="submit" name="decision" value="approve">Autorizar</button> ` +
      `<button type="submit" name="decision" value="deny">Rechazar</button></form>`);
  }

  /** The form's post: approve redirects with a code; deny redirects with `error=access_denied`. */
  loginDecision(form: URLSearchParams): Answer {
    const redirectUri = form.get('redirect_uri');
    const clientCode = form.get('client_code');
    const problem = this.checkLogin(form.get('app_id'), redirectUri, clientCode);
    if (problem) return problem;
    const target = new URL(redirectUri!);
    if (form.get('decision') === 'approve') target.searchParams.set('code', this.approve(clientCode!));
    else target.searchParams.set('error', 'access_denied');
    return { status: 302, headers: { location: target.toString() } };
  }

  /** The default redirect target: shows the code so a person can paste it into the completion. */
  callbackPage(url: URL): Answer {
    const code = url.searchParams.get('code');
    return code
      ? page(200, 'Autorización concedida', `<p>Código: <code id="code">${escape(code)}</code></p>`)
      : page(400, 'Autorización rechazada', `<p>${escape(url.searchParams.get('error') ?? 'sin código')}</p>`);
  }

  /**
   * `POST /gateway/oauth_response.json`. Wrong integrator credentials are an HTTP 401; a code
   * that is unknown, expired or used is an HTTP 200 whose `code` is not 200, as the provider
   * reports refusals inside the body.
   */
  exchange(body: unknown): Answer {
    if (!isObject(body)) return json(400, { error: 'the body must be a JSON object' });
    if (body.appId !== this.settings.appId || body.usrToken !== this.settings.userToken) {
      return json(401, { error: 'invalid usrToken or appId' });
    }
    const issued = typeof body.code === 'string' ? this.codes.get(body.code) : undefined;
    if (!issued || issued.appId !== body.appId) return json(200, { code: 404, data: null, message: 'code not found' });
    if (issued.used) return json(200, { code: 409, data: null, message: 'code already used' });
    if (this.settings.now() > issued.expiresAt) return json(200, { code: 410, data: null, message: 'code expired' });
    issued.used = true;
    const account = this.company(issued.clientCode)!;
    return json(200, { code: 200, data: { accessToken: account.accessToken, clientName: account.company.clientName, clientCode: account.company.clientCode } });
  }

  private checkLogin(appId: string | null, redirectUri: string | null, clientCode: string | null): Answer | undefined {
    if (appId !== this.settings.appId) return page(400, 'Aplicación desconocida', '<p>El parámetro app_id no corresponde a una aplicación registrada.</p>');
    if (redirectUri !== this.settings.redirectUri) return page(400, 'Dirección de retorno no registrada', '<p>redirect_uri no es la registrada para la aplicación.</p>');
    if (!clientCode || !this.company(clientCode)) return page(404, 'Empresa no encontrada', '<p>No hay una empresa con ese RUT.</p>');
    return undefined;
  }
}
