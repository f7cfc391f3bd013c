/** Actions of a lander or offer: 1..64. */
export const MAX_ACTION = 64;

/** The action of `/action/<n>`: a whole number 1..64 written without sign or leading zeros; else undefined. */
export function parseActionNumber(text: string): number | undefined {
  if (!/^[1-9][0-9]?$/.test(text)) return undefined;
  const action = Number(text);
  return action <= MAX_ACTION ? action : undefined;
}
