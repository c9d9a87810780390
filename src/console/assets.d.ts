// The console's files, bundled into the Worker as text by wrangler.toml's [[rules]] (vitest reads the same
// config). A browser module is named one by one: a '*.js' pattern would also retype the packages' imports.
declare module '*.html' {
  const text: string;
  export default text;
}
declare module '*.css' {
  const text: string;
  export default text;
}
declare module '*/assets/app.js' {
  const text: string;
  export default text;
}
declare module '*/assets/api.js' {
  const text: string;
  export default text;
}
declare module '*/assets/ui.js' {
  const text: string;
  export default text;
}
declare module '*/assets/customers.js' {
  const text: string;
  export default text;
}
declare module '*/assets/transactions.js' {
  const text: string;
  export default text;
}
declare module '*/assets/webhooks.js' {
  const text: string;
  export default text;
}
declare module '*/assets/sandbox.js' {
  const text: string;
  export default text;
}
declare module '*/assets/faults.js' {
  const text: string;
  export default text;
}
declare module '*/assets/reference.js' {
  const text: string;
  export default text;
}
declare module '*/assets/agents.js' {
  const text: string;
  export default text;
}
