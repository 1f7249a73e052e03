export declare const CONVERT_V8_FLAGS: readonly string[];
export declare function isConvert(args: readonly string[]): boolean;
export declare function convertV8Flags(
  args: readonly string[],
  execArgv?: readonly string[],
  env?: NodeJS.ProcessEnv,
): string[];
export declare function userGave(name: string, execArgv: readonly string[], env: NodeJS.ProcessEnv): boolean;
