// The one Node.js API the Worker uses (nodejs_compat in wrangler.toml): workerd implements it natively.
declare module 'node:async_hooks' {
  export class AsyncLocalStorage<T> {
    run<R>(store: T, callback: () => R): R;
    getStore(): T | undefined;
  }
}
