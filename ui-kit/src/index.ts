// What the till and the console both draw with: the DOM builder, the component shape, Dominican
// amounts read and written one way, and a problem answer put into words. Neither app imports the
// other; both import this.
export type { Component } from "./component.ts";
export { clear, h } from "./dom.ts";
export * from "./amounts.ts";
export { problemHead, problemText } from "./problem.ts";
