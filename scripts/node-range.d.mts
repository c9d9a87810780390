export function satisfies(version: string, range: string): boolean;
export function nodeVersionProblem(version: string, range: string): string | undefined;
