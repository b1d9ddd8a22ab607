export declare const serverNodeFlags: string[];
