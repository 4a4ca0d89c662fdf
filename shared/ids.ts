import { v7 as uuidv7, validate, version } from 'uuid';

/** Time-ordered ids (UUID v7), so that an id is also a stable page cursor. */
export const newId = (): string => uuidv7();

export const isUuid = (value: string): boolean => validate(value);

export const isUuidV7 = (value: string): boolean => validate(value) && version(value) === 7;
