// Vite's `?raw` imports: a file's text, bundled into the test (the README's corridor table test).
declare module '*?raw' {
  const text: string;
  export default text;
}
