// Vite's `?raw` imports: a file's text, bundled into the test (the corridor table test of docs/guides/external-accounts.md).
declare module '*?raw' {
  const text: string;
  export default text;
}
