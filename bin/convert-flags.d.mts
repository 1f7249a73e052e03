export declare const CONVERT_V8_FLAGS: readonly string[];
export declare function isConvert(args: readonly string[]): boolean;
export declare function convertV8Flags(
  args: readonly string[],
  execArgv?: readonly string[],
  env?: NodeJS.ProcessEnv,
): string[];
export declare const LARGE_INPUT_BYTES: number;
export declare const LARGE_CONVERT_NODE_FLAGS: readonly string[];
export declare function convertInput(args: readonly string[]): string | undefined;
export declare function userGave(name: string, execArgv: readonly string[], env: NodeJS.ProcessEnv): boolean;
export declare function convertNodeFlags(
  args: readonly string[],
  execArgv: readonly string[],
  size: (path: string) => number,
  env?: NodeJS.ProcessEnv,
  platform?: NodeJS.Platform,
  opened?: (path: string) => boolean,
): string[];
export declare function pathCandidates(args: readonly string[]): string[];
export declare function descriptorPath(path: string, cwd?: string): boolean;
export declare const DAEMON_MARKDOWN_BYTES: number;
export declare function daemonSwitchedOff(env: NodeJS.ProcessEnv): boolean;
