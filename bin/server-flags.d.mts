export declare const SERVER_NODE_FLAGS: readonly string[];
export declare function serverNodeFlags(v8Version?: string): readonly string[];
export declare function hasServerFlags(execArgv?: readonly string[], flags?: readonly string[]): boolean;
export declare function startsServer(args: readonly string[]): boolean;
