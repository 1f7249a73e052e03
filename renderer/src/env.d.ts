// Stylesheets imported for their side effect; Vite bundles them.
declare module '*.css';

declare module '*.woff2' {
  const url: string;
  export default url;
}
