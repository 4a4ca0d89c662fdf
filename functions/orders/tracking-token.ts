import { randomBytes } from 'node:crypto';

/** 192 random bits: above the 128 of decisions 7, and 32 base64url characters without padding. */
export const newTrackingToken = (): string => randomBytes(24).toString('base64url');

/** Anything else cannot be a token we made: answered 404 without touching the table. */
export const looksLikeToken = (value: string): boolean => /^[A-Za-z0-9_-]{22,64}$/.test(value);

/** `baseUrl` is the request's public base (Caller.publicBaseUrl); '' keeps the link relative. */
export const trackingUrl = (token: string, baseUrl: string): string => `${baseUrl}/t/${token}`;
