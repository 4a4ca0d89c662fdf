import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

/** Debian's chromium, driven by playwright-core: no browser download, nothing fetched. */
export const launch = (): Promise<Browser> =>
  chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });

export const ARTIFACTS = join(process.cwd(), 'test-artifacts');
mkdirSync(ARTIFACTS, { recursive: true });

export interface Watched {
  page: Page;
  consoleErrors: string[];
  requests: string[];
  close(): Promise<void>;
}

/** A page in a fresh context that records console errors and every request it makes. */
export const openPage = async (browser: Browser, options: BrowserContextOptions = {}): Promise<Watched> => {
  // A Chilean phone unless the test says otherwise: the page speaks Spanish by default.
  const context = await browser.newContext({ locale: 'es-CL', ...options });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  return { page, consoleErrors, requests, close: () => context.close() };
};
