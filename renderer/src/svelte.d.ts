// Lets `tsc` check the plain .ts modules that import components; the components themselves are compiled by Vite.
declare module '*.svelte' {
  import type { Component } from 'svelte';
  const component: Component<Record<string, unknown>>;
  export default component;
}
