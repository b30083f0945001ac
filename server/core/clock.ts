/** Injected wherever time is recorded, so tests can fix it instead of patching globals. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
export const isoNow = (clock: Clock): string => clock().toISOString();
